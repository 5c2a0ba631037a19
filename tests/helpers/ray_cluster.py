"""A real local Ray cluster for tests and benchmarks: a head and N worker nodes as separate processes.

Loopback only, dashboard off, usage stats off, a small object store per node. The head declares no CPUs
(trials run on workers only); each worker declares its CPUs, memory and `backend_<name>`, plus
`docker_engine` when it is one of the first `engine_workers` (default: all; a Docker engine answers on
this machine). Every process
is stopped at exit by its pid: each node runs `ray start --block` in a session of its own (killed by
process group), and whatever else carries this cluster's unique temp dir on its command line is killed
by pid (never `ray stop`, which would stop every Ray process on a shared machine).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Ray on Linux replaces 127.0.0.1 (and "localhost") by the machine's external IP; any other loopback
# address is taken as given, so every node listens and advertises on 127.0.0.2 only.
LOOPBACK = "127.0.0.2"
RAY = str(Path(sys.executable).with_name("ray"))
OBJECT_STORE_BYTES = 100 * 1024 * 1024
# Notice a dead node within a few seconds (defaults take ~30 s); generous enough for a loaded machine.
HEALTH = {"RAY_health_check_initial_delay_ms": "1000", "RAY_health_check_period_ms": "1000",
          "RAY_health_check_timeout_ms": "2000", "RAY_health_check_failure_threshold": "5"}


NODE_PORTS = ("--object-manager-port", "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port",
              "--metrics-export-port", "--runtime-env-agent-port")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RayCluster:
    def __init__(self, workers: int = 2, worker_cpus: float = 1, worker_memory_mb: int | list[int] = 2048,
                 backend: str = "bwrap", connect: bool = True, engine_workers: int | None = None) -> None:
        self.workers, self.worker_cpus = workers, worker_cpus
        # one figure for every worker, or one per worker (declared to Ray, not enforced by it)
        self.worker_memory_mb = worker_memory_mb if isinstance(worker_memory_mb, list) else [worker_memory_mb] * workers
        self.engine_workers = workers if engine_workers is None else engine_workers
        self.backend, self.connect = backend, connect
        self.temp = Path(tempfile.mkdtemp(prefix="mmray-", dir="/tmp"))  # short: Ray's socket paths live here
        self.port = _free_port()
        self.address = f"{LOOPBACK}:{self.port}"
        self.head: subprocess.Popen[bytes] | None = None
        self.nodes: list[subprocess.Popen[bytes] | None] = []
        self.node_ports: list[int] = []
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("MATCHMETER_", "RAY_"))}
        # No token auth, whatever ~/.ray/auth_token holds: `ray start` turns it on when that file exists, and
        # drivers joining by address (this process, the CLI under test) do not send it.
        self.env.update(HEALTH, RAY_USAGE_STATS_ENABLED="0", PYTHONUNBUFFERED="1", RAY_AUTH_MODE="disabled")
        self.env["PATH"] = f"{Path(sys.executable).parent}:{self.env.get('PATH', '')}"
        self._environ = contextlib.ExitStack()

    def __enter__(self) -> RayCluster:
        if self.connect:  # this process joins the cluster: what ray.init writes into os.environ goes at stop()
            from matchmeter.runner.ray_executor import environ_restored

            self._environ.enter_context(environ_restored())
        try:
            self.head = self._start("head", [
                "--head", "--port", str(self.port), "--num-cpus", "0", "--include-dashboard", "false",
                "--temp-dir", str(self.temp)])
            self._wait_for_head()
            for index in range(self.workers):  # one at a time: a raylet gives up after 30 s on a busy machine
                self.nodes.append(None)
                self.node_ports.append(0)
                self._start_worker(index)
                self._wait_alive(index + 1)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.temp / f"{name}.log", "ab")  # noqa: SIM115 - the process owns it
        # Nodes sharing one address need their own ports (the defaults would collide).
        ports = [a for flag in NODE_PORTS for a in (flag, str(_free_port()))]
        return subprocess.Popen(
            [RAY, "start", "--block", "--node-ip-address", LOOPBACK, "--disable-usage-stats",
             "--object-store-memory", str(OBJECT_STORE_BYTES), *ports, *args],
            stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)

    def _start_worker(self, index: int) -> None:
        port = _free_port()
        self.node_ports[index] = port
        resources = {f"backend_{self.backend}": 1000, **({"docker_engine": 1000} if index < self.engine_workers else {})}
        self.nodes[index] = self._start(f"worker{index}-{port}", [
            "--address", self.address, "--num-cpus", str(self.worker_cpus),
            "--memory", str(self.worker_memory_mb[index] * 1024 * 1024), "--node-manager-port", str(port),
            "--resources", json.dumps(resources)])

    def _wait_for_head(self) -> None:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex((LOOPBACK, self.port)) == 0:
                    break
            assert self.head is not None
            if self.head.poll() is not None:
                raise RuntimeError(f"ray head exited: {(self.temp / 'head.log').read_text()[-2000:]}")
            time.sleep(0.2)
        if self.connect:  # the GCS answers before the head's raylet has registered: retry until it has
            import ray

            while True:
                try:
                    ray.init(address=self.address, logging_level="ERROR", log_to_driver=False,
                             configure_logging=False)
                    return
                except (ConnectionError, RuntimeError):
                    if ray.is_initialized():
                        ray.shutdown()
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(1)

    def _alive(self) -> list[dict]:  # type: ignore[type-arg]
        import ray

        return [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get(f"backend_{self.backend}")]

    def _wait_alive(self, count: int) -> None:
        if not self.connect:
            time.sleep(5)
            return
        deadline = time.monotonic() + 240
        restarts = 0
        while len(self._alive()) < count:
            for index, proc in enumerate(self.nodes):
                if proc is not None and proc.poll() is not None and restarts < 3:  # timed out starting: again
                    restarts += 1
                    self._start_worker(index)
            time.sleep(0.5)
            if time.monotonic() > deadline:
                tails = "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-1500:]}"
                                  for log in sorted(self.temp.glob("worker*.log")))
                raise RuntimeError(f"only {len(self._alive())} of {count} Ray workers came up:\n{tails}")

    def worker_node_ids(self) -> list[str]:
        """Node ids of the live workers, in the order they were started."""
        by_port = {n["NodeManagerPort"]: n["NodeID"] for n in self._alive()}
        return [by_port[p] for p in self.node_ports if p in by_port]

    def kill_worker(self, index: int) -> None:
        """SIGKILL a worker node: its raylet, object store and every worker process of it."""
        proc = self.nodes[index]
        if proc is not None:
            _kill_group(proc)
            self._kill_tagged(f"--node-manager-port={self.node_ports[index]}")
        self.nodes[index] = None

    def restart_worker(self, index: int) -> None:
        if self.nodes[index] is not None:
            return
        self._start_worker(index)
        self._wait_alive(sum(p is not None for p in self.nodes))

    def stop(self) -> None:
        if self.connect:
            import ray

            if ray.is_initialized():
                ray.shutdown()
        # Workers first: with the head still up they stop in about a second; with it gone first each waited
        # out its 20 s below (40 s per cluster). The head still takes ~30 s over SIGTERM, so it gets 3 s before
        # the SIGKILL every node got anyway once its wait ran out; _kill_tagged then ends any stray daemon.
        workers = [p for p in self.nodes if p is not None]
        for group, grace_s in ((workers, 20.0), ([self.head] if self.head is not None else [], 3.0)):
            for proc in group:  # `ray start --block` stops (and reaps) its node's processes on SIGTERM
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGTERM)
            for proc in group:
                try:
                    proc.wait(grace_s)
                except subprocess.TimeoutExpired:
                    pass
                _kill_group(proc)
        self._kill_tagged(str(self.temp))
        shutil.rmtree(self.temp, ignore_errors=True)
        self._environ.close()

    def _kill_tagged(self, tag: str) -> None:
        """Kill, by pid, every process of ours whose command line carries `tag` (a node's stray daemons)."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if tag in cmdline:
                with contextlib.suppress(OSError):
                    os.kill(int(entry.name), signal.SIGKILL)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
