"""Plan executions, run them with bounded concurrency, store each one, rebuild the table.

The plan is the cross product configurations × tasks × descriptions × seeds × attempts; each planned
execution has a key (store.execution_key). A resumed run skips keys that already have a result and
reruns ones that were in progress. Infra errors (engine hiccups) are retried a bounded number of times;
sandbox start failures too; a model endpoint's failure is not (the LM client retried each call already:
one retry layer); every other failure is a result.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import SpendCapReached
from matchmeter.llm.protocols import RunLedger
from matchmeter.runner.atif import builtin_agent_version, step_documents, to_atif
from matchmeter.runner.sandbox import SandboxBackend
from matchmeter.runner.store import RunStore, execution_key
from matchmeter.runner.trial import CancelScope, TrialOutcome, TrialRequest, run_trial
from matchmeter.schema import Configuration, Description, ExecutionResult, ModelEndpoint, TaskSpec, utcnow

if TYPE_CHECKING:
    from matchmeter.llm.gateway import Gateway

INFRA_RETRIES = 2
# Failures of the machinery, not of the agent: a sandbox that did not start under load, an engine
# hiccup. Retried a bounded number of times; every other failure mode is a result.
RETRIED_FAILURES = frozenset({"infra_error", "sandbox_error"})


@dataclass(frozen=True)
class PlannedExecution:
    key: str
    configuration: Configuration
    task: TaskSpec
    description: Description
    seed: int
    attempt: int


@dataclass
class ExecutionPlan:
    items: list[PlannedExecution] = field(default_factory=list)

    def add(self, configuration: Configuration, task: TaskSpec, description: Description, seed: int, attempt: int) -> None:
        key = execution_key(configuration.digest(), task.digest, description.sha256, seed, attempt)
        self.items.append(PlannedExecution(key, configuration, task, description, seed, attempt))

    def unique(self) -> list[PlannedExecution]:
        seen: dict[str, PlannedExecution] = {}
        for item in self.items:
            seen.setdefault(item.key, item)
        return list(seen.values())


def plan_cross_product(
    configurations: Iterable[Configuration],
    tasks: Iterable[TaskSpec],
    descriptions: Callable[[TaskSpec], list[Description]],
    seeds: Iterable[int],
    attempts: int,
) -> ExecutionPlan:
    plan = ExecutionPlan()
    tasks = list(tasks)
    seeds = list(seeds)
    for configuration in configurations:
        for task in tasks:
            for description in descriptions(task):
                for seed in seeds:
                    for attempt in range(attempts):
                        plan.add(configuration, task, description, seed, attempt)
    return plan


EndpointFor = Callable[[PlannedExecution], ModelEndpoint]  # where each execution's model calls go
OnResult = Callable[[ExecutionResult], None]


def configured_endpoint(item: PlannedExecution) -> ModelEndpoint:
    """An execution's model calls go to its configuration's endpoint (a run without sim models)."""
    return item.configuration.endpoint


class Cancelled(Exception):
    """A trial ended by Ctrl-C: its result is not stored, so `--resume` runs it again."""


@dataclass
class TrialShared:
    """What every trial of one execute_plan call shares (on a Ray worker: what every trial of the task shares)."""

    store: RunStore | None
    run_id: str
    backend: SandboxBackend
    endpoint_for: EndpointFor
    allow_incompatible: bool
    scope: CancelScope
    gateway: Gateway | None


def attempt_trial(item: PlannedExecution, shared: TrialShared, new_staging: Callable[[], Path]) -> tuple[TrialOutcome, Path]:
    """Run one execution, retrying machinery failures; returns its outcome and the staging dir it wrote.

    Shared by both executors: the local pool stages in the run store, a Ray worker in a node-local dir.
    """
    outcome: TrialOutcome | None = None
    staging: Path | None = None
    started = utcnow()
    for _ in range(INFRA_RETRIES + 1):
        if shared.scope.cancelled.is_set():
            raise Cancelled(item.key)
        staging = new_staging()
        outcome = run_trial(TrialRequest(
            run_id=shared.run_id, execution_key=item.key, configuration=item.configuration, task=item.task,
            description=item.description, seed=item.seed, attempt=item.attempt, backend=shared.backend,
            logs_dir=staging / "logs", endpoint=shared.endpoint_for(item),
            allow_incompatible=shared.allow_incompatible, scope=shared.scope,
            gateway=shared.gateway,
        ))
        if shared.scope.cancelled.is_set():
            raise Cancelled(item.key)  # its sandbox was destroyed under it: not a result
        if outcome.result.failure_mode not in RETRIED_FAILURES or not outcome.rerun:
            break
    assert outcome is not None
    assert staging is not None
    outcome.result.started_at = started  # the execution began with its first try, not its last
    return outcome, staging


def atif_of(item: PlannedExecution, outcome: TrialOutcome) -> dict[str, Any]:
    return to_atif(outcome.trajectory, session_id=item.key, instruction=item.description.text,
                   agent_version=outcome.trajectory.agent_version or item.configuration.agent.version
                   or builtin_agent_version())


def write_step_atifs(item: PlannedExecution, outcome: TrialOutcome, staging: Path) -> None:
    """steps/<name>/trajectory.atif.json for each step a multi-step execution ran (atif.step_documents)."""
    docs = step_documents(outcome.trajectory, outcome.result.steps, {s.name: s.instruction for s in item.task.steps},
                          session_id=item.key, agent_version=outcome.trajectory.agent_version
                          or item.configuration.agent.version or builtin_agent_version())
    for name, doc in docs.items():
        (staging / "steps" / name).mkdir(parents=True, exist_ok=True)
        atomic_write_text(staging / "steps" / name / "trajectory.atif.json", json.dumps(doc, indent=2, default=str))


def _run_one(item: PlannedExecution, shared: TrialShared) -> ExecutionResult:
    store = shared.store
    assert store is not None
    outcome, staging = attempt_trial(item, shared, lambda: store.staging_dir(item.key))
    write_step_atifs(item, outcome, staging)
    store.commit(staging, outcome.result, outcome.trajectory.model_dump_json(indent=2), atif_of(item, outcome))
    return outcome.result


@contextlib.contextmanager
def run_gateway(plan: list[PlannedExecution], ledger: RunLedger | None) -> Iterator[Gateway | None]:
    """The run's model gateway (llm/gateway.py) when any execution has a model: every agent's model calls
    go through it, metered and budgeted there; the sandbox reaches it only through its Unix socket."""
    if not any(item.configuration.model for item in plan):
        yield None
        return
    from matchmeter.llm.gateway import Gateway

    # A short path of its own: Unix socket paths are limited to ~108 bytes, run dirs can be long.
    home = Path(tempfile.mkdtemp(prefix="mm-gw-"))
    home.chmod(0o711)
    gateway = Gateway(socket_path=home / "gw.sock", ledger=ledger).start()
    try:
        yield gateway
    finally:
        gateway.stop()
        shutil.rmtree(home, ignore_errors=True)


def execute_plan(
    plan: list[PlannedExecution],
    store: RunStore,
    run_id: str,
    backend: SandboxBackend,
    concurrency: int = 1,
    endpoint_for: EndpointFor | None = None,
    on_result: OnResult | None = None,
    allow_incompatible: bool = False,
    spend_ledger: RunLedger | None = None,
) -> list[ExecutionResult]:
    """Run every planned execution not finished yet; returns the new results (in completion order).

    Ctrl-C stops scheduling and destroys every running trial's sandbox at once (their results are not
    stored; `--resume` reruns them), waits for the trial threads to notice, then re-raises. Reaching the
    spend cap stops scheduling too: running trials finish (or stop at the cap, unstored), then
    SpendCapReached is raised so the caller can tell the user to resume with a higher cap.
    runner/ray_executor.py keeps the same contract on a Ray cluster (runner/context.py picks one by name).
    """
    store.clean_partials({item.key for item in plan})
    finished = store.finished_keys()
    todo = [item for item in plan if item.key not in finished]
    results: list[ExecutionResult] = []
    stop = threading.Event()
    scope = CancelScope()
    cap_reached: SpendCapReached | None = None
    with run_gateway(todo, spend_ledger) as gateway, \
            ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="trial") as pool:
        shared = TrialShared(store, run_id, backend, endpoint_for or configured_endpoint, allow_incompatible, scope,
                             gateway)
        pending: set[Future[ExecutionResult]] = set()
        queue = iter(todo)
        try:
            while True:
                while not stop.is_set() and len(pending) < max(1, concurrency):
                    item = next(queue, None)
                    if item is None:
                        break
                    pending.add(pool.submit(_run_one, item, shared))
                if not pending:
                    break
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    try:
                        result = fut.result()
                    except SpendCapReached as exc:
                        cap_reached = cap_reached or exc
                        stop.set()
                        continue
                    except Cancelled:
                        continue
                    results.append(result)
                    if on_result:
                        on_result(result)
        except KeyboardInterrupt:
            stop.set()
            for fut in pending:
                fut.cancel()
            scope.cancel()
            raise
    if cap_reached is not None:
        raise cap_reached
    return results
