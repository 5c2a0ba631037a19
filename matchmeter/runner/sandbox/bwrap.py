"""The bubblewrap backend (the default): namespaces without a daemon, host filesystem read-only.

create() starts one long-lived bwrap process (a holder bash under bwrap's own pid-1 reaper) that
owns the sandbox's mount, pid, net, ipc and uts namespaces. Every exec joins those namespaces with
`nsenter`, so a service one exec starts in the background is still there, on the same loopback, for
the next exec; destroy() kills the bwrap process, and with it pid 1 of the namespace and every process
in it. The holder blocks reading a pipe whose write end only the runner holds, so a runner killed
with SIGKILL takes its sandboxes with it (bwrap's --die-with-parent alone only covers bwrap's own
child, not the outer bwrap process). The root is a read-only tmpfs with each host top-level entry bind-mounted read-only, so only
/app, /tests, /logs (host temp dirs) and a fresh /tmp are writable. Execs drop every capability, so a
command cannot remount anything read-write.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.sandbox import ExecResult, SandboxCapabilities, SandboxRequest, policy

NSENTER_NAMESPACES = ("--mount", "--net", "--pid", "--ipc", "--uts")
# Mounted by bwrap itself or by us; never bind the host's copy of these. /run gets an empty tmpfs
# because it holds the host's daemon sockets: a read-only bind still lets a client connect to
# /run/docker.sock (measured: the sandbox could query the engine), which is a full escape.
OWN_MOUNTS = {"proc", "dev", "tmp", "run", "app", "tests", "logs"}
START_TIMEOUT_S = 10.0


def _root_binds() -> list[str]:
    """Read-only binds of the host's top-level entries (a ro `/` bind would forbid mkdir /app)."""
    args: list[str] = []
    for entry in sorted(Path("/").iterdir()):
        if entry.name in OWN_MOUNTS:
            continue
        path = str(entry)
        if entry.is_symlink():
            args += ["--symlink", str(entry.readlink()), path]
        else:
            args += ["--ro-bind-try", path, path]
    return args


def _masks(paths: list[Path]) -> list[str]:
    """Cover hidden host paths: an empty tmpfs over a directory, /dev/null over a file."""
    args: list[str] = []
    for path in paths:
        if path.is_dir():
            args += ["--tmpfs", str(path.resolve())]
        elif path.exists():
            args += ["--ro-bind", "/dev/null", str(path.resolve())]
    return args


class BwrapSandbox(policy.HostMountedFiles):
    """One bwrap sandbox: a host temp tree plus a namespace-holding init process."""

    capabilities = SandboxCapabilities(isolated=True, network_control=True, resource_limits=False)
    app_dir = policy.APP_DIR

    def __init__(self, request: SandboxRequest) -> None:
        self.request = request
        self.dirs = policy.make_host_dirs(request.label or request.task_id)
        self.mounts = {policy.APP_DIR: self.dirs.app, policy.TESTS_DIR: self.dirs.tests, policy.LOGS_DIR: self.dirs.logs}
        self.layout = {"app": policy.APP_DIR, "tests": policy.TESTS_DIR, "logs": policy.LOGS_DIR}
        self._init: subprocess.Popen[bytes] | None = None
        self._lifeline_w = -1
        self._target_pid = 0
        self._destroyed = False

    def start(self) -> None:
        network = self.request.network or self.request.environment.network
        info_r, info_w = os.pipe()
        self._lifeline_r, self._lifeline_w = os.pipe()
        argv = [
            "bwrap", *_root_binds(),
            *_masks(self.request.hidden_paths),
            "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
            "--bind", str(self.dirs.app), policy.APP_DIR,
            "--bind", str(self.dirs.tests), policy.TESTS_DIR,
            "--bind", str(self.dirs.logs), policy.LOGS_DIR,
            "--remount-ro", "/",
            "--unshare-all", *(["--share-net"] if network else []),
            "--die-with-parent", "--new-session", "--chdir", policy.APP_DIR,
            "--info-fd", str(info_w),
            "bash", "-c", f"read -r _ <&{self._lifeline_r}",  # bash: dash takes one-digit fds only
        ]  # fmt: skip
        try:
            self._init = subprocess.Popen(
                argv, pass_fds=(info_w, self._lifeline_r), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, start_new_session=True,
            )
        finally:
            os.close(info_w)
            os.close(self._lifeline_r)
        with os.fdopen(info_r, "rb") as info:
            raw = info.read()  # EOF once bwrap has set up the namespaces (or died)
        if not raw:
            err = self._init.stderr.read().decode(errors="replace") if self._init.stderr else ""
            raise SandboxError(f"bwrap failed to start: {err.strip()[:300]}")
        self._target_pid = self._wait_for_holder(int(json.loads(raw)["child-pid"]))

    def _wait_for_holder(self, ns_init: int) -> int:
        """Host pid of the holder shell (pid 2 inside); nsenter takes its root and cwd (/app)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        children = Path(f"/proc/{ns_init}/task/{ns_init}/children")
        while time.monotonic() < deadline:
            try:
                pids = children.read_text().split()
                if pids and str(Path(f"/proc/{pids[0]}/cwd").readlink()) == policy.APP_DIR:
                    return int(pids[0])
            except OSError:
                pass
            if self._init is not None and self._init.poll() is not None:
                break
            time.sleep(0.005)
        raise SandboxError("bwrap started but its init process never appeared")

    def _nsenter_prefix(self) -> list[str]:
        prefix = ["nsenter", f"--target={self._target_pid}", *NSENTER_NAMESPACES, "--root", "--wd"]
        if os.geteuid() != 0:
            # Unprivileged: the bwrap user namespace is ours, so joining it first grants the rest.
            prefix += ["--user", "--preserve-credentials"]
        # Root in the host user namespace keeps CAP_SYS_ADMIN over the sandbox's mounts; drop it all.
        return [*prefix, "--", "setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]

    def exec(self, command: str, timeout_s: float, env: dict[str, str] | None = None) -> ExecResult:
        if self._destroyed or self._init is None or self._init.poll() is not None:
            raise SandboxError("bwrap sandbox is not running")
        full_env = policy.sandbox_env(self.layout, self.request.env, env, policy.host_base_env())
        try:
            return policy.run_with_deadline([*self._nsenter_prefix(), "bash", "-c", command], timeout_s, full_env, None)
        except KeyboardInterrupt:
            self.destroy()
            raise

    def destroy(self) -> None:
        if self._destroyed:
            return
        self._destroyed = True
        try:
            if self._init is not None and self._init.poll() is None:
                # SIGKILL on bwrap's group: --die-with-parent then takes down pid 1 of the sandbox,
                # and the kernel kills every process left in its pid namespace.
                policy.kill_group(self._init.pid)
                self._init.wait(timeout=10)
            if self._target_pid:
                _wait_gone(self._target_pid)
        except Exception:  # noqa: BLE001 - destroy never raises; the dirs below still go
            pass
        if self._lifeline_w >= 0:
            os.close(self._lifeline_w)
            self._lifeline_w = -1
        shutil.rmtree(self.dirs.root, ignore_errors=True)


def _wait_gone(pid: int, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return
        time.sleep(0.01)


class BwrapBackend:
    """bubblewrap: isolated filesystem and network, no resource limits, no daemon."""

    name = "bwrap"
    capabilities = BwrapSandbox.capabilities

    def preflight(self) -> None:
        for tool, package in (("bwrap", "bubblewrap"), ("nsenter", "util-linux"), ("setpriv", "util-linux")):
            if shutil.which(tool) is None:
                raise UserError(f"{tool} is not installed", "--backend bwrap", f"apt-get install {package}, or use --backend docker")
        probe = subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
            capture_output=True, text=True, timeout=20,
        )
        if probe.returncode != 0:
            raise UserError(
                f"bwrap cannot create namespaces here: {probe.stderr.strip()[:200]}",
                "--backend bwrap",
                "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or use --backend docker",
            )

    def create(self, request: SandboxRequest) -> BwrapSandbox:
        sandbox = BwrapSandbox(request)
        try:
            sandbox.start()
        except BaseException:
            sandbox.destroy()
            raise
        return sandbox
