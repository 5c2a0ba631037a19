"""The sandbox protocol and the lazy registry of its backends.

A sandbox is one isolated workspace for one trial. Layout seen from inside every backend:

    $MM_APP    (= /app under bwrap and docker; a temp dir under local)  the agent's working directory
    $MM_TESTS  (= /tests; a temp dir under local)  empty until the runner uploads the tests after the agent
    $MM_LOGS   (= /logs; a temp dir under local)   the verifier writes reward.txt / subgoals.json here

Commands run with `bash -c` in $MM_APP as an unprivileged user, with an allow-listed environment.
Processes started in the background by one exec (a service on a port) stay alive for later execs of
the same sandbox until restart(), halt() or destroy(). restart() is how the runner ends the agent
phase: every process gone, then the same workspace with fresh /tmp, $MM_TESTS and $MM_LOGS. Each trial step
that runs back to back in the sandbox is one call (restart + the "after" snapshot; halt + the verdict reads),
because on Docker every exec is an engine round trip that costs it ~30 ms of CPU.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from matchmeter.errors import UserError
from matchmeter.schema import EnvironmentSpec, TaskSpec


class ExecResult(NamedTuple):
    output: str
    exit_code: int
    duration_s: float
    timed_out: bool


class FileRead(NamedTuple):
    """An in-sandbox file as the harness read it (links never followed)."""

    kind: str | None  # as Sandbox.file_kind: "file", "dir", "link", "fifo", "other", or None when nothing is there
    text: str | None  # at most the read's limit of a regular file's bytes, decoded; None unless kind is "file"


class Restarted(NamedTuple):
    """What restart() found and made, asked in the same step so it costs no engine round trip of its own."""

    planted: list[str]  # the first few names $MM_TESTS held before it was made anew (the agent wrote there)
    after: dict[str, str]  # snapshot() of the paths restart was given, taken after every agent process was gone


class SandboxCapabilities(BaseModel):
    """What a backend can do, checked at preflight."""

    isolated: bool = Field(description="Host filesystem protected from writes outside the workspace.")
    network_control: bool = Field(description="Network can be switched off.")
    resource_limits: bool = Field(False, description="CPU/memory limits are enforced.")
    persistent_processes: bool = Field(True, description="Background processes survive between execs.")


class CliInstall(BaseModel):
    """A CLI adapter's package, installed into an image layer on the task image (clilayer.py)."""

    kind: Literal["pypi", "pypi-binary", "npm"] = Field(
        "pypi", description="pypi: a venv from wheels; pypi-binary: a wheel's native executable, no Python; "
        "npm: Node from its PyPI wheel and the package's node_modules.")
    package: str
    version: str
    executable: str
    binary: str = Field("", description="pypi-binary: the executable's path inside the wheel (and the layer's dir).")
    payload: str = Field("", description="pypi-binary: the wheel directory the layer gets (the executable's "
                         "top-level directory when empty).")
    digest: str = Field("", description="Content digest of a locally supplied package (an npm-pack tarball): part "
                        "of the layer's identity, so changed content under the same version is a new layer.")
    wheelhouse: Path | None = Field(None, description="Host dir of what was fetched for the layer (wheels, npm "
                                    "tarballs; containers reach no registry); needed only when the layer is not built yet.")


class SandboxRequest(BaseModel):
    """What the runner asks a backend to create."""

    task_id: str
    environment_dir: Path = Field(description="The task's environment/ directory.")
    environment: EnvironmentSpec = Field(default_factory=EnvironmentSpec)
    network: bool = False
    env: dict[str, str] = Field(default_factory=dict, description="Environment variables for every exec.")
    label: str = Field("", description="Run/execution label (docker labels, temp dir names).")
    readonly_binds: list[Path] = Field(
        default_factory=list,
        description="Host directories shown read-only at the same path (a CLI adapter's host venv and the Python "
        "it was made from, only where no image layer can be built); nothing else of the host is visible to an "
        "isolated sandbox.",
    )
    cli_install: CliInstall | None = Field(
        None, description="Run in the task image's CLI layer with this CLI installed (docker, and bwrap when an "
        "engine answers); the sandbox's `cli_executable` is then its in-image path.")
    verifier_root: bool = Field(
        False, description="The verifier phase runs as root in a writable copy of the root filesystem, discarded "
        "with the sandbox (a Harbor-format task: its test.sh may install packages, as in Harbor's container). "
        "docker's verifier is the container's root anyway; bwrap as root gives it uid 0 in a user namespace over an "
        "overlay (rootphase.py); the agent phase never has either.")
    gateway_socket: Path | None = Field(
        None,
        description="Host path of the model gateway's Unix socket; backends bind it at "
        "egress_forwarder.IN_SANDBOX_SOCKET so the sandbox's only way out is the gateway (llm/gateway.py).",
    )


@runtime_checkable
class Sandbox(Protocol):
    """One trial's sandbox.

    Raises: SandboxError when the sandbox itself cannot be created or reached. A command that fails
    inside the sandbox is not an error: it returns a non-zero exit code.
    """

    capabilities: SandboxCapabilities
    app_dir: str  # the workspace path as seen inside the sandbox
    layout: dict[str, str]  # "app", "tests", "logs": the values of $MM_APP, $MM_TESTS and $MM_LOGS inside
    cli_executable: str | None  # the requested CLI's in-image executable (SandboxRequest.cli_install), else None
    # The sandbox ended while no one asked (the agent's commands killed what holds it up): a SandboxError then is
    # the agent's failure, not the machine's. False where the agent cannot end it (a container's root init).
    lost: bool

    def exec(self, command: str, timeout_s: float, env: dict[str, str] | None = None, *,
             as_verifier: bool = False) -> ExecResult:
        """Run `bash -c command` in the workspace. Timeout kills the command's process group.

        as_verifier: run as the sandbox's verifier identity instead of the agent's (README, "What the agent
        under test cannot do"): after restart() it alone can write $MM_LOGS and read $MM_TESTS, and
        $MM_AGENT_UID names the agent's uid that verifylib.run_agent_code drops to. Where the backend has one identity (local; bwrap as a normal user)
        the command runs as the agent's and $MM_AGENT_UID is unset."""
        ...

    def upload(self, src: Path, dest: str, extra_files: Mapping[str, Path] | None = None, *,
               through_exec: bool = False) -> None:
        """Copy a host file or directory to an in-sandbox path (dest may use $MM_* names resolved by caller).

        extra_files (name -> host file) go into the uploaded directory in the same copy, each replacing what
        src holds at that name: a task's tests/ with the suite's shared verifier files beside them is one
        engine call on Docker, not one per file. through_exec: write the files by a process inside the sandbox,
        not by the backend's file API (an upload made again after it was lost, upload_proof.py); a backend whose
        sandbox sees host dirs has one path only."""
        ...

    def download(self, src: str, dest: Path) -> None:
        """Copy an in-sandbox file or directory to the host."""
        ...

    def snapshot(self, paths: list[str]) -> dict[str, str]:
        """Map every regular file under each path (recursively, links not followed) to its sha256, or to
        `unverifiable: …` past the size or time caps; missing paths map to nothing."""
        ...

    def empty_then_snapshot(self, path: str, paths: Sequence[str]) -> tuple[str, dict[str, str]]:
        """Empty the in-sandbox directory `path`, then snapshot `paths` as snapshot() does; return the first few
        names the directory held, and the snapshot. The trial's step before the agent: $MM_TESTS empty, the
        protected state's "before"."""
        ...

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        """At most `limit` bytes of an in-sandbox regular file (never through a link); None when absent."""
        ...

    def file_kind(self, path: str) -> str | None:
        """What is at an in-sandbox path, links not followed: "file", "dir", "link", "fifo" or "other" (a socket,
        a device, or a path under a link or non-directory); None when nothing is there."""
        ...

    def restart(self, snapshot: Sequence[str] = ()) -> Restarted:
        """Kill every process in the sandbox (proven gone), then start it again on the same workspace
        with fresh /tmp, $MM_TESTS and $MM_LOGS; what $MM_TESTS held before, and a snapshot of `snapshot`
        taken with no agent process alive, come back with it. Raises SandboxError."""
        ...

    def halt(self, read: Sequence[str] = (), limit: int = 1 << 20) -> dict[str, FileRead]:
        """Kill every process in the sandbox; files stay readable through read_text/download. Then each path of
        `read` is read as file_kind and read_text would (at most `limit` bytes), with nothing left running that
        could change it: the verdict files, in the step that ends the verifier."""
        ...

    def destroy(self) -> None:
        """Remove everything the sandbox created, processes included. Idempotent; never raises."""
        ...


class SandboxBackend(Protocol):
    """Everything the runner asks of a backend: it never looks at a backend's name or beyond these members.

    Made by `get_backend` as `cls(base_aliases=...)` (`BackendClass`); a backend that ignores Dockerfiles
    keeps the map and ignores it."""

    name: str
    capabilities: SandboxCapabilities
    base_aliases: dict[str, str]  # Dockerfile FROM reference -> local image (--base-alias); sent to every Ray node

    def preflight(self) -> None:
        """Raise UserError with a fix when the backend cannot run here (bwrap missing, no engine)."""
        ...

    def create(self, request: SandboxRequest) -> Sandbox:
        """Create and start a sandbox; raises SandboxError."""
        ...

    def builds_images(self) -> bool:
        """Whether task images and CLI layers are built here (an engine answers): then a CLI runs from its
        image layer, not from a host venv shown read-only to the sandbox."""
        ...

    def check_environment(self, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile") -> None:
        """Preflight of one task's environment/Dockerfile: UserError (one line) when its image cannot be had
        here (a FROM image that is not local, no engine to build it); nothing to check for a backend that
        ignores Dockerfiles."""
        ...

    def needs_engine_for(self, task: TaskSpec) -> bool:
        """Whether running this task needs a Docker engine on the node beside the backend itself (a Ray
        node must declare one): bwrap builds and exports an image that is more than FROM the base."""
        ...

    def prune(self, label: str) -> int:
        """Prune by label: remove what sandboxes made with this run label left after their runner was
        killed (processes, temp workspaces, containers); how many things were removed."""
        ...


class BackendClass(Protocol):
    """The one constructor shape of every registered backend."""

    def __call__(self, base_aliases: dict[str, str] | None = None) -> SandboxBackend:
        ...


BACKENDS: dict[str, str] = {
    "bwrap": "matchmeter.runner.sandbox.bwrap:BwrapBackend",
    "docker": "matchmeter.runner.sandbox.docker:DockerBackend",
    "local": "matchmeter.runner.sandbox.local:LocalBackend",
}


def check_environments(backend: SandboxBackend, tasks: list[TaskSpec]) -> None:
    """Preflight every task's environment/Dockerfile once: a FROM image that is not local, or (bwrap) an
    image that cannot be built here, is a UserError before anything is stored."""
    seen: set[tuple[Path, str]] = set()
    for task in tasks:
        where = (Path(task.path) / "environment", task.environment.dockerfile)
        if where not in seen:
            seen.add(where)
            backend.check_environment(task.id, *where)


def get_backend(name: str, base_aliases: dict[str, str] | None = None) -> SandboxBackend:
    """Instantiate a backend by short name (imports it lazily); `base_aliases` maps Dockerfile FROM
    references to local images (--base-alias)."""
    if name not in BACKENDS:
        raise UserError(
            f"unknown sandbox backend {name!r}", "--backend", f"choose one of: {', '.join(sorted(BACKENDS))}"
        )
    module_name, _, cls_name = BACKENDS[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # pragma: no cover - depends on installed extras
        raise UserError(f"backend {name!r} cannot be imported: {exc}", "--backend", "pip install matchmeter") from exc
    cls: BackendClass = getattr(module, cls_name)
    return cls(base_aliases=base_aliases)
