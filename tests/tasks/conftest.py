"""Fixtures shared by the Harbor export tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from matchmeter.cli import app


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The Core subset exported with `tasks export --format harbor --seed 3`."""
    out = tmp_path_factory.mktemp("harbor-export")
    result = CliRunner().invoke(app, ["tasks", "export", "--format", "harbor", "--seed", "3", "--core", str(out)])
    assert result.exit_code == 0, result.output
    return out
