"""`matchmeter evaluate`: targets under the description conditions of a frozen set (SPEC §3).

Only the executions the conditions need are planned: Original (d_i), the frozen d*_{i,k} of the
sources a condition uses (Self: k = t; Cross-only: k ≠ t; Pooled and Adapted-1: every k) and Generic
(g_i). Adapted-1 is computed offline from the Pooled executions. Executions are keyed by description
sha256, so a fallback d*_{i,k} that equals d_i shares the Original execution instead of running twice.

The output directory is a run directory (manifest, executions/, results.parquet) plus

    evaluation.json      what the directory is bound to: description-set digest, seeds, attempts, backend,
                         and every target evaluated so far (a later call may add targets)
    conditions.parquet   results rows joined to their condition units: columns `condition`
                         (original | pooled | generic) and `source` (pooled rows), read by metrics.conditions
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, Field

from matchmeter import __version__
from matchmeter.atomicfile import atomic_path, atomic_write_text
from matchmeter.errors import UserError
from matchmeter.optimizer.freeze import FrozenSet, load_frozen
from matchmeter.runner.context import RunSpec, price_table_digest, price_table_id
from matchmeter.runner.endpoints import INFRA_FAILURES, record_lm_counts, retire_failures
from matchmeter.runner.executor import ExecutionPlan
from matchmeter.runner.store import RunStore, check_out_dir
from matchmeter.schema import Configuration, Description, ModelEndpoint, RunManifest, TaskSpec

if TYPE_CHECKING:
    from rich.console import Console

ALL_CONDITIONS = ("original", "self", "cross", "pooled", "adapted1", "generic")


class EvaluateRequest(BaseModel):
    descriptions: str = Field(description="A frozen description set (matchmeter optimize --out).")
    targets: list[Configuration] = Field(min_length=1)
    conditions: list[str] = Field(default_factory=lambda: list(ALL_CONDITIONS))
    out: str
    tasks: list[str] = Field(default_factory=list, description="Where the tasks live ([] = built-in suite).")
    backend: str = "bwrap"
    seeds: int = Field(1, ge=1)
    attempts: int = Field(1, ge=1)
    concurrency: int = Field(1, ge=1)
    reuse: list[str] = Field(default_factory=list, description="Run directories whose executions with the same key are reused.")
    prices: str | None = Field(None, description="A price file merged over the shipped table (--prices).")
    base_aliases: dict[str, str] = Field(default_factory=dict, description="Dockerfile FROM reference → local image (--base-alias).")
    executor: str = Field("local", description="Where trials run: local (thread pool) or ray (docs/ray.md).")
    ray_address: str | None = Field(None, description="With executor ray: the cluster's HOST:PORT.")

    def binding(self, frozen: FrozenSet) -> dict[str, Any]:
        return {"descriptions_digest": frozen.digest, "seeds": self.seeds, "attempts": self.attempts,
                "backend": self.backend}


class Unit(NamedTuple):
    """One condition unit: a target on a task under one description (the source for pooled units)."""

    condition: str  # original | pooled | generic
    configuration_id: str
    task_id: str
    source: str | None
    description: Description


class EvaluationSummary(BaseModel):
    run_dir: str
    planned: int
    executed: int
    skipped: int
    adopted: int = 0
    units: int
    conditions_table: str
    infra_failures: int = Field(0, description="New executions that failed for infrastructure reasons.")
    lm_calls: int = Field(0, description="Model calls of the new executions.")
    lm_cache_hits: int = Field(0, description="Of those, answered from the response cache.")
    prices: str | None = Field(None, description="The --prices file: the condition tables re-price every "
                               "execution (adopted ones included) from its stored token counts with it.")


def plan_units(frozen: FrozenSet, tasks: list[TaskSpec], targets: list[Configuration],
               conditions: list[str]) -> list[Unit]:
    """Every condition unit the asked conditions need, per target and task."""
    unknown = sorted(set(conditions) - set(ALL_CONDITIONS))
    if unknown:
        raise UserError(f"unknown condition {unknown[0]!r}", "--conditions", f"choose from {', '.join(ALL_CONDITIONS)}")
    units = []
    for target in targets:
        if "self" in conditions and not {"pooled", "adapted1"} & set(conditions) and target.id not in frozen.sources:
            raise UserError(f"Self needs the target among the sources; {target.id!r} is not", "--targets",
                            f"sources are {', '.join(frozen.sources)}")
        sources = set()
        if {"pooled", "adapted1"} & set(conditions):
            sources = set(frozen.sources)
        else:
            if "self" in conditions and target.id in frozen.sources:
                sources.add(target.id)
            if "cross" in conditions:
                sources |= set(frozen.sources) - {target.id}
        for task in tasks:
            if "original" in conditions:
                units.append(Unit("original", target.id, task.id, None, Description.original(task)))
            for source in sorted(sources):
                units.append(Unit("pooled", target.id, task.id, source, frozen.description(task.id, source)))
            if "generic" in conditions:
                units.append(Unit("generic", target.id, task.id, None, frozen.generic(task.id)))
    return units


def _tasks_of(frozen: FrozenSet, request: EvaluateRequest) -> list[TaskSpec]:
    from matchmeter.tasks.loader import load_tasks

    tasks = load_tasks([Path(p) for p in request.tasks], only=sorted(frozen.tasks))
    digests = frozen.source_run.get("task_digests", {})
    changed = [t.id for t in tasks if digests.get(t.id) not in (None, t.digest)]
    if changed:
        raise UserError(f"tasks changed since the description set was optimized: {', '.join(changed[:5])}",
                        request.descriptions, "re-run `matchmeter optimize` on the current tasks")
    return tasks


class Binding(NamedTuple):
    run_id: str
    targets: list[Configuration]  # every target evaluated in this directory so far, this call's included


def _bind(store: RunStore, request: EvaluateRequest, frozen: FrozenSet, tasks: list[TaskSpec]) -> Binding:
    """Bind the directory to the set and settings; targets accumulate across calls."""
    path = store.root / "evaluation.json"
    binding = request.binding(frozen)
    targets = {t.id: t for t in request.targets}
    if path.exists():
        old = json.loads(path.read_text())
        if old["binding"] != binding:
            raise UserError("this evaluation directory was made with another description set or settings",
                            str(path), "repeat its --descriptions/--seeds/--attempts/--backend, or choose another --out")
        targets = {**{c["id"]: Configuration.model_validate(c) for c in old["targets"]}, **targets}
        run_id = old["run_id"]
    else:
        store.root.mkdir(parents=True, exist_ok=True)
        run_id = f"{store.root.name}-eval-{frozen.digest[:8]}"
    record = {"run_id": run_id, "binding": binding, "descriptions": request.descriptions,
              "targets": [t.model_dump(mode="json") for t in targets.values()], "conditions": request.conditions}
    atomic_write_text(path, json.dumps(record, indent=2, sort_keys=True))
    store.write_manifest(RunManifest(
        run_id=run_id, matchmeter_version=__version__, request=record, price_table_id=price_table_id(request.prices),
        price_table_digest=price_table_digest(request.prices), configurations=list(targets.values()),
        task_digests={t.id: t.digest for t in tasks}, backend=request.backend,
        simulated=frozen.simulated or any(c.simulated for c in targets.values()),
    ))
    return Binding(run_id, list(targets.values()))


def evaluate(request: EvaluateRequest, progress: bool = True) -> EvaluationSummary:
    """Plan the needed executions, run what is missing, write conditions.parquet."""
    check_out_dir(Path(request.out), ("evaluation.json",))
    frozen = load_frozen(Path(request.descriptions))
    tasks = _tasks_of(frozen, request)
    units = plan_units(frozen, tasks, request.targets, request.conditions)
    checked = RunSpec(out=Path(request.out), backend=request.backend, configurations=request.targets, tasks=tasks,
                      task_dirs=[Path(p) for p in request.tasks], concurrency=request.concurrency,
                      progress=progress, base_aliases=request.base_aliases, executor=request.executor,
                      ray_address=request.ray_address).preflight()
    by_id = {t.id: t for t in tasks}
    targets = {t.id: t for t in request.targets}
    plan = ExecutionPlan()
    for unit in units:
        for seed in range(request.seeds):
            for attempt in range(request.attempts):
                plan.add(targets[unit.configuration_id], by_id[unit.task_id], unit.description, seed, attempt)
    items = plan.unique()
    bound: list[Binding] = []

    def bind(store: RunStore) -> str:
        bound.append(_bind(store, request, frozen, tasks))
        return bound[0].run_id

    with checked.open(bind) as ctx:
        store = ctx.store
        reused = adopt_executions(store, [Path(r) for r in request.reuse], {i.key for i in items})
        # "fix the cause and run again": stored infrastructure failures are rerun (kept in retried/)
        retire_failures(store, {i.key for i in items}, sorted(INFRA_FAILURES))
        results = ctx.execute(items)
    store.rebuild_table()
    table = write_conditions_table(store, plan_units(frozen, tasks, bound[0].targets, request.conditions))
    calls, hits = record_lm_counts(store, [r.execution_key for r in results])
    return EvaluationSummary(run_dir=str(store.root), planned=len(items), executed=len(results),
                             skipped=len(items) - len(results), adopted=reused, units=len(units),
                             conditions_table=str(table), lm_calls=calls, lm_cache_hits=hits, prices=request.prices,
                             infra_failures=sum(r.failure_mode in INFRA_FAILURES for r in results))


def adopt_executions(store: RunStore, sources: list[Path], keys: set[str]) -> int:
    """Copy finished executions with a planned key from other run directories (same key = same execution).

    Each is copied into a `.partial-` directory and renamed into place, like a fresh execution.
    """
    import shutil

    adopted = 0
    missing = keys - store.finished_keys()
    for source in sources:
        other = RunStore(source)
        if not other.executions.exists():
            raise UserError("no executions to reuse", str(source), "pass a run directory written by `matchmeter run`")
        for key in sorted(missing & other.finished_keys()):
            staging = store.staging_dir(key)
            shutil.rmtree(staging)
            shutil.copytree(other.executions / key, staging)
            staging.replace(store.executions / key)
            missing.discard(key)
            adopted += 1
    return adopted


def write_conditions_table(store: RunStore, units: list[Unit]) -> Path:
    """results.parquet rows joined to the condition units they serve (a row may serve several units)."""
    import pandas as pd

    results = pd.read_parquet(store.table_path)
    unit_frame = pd.DataFrame([{"condition": u.condition, "configuration_id": u.configuration_id,
                                "task_id": u.task_id, "source": u.source,
                                "description_sha256": u.description.sha256} for u in units])
    joined = results.merge(unit_frame, on=["configuration_id", "task_id", "description_sha256"], how="inner")
    path = store.root / "conditions.parquet"
    with atomic_path(path) as tmp:
        joined.to_parquet(tmp, index=False)
    return path


def parse_target(spec: str, endpoint: ModelEndpoint | None = None) -> Configuration:
    """`AGENT[:MODEL]` → the configuration `matchmeter run --agent AGENT --model MODEL` would use.

    `endpoint` (--api-base, --api-key-env, --prices, --no-cache) is given to every non-sim target; where and how
    a model is reached is not part of the configuration digest, so executions stored by `run` are reused
    (--reuse)."""
    from matchmeter.runner.run import configuration_from_flags

    agent, _, model = spec.partition(":")
    if not agent:
        raise UserError(f"bad target {spec!r}", "--target", "write AGENT[:MODEL], e.g. bash:sim/sloppy")
    reach = endpoint if model and not model.startswith("sim/") else None
    return configuration_from_flags(agent, model or None, endpoint=reach)


def render_evaluation(summary: EvaluationSummary, calibration: Path | None, console: Console) -> None:
    """Print what ran and, with a calibration, the per-condition tables (also written as CSV/JSON)."""
    console.print(f"evaluation {summary.run_dir}: {summary.units} condition units, planned {summary.planned} "
                  f"executions, executed {summary.executed}, reused {summary.skipped} "
                  f"({summary.adopted} adopted from --reuse runs); model calls {summary.lm_calls} "
                  f"({summary.lm_cache_hits} from the response cache); infrastructure failures {summary.infra_failures}",
                  highlight=False, soft_wrap=True)
    if calibration is None:
        console.print("pass --calibration to print the condition tables (or run `matchmeter report`)")
        return
    from matchmeter.report.registry import write_run_tables
    from matchmeter.report.render import render_tables

    out_dir = Path(summary.run_dir) / "tables"
    tables = write_run_tables(Path(summary.conditions_table), calibration, out_dir,
                              prices=Path(summary.prices) if summary.prices else None)
    if not tables:
        console.print("only the Original condition ran: no condition tables (`matchmeter report` shows Table 1)")
        return
    render_tables(tables, console)
    console.print(f"condition tables written to {out_dir} (CSV + JSON)", highlight=False)
