"""The source side: read the source run (Original executions), run eligible candidates on the source only.

`SourceRun` reads finished `matchmeter run` directories: their configurations, the tasks (reloaded and
checked against every run's stored digests), and per (source, task) the Original executions and the
trajectory of the first one (lowest seed, then attempt), which conditions the rewriter.
`SourceSide` owns the optimizer's own run directory of candidate executions. `source_unit` is one
(task, source) unit: rewrite, gate, execute the eligible candidates on the source, select.
Nothing here reads a target-side result: the selector sees source executions only.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter import __version__
from matchmeter.errors import UserError
from matchmeter.gate.rules import ReferenceKnowledge
from matchmeter.gate.verdict import gate_candidates
from matchmeter.optimizer.records import Selection, UnitState
from matchmeter.optimizer.rewriter import render_attempt, request_candidates
from matchmeter.optimizer.select import score, select
from matchmeter.runner.context import RunContext, RunSpec
from matchmeter.runner.executor import ExecutionPlan
from matchmeter.runner.store import RunStore
from matchmeter.schema import (
    Configuration,
    Cost,
    Description,
    ExecutionResult,
    RunManifest,
    TaskSpec,
    Trajectory,
)

if TYPE_CHECKING:
    from matchmeter.gate.judge import Judge
    from matchmeter.llm.protocols import LMClientLike


@dataclass
class SourceRun:
    roots: list[Path]
    manifests: list[RunManifest]
    configurations: list[Configuration]
    tasks: list[TaskSpec]
    task_dirs: list[Path]
    originals: dict[tuple[str, str], list[tuple[Path, ExecutionResult]]] = field(default_factory=dict)

    @classmethod
    def open(cls, roots: list[Path], sources: list[str]) -> SourceRun:
        """One or more source runs (`matchmeter run` stores one configuration per run) over the same tasks."""
        from matchmeter.tasks.loader import builtin_suite_dir, load_tasks

        stores = [RunStore(Path(r)) for r in roots]
        manifests = [s.read_manifest() for s in stores]
        known: dict[str, Configuration] = {}
        for m in manifests:
            for c in m.configurations:
                known.setdefault(c.id, c)
        unknown = [s for s in sources if s not in known]
        if unknown:
            raise UserError(f"source configuration {unknown[0]!r} is not in the run", ", ".join(map(str, roots)),
                            f"choose from {', '.join(known)}")
        configs = [known[s] for s in sources] if sources else list(known.values())
        req = manifests[0].request
        task_dirs = [Path(p) for p in req.get("tasks") or []] or [builtin_suite_dir()]
        tasks = load_tasks(task_dirs, only=req.get("only") or [], core=bool(req.get("core")))
        for task in tasks:
            for root, m in zip(roots, manifests, strict=True):
                if m.task_digests.get(task.id) not in (None, task.digest):
                    raise UserError(f"task {task.id} changed since the source run (digest differs)", str(root),
                                    "optimize against a fresh source run of the current tasks")
        run = cls([Path(r) for r in roots], manifests, configs, tasks, task_dirs)
        ids = {c.id for c in configs}
        for store in stores:
            for result in store.iter_results():
                if result.configuration_id in ids and result.description_origin == "original":
                    run.originals.setdefault((result.configuration_id, result.task_id), []).append((store.root, result))
        run.check_trajectories()
        return run

    def check_trajectories(self) -> None:
        """Each unit's rewriter reads its source execution's trajectory: a missing or unreadable one is found
        here, before --out is written, not in the middle of the units."""
        for pairs in self.originals.values():
            root, result = min(pairs, key=lambda p: (p[1].seed, p[1].attempt))
            path = root / "executions" / result.execution_key / "trajectory.json"
            try:
                Trajectory.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise UserError(f"the source run's trajectory cannot be read: {str(exc).splitlines()[0][:160]}",
                                str(path), "optimize against a run directory written whole by `matchmeter run`") from None

    @property
    def source_ids(self) -> list[str]:
        return [c.id for c in self.configurations]

    @property
    def simulated(self) -> bool:
        return any(m.simulated for m in self.manifests)

    @property
    def backend(self) -> str:
        return self.manifests[0].backend

    def configuration(self, source: str) -> Configuration:
        return next(c for c in self.configurations if c.id == source)

    def original_results(self, source: str, task_id: str) -> list[ExecutionResult]:
        pairs = sorted(self.originals.get((source, task_id), []), key=lambda p: (p[1].seed, p[1].attempt))
        if not pairs:
            raise UserError(f"the source run has no Original execution of task {task_id} by {source}",
                            ", ".join(map(str, self.roots)), "resume that run until it is complete")
        return [r for _, r in pairs]

    def trajectory(self, source: str, result: ExecutionResult) -> Trajectory:
        root = next(root for root, r in self.originals[(source, result.task_id)] if r is result)
        path = root / "executions" / result.execution_key / "trajectory.json"
        return Trajectory.model_validate_json(path.read_text(encoding="utf-8"))

    def identity(self) -> dict[str, Any]:
        return {"run_ids": sorted(m.run_id for m in self.manifests),
                "task_digests": {t.id: t.digest for t in self.tasks}}


def source_spec(out: Path, source: SourceRun, backend: str | None, concurrency: int, executor: str = "local",
                ray_address: str | None = None) -> RunSpec:
    """The source side's run directory: the source configurations on the source run's tasks and backend
    (unless overridden), opened like any run (preflight, writer lock, leftovers pruned on resume)."""
    return RunSpec(out=out, backend=backend or source.backend or "bwrap", configurations=source.configurations,
                   tasks=source.tasks, task_dirs=source.task_dirs, concurrency=concurrency, announce_errors=False,
                   executor=executor, ray_address=ray_address)


def bind_source_side(store: RunStore, source: SourceRun, backend: str) -> str:
    """A stored source side keeps its run id; a new one gets its manifest."""
    if store.exists():
        return store.read_manifest().run_id
    run_id = f"optimize-{uuid.uuid4().hex[:8]}"
    store.root.mkdir(parents=True, exist_ok=True)
    store.write_manifest(RunManifest(
        run_id=run_id, matchmeter_version=__version__, configurations=source.configurations,
        request={"kind": "optimize-source-side", "source_runs": source.identity()["run_ids"]},
        task_digests={t.id: t.digest for t in source.tasks}, backend=backend, simulated=source.simulated,
        price_table_id=source.manifests[0].price_table_id))
    return run_id


@dataclass
class SourceSide:
    """The optimizer's own run directory of candidate executions, opened (runner.context)."""

    context: RunContext
    executed: int = 0
    cost: Cost = field(default_factory=lambda: Cost(usd=0.0))  # None (with its reason) once one is unpriced
    unpriced: int = 0  # executions whose cost is unknown
    _lock: threading.Lock = field(default_factory=threading.Lock)  # units run side by side (optimize --concurrency)

    @property
    def store(self) -> RunStore:
        return self.context.store

    def run(self, configuration: Configuration, task: TaskSpec, descriptions: list[Description],
            pairs: list[tuple[int, int]]) -> dict[str, list[ExecutionResult]]:
        """Execute each description on the source for every (seed, attempt); results by description sha256."""
        plan = ExecutionPlan()
        for desc in descriptions:
            for seed, attempt in pairs:
                plan.add(configuration, task, desc, seed, attempt)
        items = plan.unique()
        new = self.context.execute(items)
        with self._lock:
            self.account(new)
        by_sha: dict[str, list[ExecutionResult]] = {}
        for item in items:
            result = ExecutionResult.model_validate_json(
                (self.store.executions / item.key / "result.json").read_text(encoding="utf-8"))
            by_sha.setdefault(item.description.sha256, []).append(result)
        return by_sha

    def account(self, results: list[ExecutionResult]) -> None:
        """Count new executions and add their cost; an unknown cost makes the total unknown, never +0."""
        self.executed += len(results)
        for r in results:
            self.cost = self.cost + r.cost
            self.unpriced += int(r.cost.usd is None)


def source_unit(task: TaskSpec, src: str, source: SourceRun, side: SourceSide, rewriter: LMClientLike, judge: Judge | None, *,
                n: int, votes: int, knowledge: ReferenceKnowledge) -> UnitState:
    """One (task, source) unit: rewrite from the source trajectory, gate, run eligible on the source, select."""
    original = task.instruction
    originals = source.original_results(src, task.id)
    attempt = render_attempt(source.trajectory(src, originals[0]), originals[0])
    outcome = request_candidates(rewriter, task_id=task.id, source=src, original=original, attempt=attempt, n=n)
    verdicts = gate_candidates([(c.candidate_id, c.text) for c in outcome.candidates], task_id=task.id, source=src,
                               original=original, knowledge=knowledge, judge=judge, votes=votes)
    eligible = [c for c, v in zip(outcome.candidates, verdicts, strict=True) if v.passed]
    original_score = score(originals)
    if not eligible:
        selection = Selection(fallback=True, reason="no candidate passed the gate")
        return UnitState(task_id=task.id, source=src, original_sha256=originals[0].description_sha256,
                         original_text=original, rewrite=outcome, verdicts=verdicts,
                         original_score=original_score, selection=selection)
    descriptions = [Description(task_id=task.id, text=c.text, sha256=c.sha256, origin="optimized",
                                source_configuration=src, parent_sha256=c.parent_sha256) for c in eligible]
    pairs = sorted({(r.seed, r.attempt) for r in originals})
    by_sha = side.run(source.configuration(src), task, descriptions, pairs)
    scores = {c.candidate_id: score(by_sha[c.sha256]) for c in eligible}
    selection = select(original_score, [(c.candidate_id, scores[c.candidate_id]) for c in eligible])
    return UnitState(task_id=task.id, source=src, original_sha256=originals[0].description_sha256,
                     original_text=original, rewrite=outcome, verdicts=verdicts, original_score=original_score,
                     candidate_scores=scores, selection=selection)
