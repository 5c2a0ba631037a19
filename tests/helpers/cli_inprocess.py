"""The CLI called in this test process: `main()` with patched argv, its exit code and captured output."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from matchmeter.cli import main


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[Any, str, str]:
    """(exit code, stdout, stderr) of `matchmeter *argv` run in process."""
    monkeypatch.setattr(sys, "argv", ["matchmeter", *map(str, argv)])
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err
