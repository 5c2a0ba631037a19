"""Plan executions, run them with bounded concurrency, store each one, rebuild the table.

The plan is the cross product configurations × tasks × descriptions × seeds × attempts; each planned
execution has a key (store.execution_key). A resumed run skips keys that already have a result and
reruns ones that were in progress. Infra errors (engine hiccups) are retried a bounded number of times;
sandbox start failures too; every other failure is a result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from matchmeter.errors import SpendCapReached
from matchmeter.runner.atif import builtin_agent_version, to_atif
from matchmeter.runner.sandbox import SandboxBackend
from matchmeter.runner.store import RunStore, execution_key
from matchmeter.runner.trial import TrialOutcome, TrialRequest, run_trial
from matchmeter.schema import Configuration, Description, ExecutionResult, TaskSpec

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


ApiBaseFor = Callable[[PlannedExecution], str | None]
OnResult = Callable[[ExecutionResult], None]


def _run_one(item: PlannedExecution, store: RunStore, run_id: str, backend: SandboxBackend, backend_name: str,
             api_base_for: ApiBaseFor, allow_incompatible: bool = False, spend_ledger: Any = None) -> ExecutionResult:
    outcome: TrialOutcome | None = None
    for _ in range(INFRA_RETRIES + 1):
        staging = store.staging_dir(item.key)
        outcome = run_trial(TrialRequest(
            run_id=run_id, execution_key=item.key, configuration=item.configuration, task=item.task,
            description=item.description, seed=item.seed, attempt=item.attempt, backend=backend,
            backend_name=backend_name, logs_dir=staging / "logs", api_base=api_base_for(item),
            allow_incompatible=allow_incompatible, spend_ledger=spend_ledger,
        ))
        if outcome.result.failure_mode not in RETRIED_FAILURES:
            break
    assert outcome is not None
    atif = to_atif(outcome.trajectory, session_id=item.key, instruction=item.description.text,
                   agent_version=item.configuration.agent.version or builtin_agent_version())
    store.commit(staging, outcome.result, outcome.trajectory.model_dump_json(indent=2), atif)
    return outcome.result


def execute_plan(
    plan: list[PlannedExecution],
    store: RunStore,
    run_id: str,
    backend: SandboxBackend,
    backend_name: str,
    concurrency: int = 1,
    api_base_for: ApiBaseFor | None = None,
    on_result: OnResult | None = None,
    allow_incompatible: bool = False,
    spend_ledger: Any = None,
) -> list[ExecutionResult]:
    """Run every planned execution not finished yet; returns the new results (in completion order).

    Ctrl-C stops scheduling, lets running trials clean up their sandboxes, then re-raises. Reaching the
    spend cap stops scheduling too: running trials finish (or stop at the cap, unstored), then
    SpendCapReached is raised so the caller can tell the user to resume with a higher cap.
    """
    store.clean_partials()
    finished = store.finished_keys()
    todo = [item for item in plan if item.key not in finished]
    results: list[ExecutionResult] = []
    stop = threading.Event()
    cap_reached: SpendCapReached | None = None
    api_base_for = api_base_for or (lambda _item: None)
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="trial") as pool:
        pending: set[Future[ExecutionResult]] = set()
        queue = iter(todo)
        try:
            while True:
                while not stop.is_set() and len(pending) < max(1, concurrency):
                    item = next(queue, None)
                    if item is None:
                        break
                    pending.add(pool.submit(_run_one, item, store, run_id, backend, backend_name, api_base_for,
                                             allow_incompatible, spend_ledger))
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
                    results.append(result)
                    if on_result:
                        on_result(result)
        except KeyboardInterrupt:
            stop.set()
            for fut in pending:
                fut.cancel()
            raise
    if cap_reached is not None:
        raise cap_reached
    return results
