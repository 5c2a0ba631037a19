"""The machine's CLI cache for tests: installed CLI venvs and wheelhouses shared by every test and session."""

from __future__ import annotations

import os
from pathlib import Path


def machine_clis_dir() -> Path:
    """MATCHMETER_TEST_CLIS_DIR, else ~/.cache/matchmeter/clis: a CLI installed here once (about a minute each,
    under install.py's file lock, so concurrent workers install it once) serves every later test that points
    MATCHMETER_CLIS_DIR at it, instead of each test installing into its own tmp_path cache."""
    return Path(os.environ.get("MATCHMETER_TEST_CLIS_DIR") or Path.home() / ".cache" / "matchmeter" / "clis")
