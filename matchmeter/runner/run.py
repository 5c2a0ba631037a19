"""`matchmeter run`: one request model in, a stored (resumable) run directory out.

A run directory is bound to what was asked: resuming with a different request is refused rather than
mixing two experiments in one table. Runs that use `sim/` models start the loopback stub server for
their duration and are labelled SIMULATED in the manifest and in every result.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from matchmeter import __version__
from matchmeter.errors import SpendCapReached, UserError
from matchmeter.llm.meter import RunLedger
from matchmeter.runner.agents import get_agent
from matchmeter.runner.endpoints import (
    INFRA_FAILURES,
    announce_first_errors,
    model_endpoints,
    preflight_models,
    record_lm_counts,
    retire_failures,
)
from matchmeter.runner.executor import PlannedExecution, execute_plan, plan_cross_product
from matchmeter.runner.sandbox import SandboxBackend, get_backend
from matchmeter.runner.store import RunStore
from matchmeter.schema import Configuration, Description, ExecutionResult, RunManifest, TaskSpec


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
    spend_cap_usd: float | None = None
    retry_failed: list[str] = Field(default_factory=list, description="On --resume: rerun stored executions with these failure modes.")
    prices: str | None = Field(None, description="A price file merged over the shipped table (--prices).")


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
                             options: dict[str, str] | None = None, config_id: str | None = None) -> Configuration:
    """Build the one configuration `--agent/--model/--transport` describe."""
    from matchmeter.schema import AgentSpec

    cid = config_id or "+".join(p for p in (model, agent, None if transport == "raw" else transport) if p)
    return Configuration.model_validate({
        "id": cid, "model": model, "agent": AgentSpec(name=agent, options=options or {}),
        "contract": contract, "transport": transport,
    })


def price_table_id(prices: str | None = None) -> str:
    """Id of the dated price table every cost in a run is computed with (recorded in the manifest)."""
    from matchmeter.llm.pricing import PriceTable

    return PriceTable.load(overrides=prices).table_id


def price_table_digest(prices: str | None = None) -> str:
    from matchmeter.llm.pricing import PriceTable

    return PriceTable.load(overrides=prices).digest


def _manifest(request: RunRequest, tasks: list[TaskSpec], run_id: str) -> RunManifest:
    return RunManifest(
        price_table_id=price_table_id(request.prices), price_table_digest=price_table_digest(request.prices),
        run_id=run_id, matchmeter_version=__version__, request=request.model_dump(mode="json", exclude={"resume"}),
        configurations=request.configurations, task_digests={t.id: t.digest for t in tasks},
        description_digests={Description.original(t).sha256: t.id for t in tasks},
        backend=request.backend, allow_incompatible=request.allow_incompatible,
        simulated=any(c.simulated for c in request.configurations),
    )


def _open_store(request: RunRequest, tasks: list[TaskSpec]) -> tuple[RunStore, str]:
    store = RunStore(Path(request.out))
    store.claim()
    if store.exists():
        if not request.resume:
            raise UserError("run directory already holds a run", str(store.root),
                            "pass --resume to continue it, or choose another --out")
        old = store.read_manifest()
        new = _manifest(request, tasks, old.run_id)
        if _what_runs(old.request) != _what_runs(new.request) or old.task_digests != new.task_digests:
            raise UserError("--resume asks for a different run than the one stored", str(store.manifest_path),
                            "repeat the original flags, or choose another --out")
        return store, old.run_id
    run_id = f"{Path(request.out).name}-{uuid.uuid4().hex[:8]}"
    store.root.mkdir(parents=True, exist_ok=True)
    store.write_manifest(_manifest(request, tasks, run_id))
    return store, run_id


# Request fields that change how a run proceeds, not what it executes: a resume may change them.
PROCEDURAL_FIELDS = ("resume", "concurrency", "spend_cap_usd", "retry_failed", "prices")


def _what_runs(request: dict) -> dict:  # type: ignore[type-arg]
    """Configurations compare by digest: a resume may point a model at another endpoint or key variable."""
    what = {k: v for k, v in request.items() if k not in PROCEDURAL_FIELDS}
    what["configurations"] = [Configuration.model_validate(c).digest() for c in what.get("configurations", [])]
    return what


@contextlib.contextmanager
def sim_environment(configurations: list[Configuration], tasks_dirs: list[Path]) -> Iterator[str | None]:
    """Start the loopback stub server when any configuration uses a `sim/` model; yield its URL."""
    if not any(c.simulated for c in configurations):
        yield None
        return
    from matchmeter.llm.stub_server import serve_sim

    with serve_sim(tasks_dirs) as url:
        yield url


def execute_run(request: RunRequest, progress: bool = True) -> RunSummary:
    """Plan, (re)run what is missing, rebuild results.parquet."""
    from matchmeter.tasks.loader import builtin_probes_dir, builtin_suite_dir, load_tasks

    task_paths = [Path(p) for p in request.tasks]
    tasks = load_tasks(task_paths, only=request.only, core=request.core)
    if request.with_probes:
        tasks += load_tasks([builtin_probes_dir()])
        task_paths = [*(task_paths or [builtin_suite_dir()]), builtin_probes_dir()]
    backend = preflight(request.backend, request.configurations, tasks)
    store, run_id = _open_store(request, tasks)
    prune_leftovers(request.backend, run_id)  # what a kill -9 of an earlier process of this run left behind
    plan = plan_cross_product(request.configurations, tasks, lambda t: [Description.original(t)],
                              range(request.seeds), request.attempts).unique()
    retried = retire_failures(store, {p.key for p in plan}, request.retry_failed, request.resume)
    try:
        results = run_planned(plan, store, run_id, backend, request.backend, request.configurations, task_paths,
                              request.concurrency, progress, allow_incompatible=request.allow_incompatible,
                              spend_ledger=_spend_ledger(store, request.spend_cap_usd))
    except SpendCapReached as exc:
        store.rebuild_table()
        left = len(plan) - len(store.finished_keys() & {p.key for p in plan})
        raise UserError(f"{exc}; {left} of {len(plan)} executions not run yet", str(store.root),
                        "resume with --resume and a higher --spend-cap") from exc
    calls, hits = record_lm_counts(store, [r.execution_key for r in results])
    return RunSummary(run_dir=str(store.root), planned=len(plan), skipped=len(plan) - len(results),
                      executed=len(results), retried=retried, lm_calls=calls, lm_cache_hits=hits, results=results)


def preflight(backend_name: str, configurations: list[Configuration], tasks: list[TaskSpec]) -> SandboxBackend:
    """The backend, checked; every agent instantiated once so unknown agents or bad options fail before
    anything is stored."""
    backend = get_backend(backend_name)
    backend.preflight()
    for configuration in configurations:
        get_agent(configuration, tasks[0])
    preflight_models(model_endpoints(configurations))
    return backend


def run_planned(items: list[PlannedExecution], store: RunStore, run_id: str, backend: SandboxBackend,
                backend_name: str, configurations: list[Configuration], task_paths: list[Path], concurrency: int,
                progress: bool, **options: Any) -> list[ExecutionResult]:
    """Run the unfinished items (with the sim stub when needed and a progress bar); rebuild the table."""
    from matchmeter.tasks.loader import builtin_suite_dir

    finished = store.finished_keys()
    with sim_environment(configurations, task_paths or [builtin_suite_dir()]) as stub_url, \
            progress_bar(progress, len(items), len([i for i in items if i.key in finished])) as on_result:
        results = execute_plan(items, store, run_id, backend, backend_name, concurrency,
                               api_base_for=api_base_resolver(stub_url),
                               on_result=announce_first_errors(on_result), **options)
    store.rebuild_table()
    return results


def _spend_ledger(store: RunStore, cap_usd: float | None) -> RunLedger | None:
    """The run's spend ledger (runs/<id>/spend.json): survives restarts, so a resumed run keeps its total."""
    if cap_usd is None:
        return None
    from matchmeter.llm.spend import SpendLedger

    return SpendLedger(store.root / "spend.json", cap_usd)


def prune_leftovers(backend: str, run_id: str) -> None:
    """Remove what a killed earlier process of this run left: containers, temp workspaces, local processes.

    Sandboxes are labelled with the run id, so only this run's leftovers are touched.
    """
    from matchmeter.runner.sandbox import policy

    if backend == "local":
        from matchmeter.runner.sandbox.local import prune_processes

        prune_processes(run_id)
    policy.prune_workspaces(run_id)
    if backend == "docker":
        from matchmeter.runner.sandbox.baseimage import prune

        prune(label=run_id)


def api_base_resolver(stub_url: str | None):  # type: ignore[no-untyped-def]
    """Sim models learn their task from the endpoint path: /sim/<task>/<seed>/v1 on the stub server."""

    def api_base_for(item: PlannedExecution) -> str | None:
        if stub_url and item.configuration.simulated:
            from matchmeter.llm.sim import sim_api_base

            return sim_api_base(stub_url, item.task.id, item.seed)
        return None

    return api_base_for


@contextlib.contextmanager
def progress_bar(enabled: bool, total: int, done: int) -> Iterator:  # type: ignore[type-arg]
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[last]}")) as bar:
        tid = bar.add_task("executions", total=total, completed=done, last="")

        def on_result(result: ExecutionResult) -> None:
            cost = "n/a" if result.cost.usd is None else f"${result.cost.usd:.4f}"
            bar.update(tid, advance=1, last=f"{result.task_id} r={result.reward:.2f} {cost}")

        yield on_result
