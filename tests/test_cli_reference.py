"""docs/cli.md is generated from the CLI; a stale reference fails here (regenerate with the script)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_cli_reference_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
