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
import io
import json
import logging
import os
import shutil
import tarfile
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from matchmeter.errors import InfraError, SpendCapReached, UserError
from matchmeter.llm.protocols import RunLedger
from matchmeter.llm.spend import SpendLedger
from matchmeter.runner.executor import (
    ApiBaseFor,
    Cancelled,
    OnResult,
    PlannedExecution,
    TrialShared,
    atif_of,
    attempt_trial,
    run_gateway,
)
from matchmeter.runner.sandbox import SandboxBackend, check_environments, get_backend
from matchmeter.runner.store import RunStore
from matchmeter.runner.trial import CancelScope
from matchmeter.schema import ExecutionResult, TaskSpec

# Ray retries a task whose worker or node died this many times; then the driver resubmits it itself
# (a node loss can outlast Ray's retries while the cluster notices the node is gone).
RAY_TASK_RETRIES = 3
DRIVER_RESUBMITS = 2
MIB = 1 << 20
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
    nodes: dict[str, int] = field(default_factory=dict)  # node id -> trials it returned


# ------------------------------------------------------------------ driver


def execute_plan(
    plan: list[PlannedExecution],
    store: RunStore,
    run_id: str,
    backend: SandboxBackend,
    concurrency: int = 1,
    api_base_for: ApiBaseFor | None = None,
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
    with connected(address):
        cpus = _check_placement([item.task for item in todo], backend, address)
        bank = _spend_bank(spend_ledger)
        tasks = {item.task.digest: item.task for item in todo}
        task_refs = {digest: ray.put(_pack_dir(Path(task.path))) for digest, task in tasks.items()}
        engine = {digest: backend.needs_engine_for(task) for digest, task in tasks.items()}
        api_base = api_base_for or (lambda _item: None)
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
            ).remote(item, task_refs[item.task.digest], run_id, plan_id, backend_name, aliases, api_base(item),
                     allow_incompatible, bank)

        try:
            return _drive(todo, submit, window, store, on_result, stats)
        finally:
            if bank is not None:
                ray.kill(bank)


def preflight_cluster(address: str | None, backend: SandboxBackend, tasks: list[TaskSpec]) -> None:
    """Before a run directory is written: the cluster answers, and some live node can place every task."""
    with connected(address):
        _check_placement(tasks, backend, address)


@contextlib.contextmanager
def connected(address: str | None) -> Iterator[None]:
    """Join the cluster for this block (or use the connection this process already has: a caller running
    plans from several threads, as parallel optimize does, connects once around all of them).

    Ray Client (`ray://`) is refused: under it the driver's Ray calls run in a proxy on the head node, so the
    spend actor would be pinned to the head and write spend.json on the head's disk, the sim stub on this
    machine's loopback is out of the workers' reach, every result and log crosses the client's one gRPC
    channel, and the job dies when that channel is down for Ray's reconnect grace period (30 s). The
    driver belongs on a node of the cluster (docs/ray.md)."""
    target = address or os.environ.get("RAY_ADDRESS") or "auto"
    if target.startswith(RAY_CLIENT_PREFIX):
        raise UserError(f"Ray Client addresses are not supported: {target}",
                        "--ray-address" if address else "RAY_ADDRESS",
                        "run matchmeter on a node of the cluster with --ray-address HEAD:6379 (the GCS port), or"
                        " from elsewhere wrap it in `ray job submit --address http://HEAD:8265 -- matchmeter ...`")
    if ray.is_initialized():
        yield
        return
    with environ_restored():
        try:
            ray.init(address=target, logging_level=logging.ERROR, log_to_driver=False, configure_logging=False)
        except ConnectionError as exc:
            raise UserError(f"cannot reach a Ray cluster: {str(exc).splitlines()[0]}", address or "RAY_ADDRESS",
                            "start one (`ray start --head`, see docs/ray.md) or pass --ray-address HOST:PORT"
                            ) from None
        try:
            yield
        finally:
            ray.shutdown()


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


def _check_placement(tasks: list[TaskSpec], backend: SandboxBackend, address: str | None) -> float:
    """Refuse before anything runs: no node offers the backend, none fits a task's CPU/memory, or none of
    those that fit has the Docker engine the task's image needs (the backend's `needs_engine_for`, its
    --base-alias map applied). Returns the CPUs of the nodes offering it."""
    backend_name = backend.name
    resource = backend_resource(backend_name)
    nodes = [n for n in ray.nodes() if n.get("Alive")]  # type: ignore[no-untyped-call]  # ray leaves nodes() unannotated
    offering = [n["Resources"] for n in nodes if n["Resources"].get(resource, 0) >= 1]
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


def _drive(todo: list[PlannedExecution], submit: Any, window: int, store: RunStore,
           on_result: OnResult | None, stats: RayStats) -> list[ExecutionResult]:
    """Keep `window` trials in flight, commit each returned one once, resubmit ones lost with their node."""
    queue = list(reversed(todo))
    in_flight: dict[Any, tuple[PlannedExecution, int]] = {}
    results: list[ExecutionResult] = []
    committed: set[str] = set()
    lost: list[str] = []
    cap: str | None = None
    refused: str | None = None
    try:
        while queue or in_flight:
            while queue and cap is None and refused is None and len(in_flight) < window:
                item = queue.pop()
                in_flight[submit(item)] = (item, 0)
            if not in_flight:
                break
            ready, _ = ray.wait(list(in_flight), num_returns=1)
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
                aliases: dict[str, str], api_base: str | None, allow_incompatible: bool, bank: Any) -> dict[str, Any]:
    """One planned execution on this node; a dict of plain values back to the driver."""
    node = ray.get_runtime_context().get_node_id()
    item = _with_local_task(item, task_tar)
    try:
        backend = _node_backend(backend_name, aliases)
        _check_environment(backend, item.task, aliases)
    except UserError as exc:
        return {"kind": "refused", "message": f"node {node[:12]}: {exc}"}
    ledger = _RemoteLedger(bank) if bank is not None else None
    gateway = _worker_gateway(plan_id, item, ledger)
    shared = TrialShared(None, run_id, backend, lambda _item: api_base, allow_incompatible, ledger, CancelScope(),
                         gateway)
    stage_root = Path(tempfile.mkdtemp(prefix="mm-ray-"))
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
                "atif": json.dumps(atif_of(item, outcome), default=str), "logs": _pack_dir(staging / "logs")}
    finally:
        shutil.rmtree(stage_root, ignore_errors=True)


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


def _pack_dir(root: Path) -> bytes:
    """A gzipped tar of a directory (symlinks followed: a task may link shared files)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", dereference=True) as tar:
        if root.exists():
            for child in sorted(root.iterdir()):
                tar.add(child, arcname=child.name)
    return buf.getvalue()


def _unpack(data: bytes, target: Path) -> None:
    """Extract with the `data` filter: no absolute paths, no escapes, no devices (worker output is untrusted)."""
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(target, filter="data")
