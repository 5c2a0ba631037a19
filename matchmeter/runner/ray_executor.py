"""Run an execution plan on a Ray cluster: trials on worker nodes, the run store on the driver alone.

Imported only for `--executor ray` (the `matchmeter[ray]` extra); `--help` and local runs never load ray.

Driver (this process, on a node of the cluster; Ray Client `ray://` addresses are refused, see `connected`):
  - refuses the plan at placement time when no live node offers the backend (custom resource
    `backend_<name>`, declared by `ray start --resources`), none is big enough for a task's CPU/memory,
    or (bwrap) a task runs in an image built from its Dockerfile and no such node declares `docker_engine`;
  - sends the run's `--base-alias` map with every trial: each node builds the task image with it exactly
    as the local path does (same rewritten FROM, same image key);
  - ships each task directory once into the object store (nodes cache it by task digest);
  - submits one Ray task per planned execution, requesting the task's `environment.cpus` and
    `environment.memory_mb` plus one unit of `backend_<name>`, so Ray never places more trials on a node
    than its declared cores and memory hold;
  - commits each returned execution into the run store (same staging → rename as the local pool), once
    per key: a trial whose node died is retried by Ray (then resubmitted by us) and only its one returned
    result is stored. A driver killed with -9 takes its job's tasks with it; `--resume` reruns what is
    not stored, like the local pool.
  - holds the run's spend cap: a `_SpendBank` actor pinned to the driver's node owns the run's
    `SpendLedger` (spend.json, resumable); every node's gateway checks and charges through it.

Worker (a Ray task): prepares what the trial needs on its node (task files from the object store into a
digest-keyed cache; the backend's rootfs/image and CLI installs through the backend's own caches, checked
once per worker process by `preflight`), runs the trial exactly as the local pool does (executor.
attempt_trial, infra retries included) in a node-local staging dir with a model gateway of its worker
process, and returns result, trajectories and logs (a tar of the staging `logs/`) to the driver.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import io
import json
import logging
import os
import secrets
import shutil
import socket
import tarfile
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from matchmeter.errors import InfraError, SpendCapReached, UserError
from matchmeter.llm.protocols import RunLedger
from matchmeter.llm.spend import SpendLedger
from matchmeter.runner.executor import (
    Cancelled,
    EndpointFor,
    OnResult,
    PlannedExecution,
    TrialShared,
    atif_of,
    attempt_trial,
    configured_endpoint,
    run_gateway,
)
from matchmeter.runner.ray_leftovers import Registry, staging_prefix
from matchmeter.runner.sandbox import SandboxBackend, check_environments, get_backend
from matchmeter.runner.store import RunStore
from matchmeter.runner.trial import CancelScope, TrialOutcome, new_outcome
from matchmeter.schema import ExecutionResult, ModelEndpoint, TaskSpec
from matchmeter.tasks.loader import check_regular_tree

# Ray retries a task whose worker or node died this many times; then the driver resubmits it itself
# (a node loss can outlast Ray's retries while the cluster notices the node is gone).
RAY_TASK_RETRIES = 3
DRIVER_RESUBMITS = 2
MIB = 1 << 20
# The driver polls its in-flight trials this often; with none returning and no live node able to place them
# for STALL_S (MATCHMETER_RAY_STALL_S), they are stored as infrastructure failures (see Stall).
POLL_S = 1.0
STALL_S = 60.0
# The custom resource a node declares when a Docker engine answers there: bwrap builds a task image (its
# Dockerfile does more than FROM the base, or FROM an alias of another image) and runs in its export.
ENGINE_RESOURCE = "docker_engine"
RAY_CLIENT_PREFIX = "ray://"


def backend_resource(backend_name: str) -> str:
    """The custom resource a node declares to run trials in a backend (`ray start --resources`)."""
    return f"backend_{backend_name}"


@dataclass
class RayStats:
    """What the driver measured (benchmarks/ray_throughput.py): commit time and transfer size per trial."""

    committed: int = 0
    commit_s: float = 0.0
    payload_bytes: int = 0
    resubmitted: int = 0
    stalled: int = 0  # executions stored as infrastructure failures: no live node could run them
    nodes: dict[str, int] = field(default_factory=dict)  # node id -> trials it returned
    connect_s: float = 0.0  # joining the cluster and checking placement, before anything is submitted
    ship_s: float = 0.0  # putting the task files into Ray's object store


# ------------------------------------------------------------------ driver


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
    address: str | None = None,
    stats: RayStats | None = None,
) -> list[ExecutionResult]:
    """runner.executor.execute_plan's contract on a Ray cluster (see the module docstring); `address` is the
    cluster's HOST:PORT (None: $RAY_ADDRESS, else this node's cluster)."""
    stats = stats if stats is not None else RayStats()
    backend_name = backend.name
    aliases = dict(backend.base_aliases)  # --base-alias, for every node
    store.clean_partials({item.key for item in plan})
    finished = store.finished_keys()
    todo = [item for item in plan if item.key not in finished]
    if not todo:
        return []
    began = time.perf_counter()
    with connected(address, backend):
        cpus = _check_placement([item.task for item in todo], backend, address)
        bank = _spend_bank(spend_ledger)
        stats.connect_s = time.perf_counter() - began
        tasks = {item.task.digest: item.task for item in todo}
        task_refs = {digest: ray.put(_pack_task(Path(task.path))) for digest, task in tasks.items()}
        stats.ship_s = time.perf_counter() - began - stats.connect_s
        engine = {digest: backend.needs_engine_for(task) for digest, task in tasks.items()}
        endpoint = endpoint_for or configured_endpoint
        resource = backend_resource(backend_name)
        # Enough queued work that every node stays busy; Ray's resource check decides what runs where.
        window = max(concurrency, 2 * int(cpus), 1)
        plan_id = uuid.uuid4().hex  # a worker's gateway serves one plan: its ledger is this plan's spend actor

        def submit(item: PlannedExecution) -> Any:
            env = item.task.environment
            resources = {resource: 1, **({ENGINE_RESOURCE: 1} if engine[item.task.digest] else {})}
            return _trial_task.options(
                num_cpus=env.cpus, memory=env.memory_mb * MIB, resources=resources,
                max_retries=RAY_TASK_RETRIES, retry_exceptions=False, name=f"trial-{item.task.id}-{item.key[:8]}",
            ).remote(item, task_refs[item.task.digest], run_id, plan_id, backend_name, aliases, endpoint(item),
                     allow_incompatible, bank)

        def lose(item: PlannedExecution, reason: str) -> ExecutionResult:
            return _store_unrun(store, item, run_id, backend_name, reason)

        try:
            return _drive(todo, submit, window, store, on_result, stats,
                          Stall(stall_seconds(), lambda items: _placeable(items, resource, engine), lose))
        finally:
            if bank is not None:
                ray.kill(bank)


def preflight_cluster(address: str | None, backend: SandboxBackend, tasks: list[TaskSpec]) -> None:
    """Before a run directory is written: the cluster answers, and some live node can place every task."""
    with connected(address, backend):
        _check_placement(tasks, backend, address)


@contextlib.contextmanager
def connected(address: str | None, backend: SandboxBackend | None = None) -> Iterator[None]:
    """Join the cluster for this block (or use the connection this process already has: a caller running
    plans from several threads, as parallel optimize does, connects once around all of them).

    No address and no RAY_ADDRESS: the cluster running on this node, else (Ray's own convention) a local
    instance started here whose node offers `backend` (start_local_cluster); it stops when this process ends.
    An explicit HOST:PORT that nothing answers on is one line within PROBE_S, before Ray tries for minutes.

    Ray Client (`ray://`) is refused: under it the driver's Ray calls run in a proxy on the head node, so the
    spend actor would be pinned to the head and write spend.json on the head's disk, the sim stub on this
    machine's loopback is out of the workers' reach, every result and log crosses the client's one gRPC
    channel, and the job dies when that channel is down for Ray's reconnect grace period (30 s). The
    driver belongs on a node of the cluster (docs/ray.md)."""
    target = address or os.environ.get("RAY_ADDRESS")
    where = "--ray-address" if address else "RAY_ADDRESS"
    if target and target.startswith(RAY_CLIENT_PREFIX):
        raise UserError(f"Ray Client addresses are not supported: {target}", where,
                        "run matchmeter on a node of the cluster with --ray-address HEAD:6379 (the GCS port), or"
                        " from elsewhere wrap it in `ray job submit --address http://HEAD:8265 -- matchmeter ...`")
    if ray.is_initialized():
        yield
        return
    with environ_restored():
        if target and target != "auto":
            _probe_address(target, where)
        try:
            ray.init(address=target or "auto", **_QUIET)
            _driver_messages_to_file()
        except ConnectionError as exc:
            if target:
                raise UserError(f"cannot reach a Ray cluster: {str(exc).splitlines()[0]}", where,
                                "start one (`ray start --head`, see docs/ray.md) or pass --ray-address HOST:PORT"
                                ) from None
            start_local_cluster(backend)
            yield  # the local instance outlives the block: the next plan of this process reuses it
            return
        try:
            yield
        finally:
            ray.shutdown()


# Ray's own messages stay out of the terminal (docs/ray.md: its logs are under its session dir).
_QUIET: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False, "configure_logging": False}
PROBE_S = 5.0


DRIVER_MESSAGES = "matchmeter-driver-messages.log"


def _driver_messages_to_file() -> None:
    """Ray's driver prints what the raylets publish (a task retried, a node marked dead) straight to this
    process's stdout, whatever `log_to_driver` says; those lines go to the session's logs dir instead
    (DRIVER_MESSAGES), so the terminal holds matchmeter's own lines only."""
    from ray._private import worker as ray_worker

    try:
        logs = Path(ray_worker._global_node.get_logs_dir_path())  # type: ignore[attr-defined]  # set by ray.init
    except Exception:  # noqa: BLE001 - no node object: keep them beside Ray's other files
        logs = Path(tempfile.gettempdir())

    def to_file(data: dict[str, Any], ignore_prefix: bool = False) -> None:
        with contextlib.suppress(OSError), open(logs / DRIVER_MESSAGES, "a", encoding="utf-8") as sink:
            sink.writelines(f"({data.get('pid', 'ray')}) {line}\n" for line in data.get("lines", []))

    ray_worker.print_to_stdstream = to_file  # the module global listen_error_messages calls


def _probe_address(target: str, where: str) -> None:
    """A TCP connection to the GCS port, or one line: ray.init would retry an unanswered address for minutes."""
    host, _, port = target.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=PROBE_S):
            return
    except ValueError:
        raise UserError(f"Ray address {target!r} is not HOST:PORT", where, "pass the head's GCS address, e.g. HEAD:6379"
                        ) from None
    except OSError as exc:
        reason = "no answer within 5 s" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise UserError(f"cannot reach a Ray cluster at {target}: {reason}", where,
                        "start one (`ray start --head`, see docs/ray.md), check the address, or leave the address out"
                        " to run on a local Ray instance") from None


def node_resources(backend: SandboxBackend) -> dict[str, float]:
    """The custom resources a node running `backend` here declares: the backend, and the Docker engine when
    one answers (a bwrap trial whose task image must be built needs it). The figure is a capacity, not a count:
    Ray's CPU and memory requests decide how many trials fit."""
    resources = {backend_resource(backend.name): 1000.0}
    if backend.builds_images():
        resources[ENGINE_RESOURCE] = 1000.0
    return resources


def start_local_cluster(backend: SandboxBackend | None) -> None:
    """A Ray instance on this machine only (its processes are children of this one, stopped at exit), whose
    node offers `backend` (preflighted by the caller) with every core.

    With token authentication (Ray's default for a new local instance: its ports listen on every interface)
    on a random token handed to its processes in the environment: left to itself Ray would write the token
    to ~/.ray/auth_token, and once that file exists every later `ray start --head` on the machine turns
    token auth on, which drivers joining by address (and the test clusters) do not send."""
    resources = node_resources(backend) if backend is not None else {}
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))  # environ_restored undoes it
    # The failed `auto` attempt already read the mode into Ray's config and token cache: read them again (what
    # Ray's own token setup does after changing the variable).
    from ray._raylet import AuthenticationTokenLoader, Config  # type: ignore[attr-defined]  # compiled, no stubs

    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()
    ray.init(resources=resources, include_dashboard=False, num_cpus=os.cpu_count() or 1, **_QUIET)
    _driver_messages_to_file()
    atexit.register(ray.shutdown)


@contextlib.contextmanager
def environ_restored() -> Iterator[None]:
    """This process's environment as it was before the block, once the block ends.

    `ray.init` writes RAY_CLIENT_MODE, RAY_AUTH_MODE, RAY_USAGE_STATS_ENABLED and PYTHONBREAKPOINT (pointing
    at Ray's remote debugger) into os.environ, and `ray.shutdown` leaves them there, so every process started
    after the Ray run (a later local run's sandboxes and agent CLIs in the same process) would inherit them.
    Key by key rather than clear-and-refill: another thread may be reading the environment meanwhile."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        for key in [k for k in os.environ if k not in saved]:
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value


def _alive_node_resources() -> list[dict[str, float]]:
    """What each live node of the cluster declares (CPU, memory, backend_<name>, docker_engine...)."""
    return [n["Resources"] for n in ray.nodes() if n.get("Alive")]  # type: ignore[no-untyped-call]  # ray leaves nodes() unannotated


def _check_placement(tasks: list[TaskSpec], backend: SandboxBackend, address: str | None) -> float:
    """Refuse before anything runs: no node offers the backend, none fits a task's CPU/memory, or none of
    those that fit has the Docker engine the task's image needs (the backend's `needs_engine_for`, its
    --base-alias map applied). Returns the CPUs of the nodes offering it."""
    backend_name = backend.name
    resource = backend_resource(backend_name)
    offering = [r for r in _alive_node_resources() if r.get(resource, 0) >= 1]
    where = address or "the Ray cluster"
    if not offering:
        raise UserError(f"no live Ray node offers the {backend_name!r} sandbox backend (resource {resource!r})", where,
                        f"start worker nodes that have {backend_name} with --resources '{{\"{resource}\": 1000}}'"
                        " (docs/ray.md)")
    for task in {task.id: task for task in tasks}.values():
        env = task.environment
        fit = [r for r in offering if r.get("CPU", 0) >= env.cpus and r.get("memory", 0) >= env.memory_mb * MIB]
        if not fit:
            raise UserError(f"task {task.id} needs {env.cpus:g} CPUs and {env.memory_mb} MB, and no Ray node with"
                            f" the {backend_name!r} backend has that much", where,
                            "add a bigger worker node, or run that task with the local executor")
        if backend.needs_engine_for(task) and not any(r.get(ENGINE_RESOURCE, 0) >= 1 for r in fit):
            raise UserError(f"task {task.id} runs in an image built from its Dockerfile, and no Ray node with the"
                            f" {backend_name!r} backend and {env.cpus:g} CPUs / {env.memory_mb} MB declares a Docker"
                            f" engine (resource {ENGINE_RESOURCE!r})", where,
                            f"start a worker where docker answers with --resources '{{\"{backend_resource(backend_name)}"
                            f"\": 1000, \"{ENGINE_RESOURCE}\": 1000}}' (docs/ray.md), or use --executor local")
    return float(sum(r.get("CPU", 0) for r in offering))


@dataclass
class Stall:
    """When no live node can place any trial still waiting for `seconds`, those trials (and the queued ones)
    are stored as infrastructure failures with the reason, instead of the driver waiting for a node forever."""

    seconds: float
    placeable: Callable[[list[PlannedExecution]], bool]  # some live node can place one of these items
    lose: Callable[[PlannedExecution, str], ExecutionResult]  # stores an execution that did not run, with the reason


def stall_seconds() -> float:
    """MATCHMETER_RAY_STALL_S (default STALL_S): how long the driver waits with no node able to place a trial."""
    raw = os.environ.get("MATCHMETER_RAY_STALL_S", "")
    try:
        return float(raw) if raw else STALL_S
    except ValueError:
        raise UserError(f"MATCHMETER_RAY_STALL_S={raw!r} is not a number of seconds", "the environment",
                        f"unset it (default {STALL_S:g} s) or give seconds, e.g. 120") from None


def _placeable(items: list[PlannedExecution], resource: str, engine: dict[str, bool]) -> bool:
    """Some live node could place one of these trials: it offers the backend (and an engine when the task's
    image must be built) and has the CPUs and memory the task asks for, busy or not."""
    nodes = _alive_node_resources()
    for item in items:
        env = item.task.environment
        needs = {resource: 1.0, "CPU": env.cpus, "memory": env.memory_mb * MIB,
                 **({ENGINE_RESOURCE: 1.0} if engine[item.task.digest] else {})}
        if any(all(r.get(k, 0) >= v for k, v in needs.items()) for r in nodes):
            return True
    return False


def _drive(todo: list[PlannedExecution], submit: Any, window: int, store: RunStore,
           on_result: OnResult | None, stats: RayStats, stall: Stall) -> list[ExecutionResult]:
    """Keep `window` trials in flight, commit each returned one once, resubmit ones lost with their node;
    store what no node can run any more (`stall`) as infrastructure failures."""
    queue = list(reversed(todo))
    in_flight: dict[Any, tuple[PlannedExecution, int]] = {}
    results: list[ExecutionResult] = []
    committed: set[str] = set()
    lost: list[str] = []
    cap: str | None = None
    refused: str | None = None
    placeable_at = time.monotonic()
    try:
        while queue or in_flight:
            while queue and cap is None and refused is None and len(in_flight) < window:
                item = queue.pop()
                in_flight[submit(item)] = (item, 0)
            if not in_flight:
                break
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=POLL_S)
            if not ready:
                now = time.monotonic()
                if stall.placeable([item for item, _ in in_flight.values()]):
                    placeable_at = now
                elif now - placeable_at >= stall.seconds:
                    reason = (f"no live Ray node could run this trial for {stall.seconds:g} s (the nodes offering"
                              " the backend were lost); resume with --resume --retry-failed infra_error once one"
                              " is back")
                    for ref in in_flight:
                        ray.cancel(ref, force=True)
                    waiting = [item for item, _ in in_flight.values()] + list(reversed(queue))
                    in_flight.clear()
                    queue.clear()
                    for item in waiting:
                        result = stall.lose(item, reason)
                        stats.stalled += 1
                        results.append(result)
                        if on_result:
                            on_result(result)
                continue
            for ref in ready:
                item, tries = in_flight.pop(ref)
                try:
                    reply = ray.get(ref)
                except ray.exceptions.RayTaskError:
                    raise  # a bug in the worker code, not a lost node: let it show
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                        ray.exceptions.ObjectLostError, ray.exceptions.OwnerDiedError,
                        ray.exceptions.RaySystemError) as exc:
                    if tries < DRIVER_RESUBMITS and cap is None and refused is None:
                        stats.resubmitted += 1
                        in_flight[submit(item)] = (item, tries + 1)
                    else:
                        lost.append(f"{item.key} ({type(exc).__name__})")
                    continue
                kind = reply["kind"]
                if kind == "cap":
                    cap = cap or reply["message"]
                elif kind == "refused":
                    refused = refused or reply["message"]
                elif kind == "ok" and item.key not in committed:
                    result = _commit(store, item, reply, stats)
                    committed.add(item.key)
                    results.append(result)
                    if on_result:
                        on_result(result)
    except KeyboardInterrupt:
        for ref in in_flight:
            ray.cancel(ref, force=True)  # the worker process dies; bwrap sandboxes die with it
        raise
    if refused is not None:
        raise UserError(f"a Ray node could not run trials: {refused}", "the Ray cluster",
                        "fix that node's sandbox backend (or stop it), then resume with --resume")
    if cap is not None:
        raise SpendCapReached(cap)
    if stats.stalled:
        raise InfraError(f"{stats.stalled} execution(s) could not run: no live Ray node could place them for"
                         f" {stall.seconds:g} s (the nodes offering the backend were lost); they are stored as"
                         " infra_error: once a node is back, resume with --resume --retry-failed infra_error")
    if lost:
        raise InfraError(f"{len(lost)} execution(s) were lost with their Ray nodes after"
                         f" {RAY_TASK_RETRIES} retries and {DRIVER_RESUBMITS} resubmits (first: {lost[0]});"
                         " nothing of them is stored: resume with --resume")
    return results


def _commit(store: RunStore, item: PlannedExecution, reply: dict[str, Any], stats: RayStats) -> ExecutionResult:
    started = time.perf_counter()
    staging = store.staging_dir(item.key)
    _unpack(reply["logs"], staging / "logs")
    result = ExecutionResult.model_validate_json(reply["result"])
    store.commit(staging, result, reply["trajectory"], json.loads(reply["atif"]))
    stats.commit_s += time.perf_counter() - started
    stats.committed += 1
    stats.payload_bytes += sum(len(reply[k]) for k in ("result", "trajectory", "atif", "logs"))
    stats.nodes[reply["node"]] = stats.nodes.get(reply["node"], 0) + 1
    return result


def _store_unrun(store: RunStore, item: PlannedExecution, run_id: str, backend_name: str,
                 reason: str) -> ExecutionResult:
    """Store an execution that never ran as an infrastructure failure (resumed by --retry-failed infra_error)."""
    result, trajectory = new_outcome(item.key, run_id, item.configuration, item.task, item.description, item.seed,
                                     item.attempt, backend_name)
    result.failure_mode, result.error, result.reward = "infra_error", reason, 0.0
    store.commit(store.staging_dir(item.key), result, trajectory.model_dump_json(indent=2),
                 atif_of(item, TrialOutcome(result, trajectory)))
    return result


def _spend_bank(ledger: RunLedger | None) -> Any:
    """The run's spend cap, served from the driver's node by one actor over the same spend.json."""
    if ledger is None:
        return None
    node = ray.get_runtime_context().get_node_id()
    return _SpendBank.options(  # type: ignore[attr-defined]  # @ray.remote adds options() at run time
        num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False),
    ).remote(str(getattr(ledger, "path", "") or ""), getattr(ledger, "cap_usd", None),
             float(getattr(ledger, "spent_usd", 0.0)))


@ray.remote
class _SpendBank:
    """Answers every node's check/charge from one SpendLedger (file-backed: a resumed run keeps its total)."""

    def __init__(self, path: str, cap_usd: float | None, spent_usd: float) -> None:
        self.ledger = SpendLedger(Path(path) if path else None, cap_usd)
        if not path:
            self.ledger.spent_usd = spent_usd

    def check(self) -> str | None:
        try:
            self.ledger.check()
        except SpendCapReached as exc:
            return str(exc)
        return None

    def charge(self, usd: float | None) -> None:
        self.ledger.charge(usd)

    def totals(self) -> tuple[float, int]:
        return self.ledger.spent_usd, self.ledger.unpriced_calls


# ------------------------------------------------------------------ worker


class _RemoteLedger:
    """A worker's view of the driver's spend cap (RunLedger): one round trip per model call."""

    def __init__(self, bank: Any) -> None:
        self.bank = bank

    def check(self) -> None:
        message = ray.get(self.bank.check.remote())
        if message:
            raise SpendCapReached(message)

    def charge(self, usd: float | None) -> None:
        ray.get(self.bank.charge.remote(usd))

    @property
    def spent_usd(self) -> float:
        return float(ray.get(self.bank.totals.remote())[0])

    @property
    def unpriced_calls(self) -> int:
        return int(ray.get(self.bank.totals.remote())[1])


# Per worker process: backends preflighted here, the gateway of the run this process serves.
_BACKENDS: dict[str, SandboxBackend] = {}
_CHECKED: set[str] = set()
_GATEWAY: dict[str, Any] = {}


@ray.remote
def _trial_task(item: PlannedExecution, task_tar: bytes, run_id: str, plan_id: str, backend_name: str,
                aliases: dict[str, str], endpoint: ModelEndpoint, allow_incompatible: bool, bank: Any) -> dict[str, Any]:
    """One planned execution on this node; a dict of plain values back to the driver."""
    node = ray.get_runtime_context().get_node_id()
    item = _with_local_task(item, task_tar)
    try:
        backend = _node_backend(backend_name, aliases)
        _check_environment(backend, item.task, aliases)
    except UserError as exc:
        return {"kind": "refused", "message": f"node {node[:12]}: {exc}"}
    _prune_dead_workers()
    _registry().record(run_id, backend_name)  # before any sandbox of this run exists here
    ledger = _RemoteLedger(bank) if bank is not None else None
    gateway = _worker_gateway(plan_id, item, ledger)
    shared = TrialShared(None, run_id, backend, lambda _item: endpoint, allow_incompatible, CancelScope(), gateway)
    stage_root = Path(tempfile.mkdtemp(prefix=staging_prefix()))
    try:
        counter = iter(range(1 << 30))

        def new_staging() -> Path:
            path = stage_root / str(next(counter))
            (path / "logs").mkdir(parents=True)
            return path

        try:
            outcome, staging = attempt_trial(item, shared, new_staging)
        except SpendCapReached as exc:
            return {"kind": "cap", "message": str(exc)}
        except Cancelled:
            return {"kind": "cancelled"}
        return {"kind": "ok", "node": node, "result": outcome.result.model_dump_json(indent=2),
                "trajectory": outcome.trajectory.model_dump_json(indent=2),
                "atif": json.dumps(atif_of(item, outcome), default=str), "logs": _pack_regular(staging / "logs")}
    finally:
        shutil.rmtree(stage_root, ignore_errors=True)


@functools.cache
def _prune_dead_workers() -> None:
    """Once per worker process, before its first trial: what killed workers left on this node (ray_leftovers)."""
    _registry().prune_dead(lambda label, backend: get_backend(backend).prune(label))


def _registry() -> Registry:
    return Registry(_node_cache().parent / "ray-workers")


def _node_backend(name: str, aliases: dict[str, str]) -> SandboxBackend:
    """The backend with the run's --base-alias map, preflighted once per worker process (builds or finds the
    node's rootfs/image)."""
    key = f"{name}|{json.dumps(aliases, sort_keys=True)}"
    if key not in _BACKENDS:
        backend = get_backend(name, aliases)
        backend.preflight()
        _BACKENDS[key] = backend
    return _BACKENDS[key]


def _check_environment(backend: SandboxBackend, task: TaskSpec, aliases: dict[str, str]) -> None:
    """The local path's environment preflight, on this node, once per task and alias map per worker process:
    a FROM image (aliases applied) that this node's engine lacks is a refusal naming the node."""
    key = f"{task.digest}|{json.dumps(aliases, sort_keys=True)}"
    if key not in _CHECKED:
        check_environments(backend, [task])
        _CHECKED.add(key)


def _worker_gateway(plan_id: str, item: PlannedExecution, ledger: RunLedger | None) -> Any:
    """This worker process's model gateway for the plan (started at its first trial with a model; a resumed
    run is a new plan with a new spend actor, so its gateway is a new one)."""
    if not item.configuration.model:
        return None
    held = _GATEWAY.get("run")
    if held is not None and held[0] == plan_id:
        return held[1]
    if held is not None:  # this worker process now serves another plan: stop the old plan's gateway
        atexit.unregister(held[2].__exit__)
        held[2].__exit__(None, None, None)
    scope = run_gateway([item], ledger)
    gateway = scope.__enter__()
    _GATEWAY["run"] = (plan_id, gateway, scope)
    atexit.register(scope.__exit__, None, None, None)  # its socket dir goes when the worker process ends
    return gateway


def _node_cache() -> Path:
    base = os.environ.get("MATCHMETER_CACHE_DIR") or str(Path.home() / ".cache" / "matchmeter")
    return Path(base) / "ray-tasks"


def _with_local_task(item: PlannedExecution, task_tar: bytes) -> PlannedExecution:
    """The item with its task directory unpacked into this node's cache (once per task digest)."""
    target = _node_cache() / item.task.digest
    complete = target.parent / f"{item.task.digest}.complete"
    if not complete.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / f"{item.task.digest}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not complete.exists():
                shutil.rmtree(target, ignore_errors=True)
                _unpack(task_tar, target)
                complete.touch()
    task: TaskSpec = item.task.model_copy(update={"path": str(target)})
    return PlannedExecution(item.key, item.configuration, task, item.description, item.seed, item.attempt)


# ------------------------------------------------------------------ transfer


def _pack_task(root: Path) -> bytes:
    """A gzipped tar of a task directory. It holds no link (loader.check_regular_tree refused any at load); one
    made since is refused here too, never followed: a followed link would ship the driver's files to the nodes."""
    check_regular_tree(root)
    return _pack_regular(root)


def _pack_regular(root: Path) -> bytes:
    """A gzipped tar of the regular files and directories under root; links and special files are left out,
    never followed (a trial's logs on a worker came from the sandbox: a link there could name any file of
    the node)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        if root.exists():
            for child in sorted(root.iterdir()):
                tar.add(child, arcname=child.name, filter=_regular_only)
    return buf.getvalue()


def _regular_only(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    return info if info.isfile() or info.isdir() else None


def _unpack(data: bytes, target: Path) -> None:
    """Extract with the `data` filter: no absolute paths, no escapes, no devices (worker output is untrusted)."""
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(target, filter="data")
