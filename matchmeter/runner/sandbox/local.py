"""The local backend: plain subprocesses in a temp dir, NOT isolated (for debugging and CI without bwrap).

$MM_APP, $MM_TESTS and $MM_LOGS are host temp dirs; commands see the whole host filesystem and network.
Each exec runs in a new session; background processes stay in that session's process group, so
destroy() kills every group an exec started. Processes that leave their group (setsid, daemonize) are
also found by a per-sandbox marker variable in their environment and killed.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import signal
from collections.abc import Sequence
from pathlib import Path

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import (
    BackendClass,
    ExecResult,
    FileRead,
    Restarted,
    SandboxCapabilities,
    SandboxRequest,
    policy,
)
from matchmeter.schema import TaskSpec

log = logging.getLogger(__name__)
MARKER_VAR = "MM_LOCAL_SANDBOX"
_warned = False


class LocalSandbox(policy.HostMountedFiles):
    """A temp tree and the process groups its execs started."""

    capabilities = SandboxCapabilities(isolated=False, network_control=False, resource_limits=False)
    cli_executable: str | None = None  # a CLI runs from its host venv here (no image layer)
    lost = False  # nothing holds a local sandbox up: its commands cannot end it

    def __init__(self, request: SandboxRequest) -> None:
        self.request = request
        self.dirs = policy.make_host_dirs(request.label or request.task_id)
        self.app_dir = str(self.dirs.app)
        self.mounts = {str(self.dirs.app): self.dirs.app, str(self.dirs.tests): self.dirs.tests,
                       str(self.dirs.logs): self.dirs.logs}
        self.layout = {"app": str(self.dirs.app), "tests": str(self.dirs.tests), "logs": str(self.dirs.logs)}
        # The label in the marker lets prune_processes() find a killed runner's leftovers.
        self.marker = f"{policy.safe_label(request.label or request.task_id)}:{secrets.token_hex(8)}"
        self._destroyed = False

    def exec(self, command: str, timeout_s: float, env: dict[str, str] | None = None, *,
             as_verifier: bool = False) -> ExecResult:  # one identity here: the verifier runs as everything else
        if self._destroyed:
            raise SandboxError("local sandbox was destroyed")
        full_env = policy.sandbox_env(self.layout, self.request.env, env, policy.host_base_env())
        full_env[MARKER_VAR] = self.marker
        with policy.destroyed_on_interrupt(self):
            return policy.run_with_deadline(["bash", "-c", command], timeout_s, full_env, self.app_dir)

    def snapshot(self, paths: list[str]) -> dict[str, str]:
        return policy.snapshot(self.exec, paths)

    def empty_then_snapshot(self, path: str, paths: Sequence[str]) -> tuple[str, dict[str, str]]:
        return policy.empty_then_snapshot(self.exec, path, paths)

    def halt(self, read: Sequence[str] = (), limit: int = 1 << 20) -> dict[str, FileRead]:
        _kill_marked(f"{MARKER_VAR}={self.marker}".encode(), exact=True)
        return self.read_files(read, limit)

    def restart(self, snapshot: Sequence[str] = ()) -> Restarted:
        if self._destroyed:  # destroyed under the trial (Ctrl-C): never recreate its dirs
            raise SandboxError("local sandbox was destroyed")
        self.halt()
        planted = self.planted_tests()
        for path in (self.dirs.tests, self.dirs.logs):
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir()
        return Restarted(planted, self.snapshot(list(snapshot)) if snapshot else {})

    def destroy(self) -> None:
        if self._destroyed:
            return
        self._destroyed = True
        self.halt()
        shutil.rmtree(self.dirs.root, ignore_errors=True)


def marked_pids(needle: bytes, exact: bool) -> list[int]:
    """Host pids whose environment has the marker variable (every exec and all its descendants)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            variables = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(v == needle if exact else v.startswith(needle) for v in variables):
            found.append(int(entry.name))
    return found


def _kill_marked(needle: bytes, exact: bool) -> int:
    killed: set[int] = set()
    for _ in range(2):  # two passes: a process may fork between the scan and the kill
        for pid in marked_pids(needle, exact):
            try:
                if os.getpgid(pid) != os.getpgrp():  # never the runner's own group
                    policy.kill_group(os.getpgid(pid))
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
    return len(killed)


def prune_processes(label: str) -> int:
    """Kill what local sandboxes of this label left running (after a kill -9 of the runner)."""
    return _kill_marked(f"{MARKER_VAR}={policy.safe_label(label)}:".encode(), exact=False)


class LocalBackend:
    """Unisolated subprocesses: no filesystem, network or resource protection."""

    name = "local"
    capabilities = LocalSandbox.capabilities

    def __init__(self, base_aliases: dict[str, str] | None = None) -> None:
        self.base_aliases = dict(base_aliases or {})  # kept for the Ray nodes; Dockerfiles are ignored here

    def preflight(self) -> None:
        global _warned
        if not _warned:
            _warned = True
            log.warning("sandbox backend 'local' is NOT isolated: commands can read and write the whole host")

    def create(self, request: SandboxRequest) -> LocalSandbox:
        return LocalSandbox(request)

    def builds_images(self) -> bool:
        return False  # a CLI runs from its host venv

    def check_environment(self, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile") -> None:
        """Nothing to check: the local backend ignores Dockerfiles."""

    def needs_engine_for(self, task: TaskSpec) -> bool:
        return False

    def prune(self, label: str) -> int:
        """The processes (found by their marker) and temp trees of this label's sandboxes."""
        return prune_processes(label) + policy.prune_workspaces(label)


_BACKEND_CLASS: BackendClass = LocalBackend  # mypy --strict proves the class is a SandboxBackend
