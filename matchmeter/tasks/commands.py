"""Bodies of the `matchmeter tasks ...` commands that only read tasks (list, import).

cli.py parses options and calls these; they load through the loader and render with rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

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
    columns: tuple[tuple[str, Literal["left", "right"]], ...] = (
        ("id", "left"), ("family", "left"), ("category", "left"), ("difficulty", "left"), ("#subgoals", "right"),
        ("#ref paths", "right"), ("budgets", "left"))
    for name, justify in columns:
        # ids are what users copy into --task: never cut or wrapped, whatever the terminal (or pipe) width
        table.add_column(name, justify=justify, no_wrap=name == "id", min_width=max((len(r["id"]) for r in rows),
                         default=2) if name == "id" else None)
    for r in rows:
        table.add_row(r["id"], r["family"], r["category"], r["difficulty"], str(r["subgoals"]),
                      str(r["reference_paths"]), r["budgets"])
    console.print(table)
    return rows


def import_task(src: Path, dest: Path, console: Any) -> list[Any]:
    """Import one Terminal-Bench 1 task (or every task of a TB1 tasks directory); print where each went
    and which cannot run offline, with the lines that need the network."""
    from matchmeter.errors import UserError
    from matchmeter.tasks.importer import import_tb1

    sources = [src] if (src / "task.yaml").is_file() else sorted(p.parent for p in src.glob("*/task.yaml"))
    if not sources:
        raise UserError("no task.yaml here or one level below", str(src), "pass a Terminal-Bench 1 task directory")
    done = [import_tb1(s, dest) for s in sources]
    for item in done:
        console.print(f"imported {item.path.name} -> {item.path}", highlight=False)
    online = [item for item in done if item.network_reasons]
    for item in online:
        console.print(f"{item.path.name} cannot run offline (network turned on):", highlight=False)
        for reason in item.network_reasons:
            console.print(f"  {reason}", highlight=False, soft_wrap=True)
    console.print(f"{len(done)} imported, {len(done) - len(online)} run offline, {len(online)} need the network",
                  highlight=False)
    return done


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
