"""`matchmeter run`: one request model in, a stored (resumable) run directory out.

A run directory is bound to what was asked: resuming with a different request is refused rather than
mixing two experiments in one table. Runs that use `sim/` models start the loopback stub server for
their duration and are labelled SIMULATED in the manifest and in every result.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from matchmeter import __version__
from matchmeter.errors import SpendCapReached, UserError
from matchmeter.runner.context import RunSpec, price_table_digest, price_table_id
from matchmeter.runner.endpoints import INFRA_FAILURES, check_retry_failed, record_lm_counts, retire_failures
from matchmeter.runner.executor import plan_cross_product
from matchmeter.runner.store import RunStore, check_out_dir, warm_table_writer
from matchmeter.schema import (
    AgentSpec,
    Configuration,
    Description,
    ExecutionResult,
    ModelEndpoint,
    RunManifest,
    TaskSpec,
)


class RunRequest(BaseModel):
    """Everything `matchmeter run` needs; stored in the manifest as asked."""

    tasks: list[str] = Field(default_factory=list, description="Task or suite directories ([] = built-in suite).")
    only: list[str] = Field(default_factory=list, description="Only these task ids.")
    core: bool = False
    configurations: list[Configuration]
    backend: str = "bwrap"
    seeds: int = Field(1, ge=1)
    attempts: int = Field(1, ge=1)
    concurrency: int = Field(1, ge=1)
    out: str
    resume: bool = False
    allow_incompatible: bool = False
    with_probes: bool = Field(False, description="Add the anti-gaming probe tasks; a failed probe marks the configuration untrusted.")
    spend_cap_usd: float | None = Field(None, gt=0, allow_inf_nan=False)
    retry_failed: list[str] = Field(default_factory=list, description="On --resume: rerun stored executions with these failure modes.")
    prices: str | None = Field(None, description="A price file merged over the shipped table (--prices).")
    base_aliases: dict[str, str] = Field(default_factory=dict, description="Dockerfile FROM reference → local image (--base-alias).")
    executor: str = Field("local", description="Where trials run: local (thread pool) or ray (docs/ray.md).")
    ray_address: str | None = Field(None, description="With executor ray: the cluster's HOST:PORT.")


class RunSummary(BaseModel):
    run_dir: str
    planned: int
    skipped: int
    executed: int
    retried: int = Field(0, description="Stored failures moved aside to be rerun (--retry-failed).")
    lm_calls: int = Field(0, description="Model calls of the new executions.")
    lm_cache_hits: int = Field(0, description="Of those, answered from the response cache.")
    results: list[ExecutionResult] = Field(default_factory=list, repr=False)

    @property
    def infra_failures(self) -> int:
        return sum(r.failure_mode in INFRA_FAILURES for r in self.results)

    def to_json(self) -> dict[str, Any]:
        modes: dict[str, int] = {}
        for r in self.results:
            modes[r.failure_mode] = modes.get(r.failure_mode, 0) + 1
        rewards = [r.reward for r in self.results]
        return {**self.model_dump(mode="json", exclude={"results"}), "failure_modes": modes,
                "infra_failures": self.infra_failures, "simulated": any(r.simulated for r in self.results),
                "mean_reward": sum(rewards) / len(rewards) if rewards else None}


def configuration_from_flags(agent: str, model: str | None, *, transport: str = "raw", contract: str = "raw",
                             options: dict[str, str] | None = None, config_id: str | None = None,
                             endpoint: ModelEndpoint | None = None) -> Configuration:
    """Build the one configuration `--agent/--model/--transport` describe; `options` are the agent's own
    (replay's trajectory, a CLI's cli_path), `endpoint` where and how its model is reached."""
    cid = config_id or "+".join(p for p in (model, agent, None if transport == "raw" else transport) if p)
    return Configuration.model_validate({
        "id": cid, "model": model, "agent": AgentSpec(name=agent, options=options or {}),
        "contract": contract, "transport": transport, "endpoint": endpoint or ModelEndpoint(),
    })


def _manifest(request: RunRequest, tasks: list[TaskSpec], run_id: str) -> RunManifest:
    return RunManifest(
        price_table_id=price_table_id(request.prices), price_table_digest=price_table_digest(request.prices),
        run_id=run_id, matchmeter_version=__version__, request=request.model_dump(mode="json", exclude={"resume"}),
        configurations=request.configurations, task_digests={t.id: t.digest for t in tasks},
        description_digests={Description.original(t).sha256: t.id for t in tasks},
        backend=request.backend, allow_incompatible=request.allow_incompatible,
        simulated=any(c.simulated for c in request.configurations),
    )


def _bind_store(store: RunStore, request: RunRequest, tasks: list[TaskSpec]) -> str:
    """A new directory gets the manifest; a stored one must be resumed with the same request."""
    if store.exists():
        if not request.resume:
            raise UserError("run directory already holds a run", str(store.root),
                            "pass --resume to continue it, or choose another --out")
        old = store.read_manifest()
        new = _manifest(request, tasks, old.run_id)
        if _what_runs(old.request) != _what_runs(new.request) or old.task_digests != new.task_digests:
            raise UserError("--resume asks for a different run than the one stored", str(store.manifest_path),
                            "repeat the original flags, or choose another --out")
        return old.run_id
    run_id = f"{Path(request.out).name}-{uuid.uuid4().hex[:8]}"
    store.root.mkdir(parents=True, exist_ok=True)
    store.write_manifest(_manifest(request, tasks, run_id))
    return run_id


# Request fields that change how a run proceeds, not what it executes: a resume may change them.
PROCEDURAL_FIELDS = ("resume", "concurrency", "spend_cap_usd", "retry_failed", "prices", "executor", "ray_address")


def _what_runs(request: dict[str, Any]) -> dict[str, Any]:
    """Configurations compare by digest: a resume may point a model at another endpoint or key variable."""
    what = {k: v for k, v in request.items() if k not in PROCEDURAL_FIELDS}
    what["configurations"] = [Configuration.model_validate(c).digest() for c in what.get("configurations", [])]
    return what


def execute_run(request: RunRequest, progress: bool = True) -> RunSummary:
    """Plan, (re)run what is missing, rebuild results.parquet."""
    from matchmeter.tasks.loader import builtin_probes_dir, builtin_suite_dir, load_tasks

    check_retry_failed(request.retry_failed, request.resume)  # a flag error needs no endpoint called first
    check_out_dir(Path(request.out), ("manifest.json",))
    warm_table_writer()
    task_paths = [Path(p) for p in request.tasks]
    tasks = load_tasks(task_paths, only=request.only, core=request.core)
    if request.with_probes:
        tasks += load_tasks([builtin_probes_dir()])
        task_paths = [*(task_paths or [builtin_suite_dir()]), builtin_probes_dir()]
    checked = RunSpec(
        out=Path(request.out), backend=request.backend, configurations=request.configurations, tasks=tasks,
        task_dirs=task_paths, concurrency=request.concurrency, progress=progress,
        allow_incompatible=request.allow_incompatible, spend_cap_usd=request.spend_cap_usd,
        base_aliases=request.base_aliases,
        executor=request.executor, ray_address=request.ray_address,
    ).preflight()
    plan = plan_cross_product(request.configurations, tasks, lambda t: [Description.original(t)],
                              range(request.seeds), request.attempts).unique()
    with checked.open(lambda store: _bind_store(store, request, tasks)) as ctx:
        store = ctx.store
        retried = retire_failures(store, {p.key for p in plan}, request.retry_failed)
        try:
            results = ctx.execute(plan)
        except SpendCapReached as exc:
            store.rebuild_table()
            left = len(plan) - len(store.finished_keys() & {p.key for p in plan})
            raise UserError(f"{exc}; {left} of {len(plan)} executions not run yet", str(store.root),
                            "resume with --resume and a higher --spend-cap") from exc
    store.rebuild_table()
    calls, hits = record_lm_counts(store, [r.execution_key for r in results])
    return RunSummary(run_dir=str(store.root), planned=len(plan), skipped=len(plan) - len(results),
                      executed=len(results), retried=retried, lm_calls=calls, lm_cache_hits=hits, results=results)
