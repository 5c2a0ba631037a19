"""`matchmeter tasks check`: oracle must score 1.0 and nop below it, for every task and seed.

It runs real trials (same lifecycle, same sandbox backend as a benchmark run) into a throwaway run
directory, so a task that passes here behaves the same under `matchmeter run`.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.runner.context import RunSpec
from matchmeter.runner.executor import plan_cross_product
from matchmeter.runner.run import configuration_from_flags
from matchmeter.schema import Description, ExecutionResult

if TYPE_CHECKING:
    from rich.console import Console


class CheckRow(NamedTuple):
    task_id: str
    seed: int
    oracle: ExecutionResult
    nop: ExecutionResult

    @property
    def ok(self) -> bool:
        return (self.oracle.reward == 1.0 and self.oracle.failure_mode == "none"
                and self.nop.reward < 1.0 and self.nop.failure_mode == "none")


def run_checks(paths: list[Path], backend: str, seeds: int, concurrency: int, only: list[str],
               out: Path | None = None, base_aliases: dict[str, str] | None = None, executor: str = "local",
               ray_address: str | None = None) -> list[CheckRow]:
    """Run oracle and nop on every task × seed; return one row per (task, seed)."""
    from matchmeter.tasks.loader import load_tasks

    tasks = load_tasks(paths, only=only)
    configs = [configuration_from_flags("oracle", None), configuration_from_flags("nop", None)]
    plan = plan_cross_product(configs, tasks, lambda t: [Description.original(t)], range(seeds), 1).unique()
    with tempfile.TemporaryDirectory(prefix="mm-check-") as tmp:
        checked = RunSpec(out=out or Path(tmp) / "check", backend=backend, configurations=configs, tasks=tasks,
                          task_dirs=paths, concurrency=concurrency, announce_errors=False,
                          base_aliases=base_aliases or {}, executor=executor, ray_address=ray_address).preflight()
        # A run id of its own: leftovers are pruned by run id, and another `tasks check` may be running.
        with checked.open(lambda _store: f"tasks-check-{uuid.uuid4().hex[:8]}") as ctx:
            results = ctx.execute(plan)
    by_key = {(r.task_id, r.seed, r.configuration_id): r for r in results}
    return [CheckRow(t.id, s, by_key[(t.id, s, "oracle")], by_key[(t.id, s, "nop")])
            for t in tasks for s in range(seeds)]


def check_tasks(paths: list[Path], backend: str, seeds: int, concurrency: int, only: list[str], console: Console,
                base_aliases: dict[str, str] | None = None, executor: str = "local",
                ray_address: str | None = None) -> bool:
    from rich.table import Table

    with console.status(f"checking tasks on {backend} ({seeds} seed(s))"):
        rows = run_checks(paths, backend, seeds, concurrency, only, base_aliases=base_aliases, executor=executor,
                          ray_address=ray_address)
    table = Table(title=f"tasks check · backend {backend}")
    for col in ("task", "seed", "oracle", "nop", "ok", "note"):
        table.add_column(col)
    for row in rows:
        note = "; ".join(e for e in (_why(row.oracle, "oracle", row.oracle.reward < 1.0),
                                     _why(row.nop, "nop", row.nop.reward >= 1.0)) if e)[:120]
        table.add_row(row.task_id, str(row.seed), f"{row.oracle.reward:.2f}", f"{row.nop.reward:.2f}",
                      "[green]yes[/]" if row.ok else "[red]NO[/]", note)
    console.print(table)
    bad = [r for r in rows if not r.ok]
    console.print(f"{len(rows) - len(bad)}/{len(rows)} task×seed checks pass")
    return not bad


def _why(result: ExecutionResult, agent: str, wrong: bool) -> str:
    """What to read first when a check fails: the error, else (a wrong reward) the subgoals that scored below 1."""
    if result.error:
        return f"{agent}: {result.error}"
    if not wrong:
        return ""
    missed = [f"{name} {score:.2f}" for name, score in result.subgoal_scores.items() if score < 1.0]
    return f"{agent} {result.reward:.2f}" + (f" ({', '.join(missed)})" if missed else "")
