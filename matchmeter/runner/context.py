"""How every command that executes trials opens its run directory: one path for `run`, `evaluate`,
`optimize`'s source side and `tasks check`.

    spec = RunSpec(out, backend, configurations, tasks, task_dirs, ...)
    checked = spec.preflight()            # backend, executor, agents, model endpoints: nothing stored yet
    with checked.open(bind) as ctx:       # writer lock, bind (manifest / resume check), prune leftovers,
        ctx.execute(items)                # sim stub and endpoints, spend ledger; progress bar per execute

`bind` is the command's own part: it checks or writes what the directory is bound to and returns the
run id. Leftovers (containers, temp workspaces, local processes) are pruned by that run id, under the
writer lock, so only what a killed earlier process of this same run left behind is touched.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from matchmeter.errors import UserError
from matchmeter.runner.agents import get_agent
from matchmeter.runner.agents.adapters import install_spec, preflight_install
from matchmeter.runner.endpoints import (
    announce_first_errors,
    check_sim_personas,
    model_endpoints,
    preflight_models,
)
from matchmeter.runner.sandbox import SandboxBackend, check_environments, get_backend
from matchmeter.runner.store import RunStore
from matchmeter.schema import Configuration, ExecutionResult, ModelEndpoint, TaskSpec

if TYPE_CHECKING:
    from matchmeter.llm.protocols import RunLedger
    from matchmeter.runner.executor import EndpointFor, OnResult, PlannedExecution


class ExecutePlan(Protocol):
    """What an executor is: runner.executor.execute_plan's signature."""

    def __call__(self, plan: list[PlannedExecution], store: RunStore, run_id: str, backend: SandboxBackend,
                 concurrency: int = 1, endpoint_for: EndpointFor | None = None, on_result: OnResult | None = None,
                 allow_incompatible: bool = False, spend_ledger: RunLedger | None = None) -> list[ExecutionResult]:
        ...


# Executors by name, imported lazily (like sandbox backends): another one is one line here.
EXECUTORS: dict[str, str] = {
    "local": "matchmeter.runner.executor:execute_plan",
    "ray": "matchmeter.runner.ray_executor:execute_plan",  # the optional `matchmeter[ray]` extra (docs/ray.md)
}


def get_executor(name: str) -> ExecutePlan:
    if name not in EXECUTORS:
        raise UserError(f"unknown executor {name!r}", "--executor", f"choose one of: {', '.join(sorted(EXECUTORS))}")
    module_name, _, attr = EXECUTORS[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "ray":
            raise
        raise UserError("--executor ray needs the ray package", "this Python environment",
                        "pip install 'matchmeter[ray]' here and on every node of the cluster (docs/ray.md)") from None
    execute: ExecutePlan = getattr(module, attr)
    return execute


@contextlib.contextmanager
def executor_session(name: str, ray_address: str | None = None) -> Iterator[None]:
    """One executor connection around several plans run from several threads (optimize's units side by
    side): on Ray, one cluster connection that every plan inside reuses; nothing for the local pool."""
    if name != "ray":
        yield
        return
    with importlib.import_module(get_executor(name).__module__).connected(ray_address):
        yield


def executor_options(spec: RunSpec) -> dict[str, str | None]:
    """What the chosen executor needs beyond the plan: the Ray cluster's address."""
    return {"address": spec.ray_address} if spec.executor == "ray" else {}


@dataclass(frozen=True)
class RunSpec:
    """What a command asks of the executions in one run directory (what it plans is its own)."""

    out: Path
    backend: str
    configurations: list[Configuration]
    tasks: list[TaskSpec]
    task_dirs: list[Path] = field(default_factory=list)  # where the sim stub finds tasks ([] = built-in suite)
    concurrency: int = 1
    progress: bool = False
    allow_incompatible: bool = False
    spend_cap_usd: float | None = None
    announce_errors: bool = True  # print the first error of each failure mode (run, evaluate)
    executor: str = "local"
    base_aliases: dict[str, str] = field(default_factory=dict)  # Dockerfile FROM → local image (--base-alias)
    ray_address: str | None = None  # with executor "ray": the cluster's HOST:PORT

    def preflight(self) -> Preflighted:
        """The backend, checked; the executor known; every agent instantiated once, its CLI fetched
        (adapters.preflight_install: a registry that cannot be reached is one line here) and every model
        endpoint called once, so unknown agents, bad options, unfetchable CLIs or unusable endpoints fail
        before anything is stored.
        On Ray the cluster is checked instead of this machine's backend: some live node must offer the
        backend and fit every task, with a Docker engine where a task's image is built (each node preflights
        its own backend and the task's FROM images, the --base-alias map applied)."""
        execute = get_executor(self.executor)
        backend = get_backend(self.backend, self.base_aliases)
        if self.executor == "ray":  # each node checks its own engine's images (aliases applied) at its first trial
            importlib.import_module(execute.__module__).preflight_cluster(self.ray_address, backend, self.tasks)
        else:
            backend.preflight()
            check_environments(backend, self.tasks)  # a FROM that is not local: one line, before anything is stored
        for configuration in self.configurations if self.tasks else []:
            get_agent(configuration, self.tasks[0])
            if self.executor != "ray":  # a Ray node fetches its CLIs itself, from where it runs
                # asked only of a configuration that installs a CLI: on bwrap it is a Docker engine probe
                preflight_install(configuration, install_spec(configuration) is not None and backend.builds_images())
        check_sim_personas(self.configurations)
        preflight_models(model_endpoints(self.configurations))
        return Preflighted(self, backend)


@dataclass(frozen=True)
class Preflighted:
    spec: RunSpec
    backend: SandboxBackend

    @contextlib.contextmanager
    def open(self, bind: Callable[[RunStore], str], stub_url: str | None = None) -> Iterator[RunContext]:
        """Claim the directory (one writer), bind it, prune this run's leftovers, start the sim stub when a
        configuration needs one (unless the caller serves sim models itself at `stub_url`)."""
        spec = self.spec
        store = RunStore(spec.out)
        store.claim()
        run_id = bind(store)
        self.backend.prune(run_id)  # what a kill -9 of an earlier process of this run left
        ledger = spend_ledger(store, spec.spend_cap_usd)
        with contextlib.ExitStack() as stack:
            if stub_url is None:
                stub_url = stack.enter_context(sim_environment(spec.configurations, spec.task_dirs, spec.tasks))
            yield RunContext(spec, self.backend, store, run_id, endpoint_resolver(stub_url), ledger)


@dataclass
class RunContext:
    """An opened run directory: execute plans into it."""

    spec: RunSpec
    backend: SandboxBackend
    store: RunStore
    run_id: str
    endpoint_for: EndpointFor
    spend_ledger: RunLedger | None

    @property
    def executor(self) -> str:
        return self.spec.executor

    def execute(self, items: list[PlannedExecution]) -> list[ExecutionResult]:
        """Run the unfinished items (progress bar when asked); the new results in completion order."""
        spec = self.spec
        finished = self.store.finished_keys()
        with progress_bar("executions", spec.progress, len(items), sum(i.key in finished for i in items)) as advance:
            on_result = _describe(advance) if spec.progress else None
            return get_executor(spec.executor)(
                items, self.store, self.run_id, self.backend, spec.concurrency, endpoint_for=self.endpoint_for,
                on_result=announce_first_errors(on_result) if spec.announce_errors else on_result,
                allow_incompatible=spec.allow_incompatible, spend_ledger=self.spend_ledger, **executor_options(spec))


def _describe(advance: Callable[[str], None]) -> Callable[[ExecutionResult], None]:
    def on_result(result: ExecutionResult) -> None:
        cost = "n/a" if result.cost.usd is None else f"${result.cost.usd:.4f}"
        advance(f"{result.task_id} r={result.reward:.2f} {cost}")

    return on_result


def price_table_id(prices: str | None = None) -> str:
    """Id of the dated price table every cost in a run is computed with (recorded in the manifest)."""
    from matchmeter.llm.pricing import PriceTable

    return PriceTable.load(overrides=prices).table_id


def price_table_digest(prices: str | None = None) -> str:
    from matchmeter.llm.pricing import PriceTable

    return PriceTable.load(overrides=prices).digest


def spend_ledger(store: RunStore, cap_usd: float | None) -> RunLedger | None:
    """The run's spend ledger (runs/<id>/spend.json): survives restarts, so a resumed run keeps its total."""
    if cap_usd is None:
        return None
    from matchmeter.llm.spend import SpendLedger

    return SpendLedger(store.root / "spend.json", cap_usd)


@contextlib.contextmanager
def sim_environment(configurations: list[Configuration], tasks_dirs: list[Path],
                    tasks: Sequence[TaskSpec] = ()) -> Iterator[str | None]:
    """Start the loopback stub server when any configuration uses a `sim/` model; yield its URL. It answers for
    the run's own loaded `tasks` and loads the directories (all of them, once) only for another id."""
    if not any(c.simulated for c in configurations):
        yield None
        return
    from matchmeter.llm.stub_server import serve_sim
    from matchmeter.tasks.loader import builtin_suite_dir

    with serve_sim(tasks_dirs or [builtin_suite_dir()], {t.id: t for t in tasks}) as url:
        yield url


def endpoint_resolver(stub_url: str | None) -> EndpointFor:
    """Each execution's endpoint: its configuration's, but a sim model's base URL is the stub server's path for
    the task and seed (/sim/<task>/<seed>/v1), which is how the stub knows what it is answering."""

    def endpoint_for(item: PlannedExecution) -> ModelEndpoint:
        endpoint = item.configuration.endpoint
        if stub_url and item.configuration.simulated:
            from matchmeter.llm.sim import sim_api_base

            return endpoint.model_copy(update={"api_base": sim_api_base(stub_url, item.task.id, item.seed)})
        return endpoint

    return endpoint_for


@contextlib.contextmanager
def progress_bar(title: str, enabled: bool, total: int, done: int) -> Iterator[Callable[[str], None]]:
    """A rich progress bar over `total` steps (`done` of them already finished); yields `advance(label)`."""
    if not enabled:
        yield lambda _label: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[last]}")) as bar:
        tid = bar.add_task(title, total=total, completed=done, last="")

        def advance(label: str) -> None:
            bar.update(tid, advance=1, last=label)

        yield advance
