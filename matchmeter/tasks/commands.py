"""Bodies of the `matchmeter tasks ...` commands that only read tasks (list, import).

cli.py parses options and calls these; they load through the loader and render with rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matchmeter.schema import TaskSpec
from matchmeter.tasks.loader import load_tasks


def _budgets(task: TaskSpec) -> str:
    b = task.budgets
    return f"{b.steps} steps · {b.tokens // 1000}k tok · ${b.usd:g} · {b.wall_s:g}s"


def task_rows(tasks: list[TaskSpec]) -> list[dict[str, Any]]:
    """One plain row per task (what the table shows; also handy for tests and JSON output)."""
    return [
        {
            "id": t.id,
            "family": t.source_family,
            "category": t.category,
            "difficulty": t.difficulty,
            "subgoals": len(t.subgoals),
            "reference_paths": len(t.reference_paths),
            "budgets": _budgets(t),
        }
        for t in tasks
    ]


def list_tasks(paths: list[Path], core: bool, console: Any) -> list[dict[str, Any]]:
    """Print a table of the tasks under `paths` (empty: the built-in suite); return its rows."""
    from rich.table import Table

    rows = task_rows(load_tasks(paths, core=core))
    table = Table(title=f"{len(rows)} task(s)" + (" (core)" if core else ""))
    for name, justify in (("id", "left"), ("family", "left"), ("category", "left"), ("difficulty", "left"),
                          ("#subgoals", "right"), ("#ref paths", "right"), ("budgets", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(r["id"], r["family"], r["category"], r["difficulty"], str(r["subgoals"]),
                      str(r["reference_paths"]), r["budgets"])
    console.print(table)
    return rows


def import_task(src: Path, dest: Path, console: Any) -> Path:
    """Import one Terminal-Bench 1 task and print where it went."""
    from matchmeter.tasks.importer import import_tb1

    out = import_tb1(src, dest)
    console.print(f"imported {src} -> {out}")
    return out


def export_tasks(paths: list[Path], out: Path, fmt: str, seed: int, core: bool, only: list[str],
                 base_image: str, console: Any) -> list[Path]:
    """Export tasks (default: the built-in suite) to `out` in `fmt` (only "harbor"); return the task dirs."""
    from matchmeter.errors import UserError
    from matchmeter.tasks.harbor import export_task

    if fmt != "harbor":
        raise UserError(f"unknown export format {fmt!r}", "--format", "use --format harbor")
    tasks = [t for t in load_tasks(paths, only=only, core=core) if not t.probe]
    out.mkdir(parents=True, exist_ok=True)
    written = [export_task(t, out, seed, base_image=base_image) for t in tasks]
    console.print(f"exported {len(written)} task(s) to {out} (Harbor format, seed {seed}, FROM {base_image})")
    return written
