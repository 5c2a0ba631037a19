"""Pure policy shared by every sandbox backend: layout, environment, timeouts, labels, path mapping.

Backends differ only in how they start a process; everything they must agree on lives here so the
conformance suite tests one behaviour, not three copies of it. Host-side layout of a bwrap or local
sandbox (one temp dir per sandbox):

    <tmp>/matchmeter-<label>-XXXX/
        app/     $MM_APP   (/app under bwrap)
        tests/   $MM_TESTS (/tests under bwrap)
        logs/    $MM_LOGS  (/logs under bwrap)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import ExecResult

APP_DIR, TESTS_DIR, LOGS_DIR = "/app", "/tests", "/logs"
TIMEOUT_EXIT_CODE = 124  # what coreutils `timeout` returns, so agents and verifiers read it the same way
MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # a runaway `yes` must not exhaust the runner's memory
LABEL_KEY, LABEL_VALUE, LABEL_RUN = "matchmeter", "1", "matchmeter.label"
TEMP_PREFIX = "matchmeter-"
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Host variables a bwrap/local sandbox keeps: it shares the host's /usr and interpreters (pyenv shims
# need PYENV_ROOT and HOME), but nothing else of the runner's environment (no API keys) leaks in.
HOST_ENV_PASSTHROUGH = ("PATH", "HOME", "PYENV_ROOT", "LANG")


class HostDirs(NamedTuple):
    root: Path
    app: Path
    tests: Path
    logs: Path


def safe_label(label: str) -> str:
    """A label usable in file and container names (truncated: run ids can be long)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", label)[:40] or "sbx"


def make_host_dirs(label: str) -> HostDirs:
    """Create the per-sandbox temp tree drawn in the module docstring."""
    root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{safe_label(label)}-"))
    dirs = HostDirs(root, root / "app", root / "tests", root / "logs")
    for d in dirs[1:]:
        d.mkdir()
    return dirs


def prune_workspaces(label: str) -> int:
    """Remove the temp trees of every bwrap/local sandbox made with this label (a killed run's leftovers).

    Returns:
        How many trees were removed.
    """
    pattern = re.compile(re.escape(f"{TEMP_PREFIX}{safe_label(label)}-") + r"[a-z0-9_]{8}")
    removed = 0
    for entry in Path(tempfile.gettempdir()).iterdir():
        if pattern.fullmatch(entry.name) and (entry / "app").is_dir():
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def sandbox_env(
    layout: Mapping[str, str], request_env: Mapping[str, str], call_env: Mapping[str, str] | None, base: Mapping[str, str]
) -> dict[str, str]:
    """base < request env < per-call env < MM_APP/MM_TESTS/MM_LOGS (the layout always wins)."""
    env = dict(base)
    env.update(request_env)
    env.update(call_env or {})
    env.update({"MM_APP": layout["app"], "MM_TESTS": layout["tests"], "MM_LOGS": layout["logs"]})
    return env


def host_base_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in HOST_ENV_PASSTHROUGH if k in os.environ}
    env.setdefault("PATH", CONTAINER_PATH)
    env.setdefault("LANG", "C.UTF-8")
    return env


def container_base_env() -> dict[str, str]:
    return {"PATH": CONTAINER_PATH, "HOME": "/root", "LANG": "C.UTF-8"}


def decode_output(data: bytes) -> str:
    if len(data) > MAX_OUTPUT_BYTES:
        data = data[:MAX_OUTPUT_BYTES] + b"\n[matchmeter: output truncated]\n"
    return data.decode("utf-8", errors="replace")


def to_host(path: str, mounts: Mapping[str, Path], app: str) -> Path:
    """Map an in-sandbox path (absolute, or relative to the workspace) onto the host dir behind it.

    Raises:
        SandboxError: the path is outside every mounted dir (or climbs out with ..).
    """
    pure = PurePosixPath(path)
    if not pure.is_absolute():
        pure = PurePosixPath(app) / pure
    norm = PurePosixPath(os.path.normpath(str(pure)))
    for inside, host in mounts.items():
        try:
            rest = norm.relative_to(inside)
        except ValueError:
            continue
        return host.joinpath(*rest.parts)
    raise SandboxError(f"{path!r} is outside the sandbox's shared dirs ({', '.join(mounts)})")


def copy_path(src: Path, dest: Path) -> None:
    """Copy a file or directory tree (merging into an existing dir); SandboxError if src is missing."""
    if src.is_dir():
        shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
    elif src.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    else:
        raise SandboxError(f"cannot copy {src}: no such file or directory")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_tree(paths: Sequence[str], resolve: Callable[[str], Path]) -> dict[str, str]:
    """Map every regular file under each path to its sha256, keyed as `<path as given>/<relative>`."""
    out: dict[str, str] = {}
    for given in paths:
        host = resolve(given)
        if host.is_file():
            out[given] = sha256_file(host)
        elif host.is_dir():
            for file in sorted(host.rglob("*")):
                if file.is_file() and not file.is_symlink():
                    out[str(PurePosixPath(given) / file.relative_to(host).as_posix())] = sha256_file(file)
    return out


def run_with_deadline(argv: Sequence[str], timeout_s: float, env: Mapping[str, str], cwd: str | None) -> ExecResult:
    """Run argv in its own session, output to a file, killing the whole group on timeout or Ctrl-C.

    Raises:
        SandboxError: argv[0] cannot be started. KeyboardInterrupt is re-raised after the kill.

    Output goes to a temp file, not a pipe: a background child (`server &`) inherits the descriptor and
    would hold a pipe open forever, while the file is simply read once the foreground command exits.
    """
    started = time.monotonic()
    with tempfile.TemporaryFile(prefix=TEMP_PREFIX + "out-") as out:
        try:
            proc = subprocess.Popen(
                list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                env=dict(env), cwd=cwd, start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"cannot start {argv[0]}: {exc}") from exc
        timed_out = False
        try:
            code = proc.wait(timeout=max(timeout_s, 0.001))
            if code < 0:  # killed by a signal: report it the way a shell would
                code = 128 - code
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc.pid)
            proc.wait()
            code = TIMEOUT_EXIT_CODE
        except BaseException:
            kill_group(proc.pid)
            proc.wait()
            raise
        out.seek(0)
        data = out.read(MAX_OUTPUT_BYTES + 1)
    return ExecResult(decode_output(data), code, time.monotonic() - started, timed_out)


def kill_group(pgid: int) -> None:
    """SIGKILL a process group; a group that is already gone is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class HostMountedFiles:
    """upload / download / snapshot for backends whose sandbox paths are host directories (bwrap, local).

    The backend sets `mounts` (sandbox dir -> host dir) and `app_dir`; files move through the host side.
    """

    mounts: Mapping[str, Path]
    app_dir: str

    def upload(self, src: Path, dest: str) -> None:
        copy_path(Path(src), to_host(dest, self.mounts, self.app_dir))

    def download(self, src: str, dest: Path) -> None:
        copy_path(to_host(src, self.mounts, self.app_dir), Path(dest))

    def snapshot(self, paths: list[str]) -> dict[str, str]:
        return hash_tree(paths, lambda p: to_host(p, self.mounts, self.app_dir))
