"""Read a run directory the way its layout (DESIGN.md, runner/store.py) defines it, independently of the store."""

from __future__ import annotations

from pathlib import Path


def stored_results(run_dir: Path) -> list[Path]:
    """result.json of every committed execution, sorted. An execution in progress lives in
    executions/.partial-<key>-<pid>/ and writes its result.json there a moment before the rename that
    commits it, so a kill -9 can leave one behind; it is not stored, and a resume runs it again."""
    executions = run_dir / "executions"
    if not executions.is_dir():
        return []
    return sorted(p for p in executions.glob("*/result.json") if not p.parent.name.startswith("."))
