"""Pure policy shared by every sandbox backend: layout, environment, timeouts, labels, path mapping.

Backends differ only in how they start a process; everything they must agree on lives here so the
conformance suite tests one behaviour, not three copies of it. Host-side layout of a bwrap or local
sandbox (one temp dir per sandbox; <slug> is a readable prefix of the run label plus a hash of all of it):

    <tmp>/matchmeter-<slug>-XXXX/
        app/     $MM_APP   (/app under bwrap)
        tests/   $MM_TESTS (/tests under bwrap; a fresh dir for every verification)
        logs/    $MM_LOGS  (/logs under bwrap; likewise)

Everything the agent can write is hostile input to the host side: host-side copies never follow a link
(every component is opened with O_NOFOLLOW relative to the sandbox's own dir), command output is read
from a pipe with a byte cap (no host temp file a background child could grow), and protected-state
snapshots are hashed inside the sandbox with per-file size and total time caps.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import select
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import ExecResult, FileRead, Sandbox

APP_DIR, TESTS_DIR, LOGS_DIR = "/app", "/tests", "/logs"
TIMEOUT_EXIT_CODE = 124  # what coreutils `timeout` returns, so agents and verifiers read it the same way
MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # a runaway `yes` must not exhaust the runner's memory
SNAPSHOT_FILE_CAP_BYTES = 256 * 1024 * 1024  # larger protected files are `unverifiable`, never hashed for hours
SNAPSHOT_TIME_CAP_S = 60.0
SNAPSHOT_MAX_ENTRIES = 200_000
UNVERIFIABLE = "unverifiable"
LABEL_KEY, LABEL_VALUE, LABEL_RUN = "matchmeter", "1", "matchmeter.label"
TEMP_PREFIX = "matchmeter-"
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Host variables the unisolated local backend keeps (pyenv shims need PYENV_ROOT and HOME); nothing else
# of the runner's environment (no API keys) leaks in. Isolated backends start from SANDBOX_ENV alone.
HOST_ENV_PASSTHROUGH = ("PATH", "HOME", "PYENV_ROOT", "LANG")
SANDBOX_ENV = {"PATH": CONTAINER_PATH, "HOME": "/tmp", "LANG": "C.UTF-8"}
# What the verifier's identity may do beyond an unprivileged uid (bwrap as root; docker's verifier is the container's
# root): become the agent's uid to run agent code (setuid, setgid), kill it (kill), read and write what the agent
# left whatever its modes (dac_*), hand work dirs to the agent (chown, fowner), and look at the agent's processes
# (sys_ptrace: /proc/PID/cwd and fd of another uid, which service verifiers read). Code run as the agent has none.
VERIFIER_CAPS = ("setuid", "setgid", "kill", "dac_read_search", "dac_override", "chown", "fowner", "sys_ptrace")


def verifier_env(agent_uid: int, verifier_uid: int) -> dict[str, str]:
    """Variables of a verifier exec: the agent's uid, which verifylib's run_agent_code drops to (none when the two
    identities are one uid, as under bwrap for a normal user)."""
    return {"MM_AGENT_UID": str(agent_uid)} if agent_uid != verifier_uid else {}


class HostDirs(NamedTuple):
    root: Path
    app: Path
    tests: Path
    logs: Path


def safe_label(label: str) -> str:
    """A label usable in file and container names: a readable prefix plus a hash of the WHOLE label, so
    two run ids that share a long prefix never share names (and never prune each other's sandboxes)."""
    readable = re.sub(r"[^A-Za-z0-9_.-]", "-", label)[:24].strip("-.") or "sbx"
    return f"{readable}-{hashlib.sha256(label.encode()).hexdigest()[:12]}"


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


def decode_output(data: bytes, total: int | None = None) -> str:
    """Decode captured output; `total` is how many bytes the command wrote when more than was kept."""
    total = len(data) if total is None else total
    if total > MAX_OUTPUT_BYTES:
        data = data[:MAX_OUTPUT_BYTES] + f"\n[matchmeter: output truncated, {total} bytes written]\n".encode()
    return data.decode("utf-8", errors="replace")


def to_host(path: str, mounts: Mapping[str, Path], app: str) -> tuple[Path, PurePosixPath]:
    """Map an in-sandbox path (absolute, or relative to the workspace) to (host dir, path below it).

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
        return host, rest
    raise SandboxError(f"{path!r} is outside the sandbox's shared dirs ({', '.join(mounts)})")


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_dir(root: Path, parts: Sequence[str], create: bool, owner: int | None = None) -> int:
    """An fd of root/parts, opening every component with O_NOFOLLOW (a planted link raises); dirs it
    creates belong to `owner` when given."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts:
            if create:
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                    if owner is not None:
                        os.chown(part, owner, owner, dir_fd=fd, follow_symlinks=False)
                except FileExistsError:
                    pass
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise SandboxError(f"refusing {root}/{'/'.join(parts)}: {part!r} is not a plain directory ({exc.strerror})") from exc
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _copy_file_into(src: Path, dir_fd: int, name: str, owner: int | None = None) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        out = os.open(name, flags, stat.S_IMODE(src.stat().st_mode) or 0o644, dir_fd=dir_fd)
    except OSError as exc:
        raise SandboxError(f"refusing to write {name!r}: {exc.strerror}") from exc
    if owner is not None:
        os.fchown(out, owner, owner)
    with open(src, "rb") as fin, os.fdopen(out, "wb") as fout:
        shutil.copyfileobj(fin, fout)


def open_dir_nofollow(root: Path, parts: Sequence[str]) -> int:
    """An fd of the existing directory root/parts, no component a link (SandboxError otherwise)."""
    return _open_dir(root, parts, create=False)


def upload_nofollow(src: Path, root: Path, rel: PurePosixPath, owner: int | None = None) -> None:
    """Copy a host file or tree to root/rel without following any link found under root; what it creates
    belongs to `owner` (the sandbox's uid) when given, as if the sandbox had written it.

    Raises:
        SandboxError: src is missing, or a component under root is a link or not a directory.
    """
    if not src.exists():
        raise SandboxError(f"cannot copy {src}: no such file or directory")
    parts = rel.parts
    if src.is_dir():
        fd = _open_dir(root, parts, create=True, owner=owner)
        try:
            for entry in sorted(src.iterdir()):
                if entry.is_symlink():
                    continue  # task sources hold no links; never create one the host would later follow
                if entry.is_dir():
                    upload_nofollow(entry, root, rel / entry.name, owner)
                else:
                    _copy_file_into(entry, fd, entry.name, owner)
        finally:
            os.close(fd)
        return
    if not parts:
        raise SandboxError(f"cannot copy the file {src} over a sandbox directory")
    fd = _open_dir(root, parts[:-1], create=True, owner=owner)
    try:
        _copy_file_into(src, fd, parts[-1], owner)
    finally:
        os.close(fd)


def read_nofollow(root: Path, rel: PurePosixPath, limit: int) -> bytes | None:
    """At most `limit` bytes of the regular file root/rel, or None when absent, a link or not a file."""
    parts = rel.parts
    if not parts:
        return None
    try:
        fd = _open_dir(root, parts[:-1], create=False)
    except (SandboxError, OSError):
        return None
    try:
        ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(ffd).st_mode):
        os.close(ffd)
        return None
    with os.fdopen(ffd, "rb") as fh:
        return fh.read(limit)


def kind_nofollow(root: Path, rel: PurePosixPath) -> str | None:
    """Sandbox.file_kind for a host-mounted dir: what root/rel is, never following a link on the way."""
    parts = rel.parts
    try:
        fd = _open_dir(root, parts[:-1], create=False)
    except SandboxError as exc:  # a component on the way is missing, a link or not a directory
        return None if isinstance(exc.__cause__, FileNotFoundError) else "other"
    try:
        st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False) if parts else os.fstat(fd)
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)
    for test, name in ((stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"), (stat.S_ISLNK, "link"), (stat.S_ISFIFO, "fifo")):
        if test(st.st_mode):
            return name
    return "other"


def download_nofollow(root: Path, rel: PurePosixPath, dest: Path, limit: int = 64 * 1024 * 1024) -> None:
    """Copy root/rel (a file or tree) to a host path: links are skipped, files capped at `limit` bytes.

    Raises:
        SandboxError: nothing readable at root/rel.
    """
    data = read_nofollow(root, rel, limit)
    if data is not None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        return
    try:
        fd = _open_dir(root, rel.parts, create=False)
    except (SandboxError, OSError) as exc:
        raise SandboxError(f"cannot download {rel}: no such file or directory") from exc
    try:
        names = sorted(os.listdir(fd))  # noqa: PTH208 - an fd opened with O_NOFOLLOW, not a path
    finally:
        os.close(fd)
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        try:
            download_nofollow(root, rel / name, dest / name, limit)
        except SandboxError:
            continue  # a link or special file: never followed


# Hashes protected paths inside the sandbox (where a planted link can only point at the sandbox's own
# files), skipping links, with a per-file size cap and a total time cap; prints one JSON object, ASCII only. The
# object is written by hand, not with the json module: importing json (it compiles regexes) was a third of the
# script's run, and the script runs twice in every trial (benchmarks/trial_breakdown.py). `q` escapes all but
# printable ASCII as \uXXXX (a pair above the BMP; a lone surrogate from an undecodable name as itself), which
# json.loads reads back to the same string (tests/runner/test_snapshot_script.py).
SNAPSHOT_SCRIPT = r"""
import hashlib, os, stat, sys, time
cap, deadline, limit = int(sys.argv[1]), time.monotonic() + float(sys.argv[2]), int(sys.argv[3])
out = {}
def one(key, path):
    try:
        st = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode):
        return
    if st.st_size > cap:
        out[key] = "unverifiable: %d bytes (cap %d)" % (st.st_size, cap); return
    if time.monotonic() > deadline:
        out[key] = "unverifiable: snapshot time cap"; return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        out[key] = "unreadable: %s" % exc.strerror; return
    h = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    out[key] = h.hexdigest()
for given, path in zip(sys.argv[4::2], sys.argv[5::2]):
    try:
        st = os.lstat(path)
    except OSError:
        continue
    if stat.S_ISDIR(st.st_mode):
        for top, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(top, name)
                one(given.rstrip("/") + "/" + os.path.relpath(full, path), full)
                if len(out) >= limit:
                    break
    else:
        one(given, path)
def q(s):
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    e = []
    for c in s:
        n = ord(c)
        if 32 <= n < 127 and c != '"' and c != "\\":
            e.append(c)
        elif n < 0x10000:
            e.append("\\u%04x" % n)
        else:
            n -= 0x10000
            e.append("\\u%04x\\u%04x" % (0xD800 + (n >> 10), 0xDC00 + (n & 0x3FF)))
    return '"' + "".join(e) + '"'
sys.stdout.write("{" + ", ".join(q(k) + ": " + q(v) for k, v in out.items()) + "}")
"""


def snapshot_command(paths: Sequence[str], as_uid: int | None = None) -> str:
    """A shell command that hashes `paths` inside the sandbox and prints {path: sha256 | unverifiable...}.

    as_uid: run by root, the script first drops to this uid (no groups), so a snapshot taken inside a root
    step sees what the agent's own snapshot saw (a file the agent made unreadable stays `unreadable`)."""
    import shlex

    args = [str(SNAPSHOT_FILE_CAP_BYTES), str(SNAPSHOT_TIME_CAP_S), str(SNAPSHOT_MAX_ENTRIES)]
    for given in paths:
        args += [given, given]
    script = SNAPSHOT_SCRIPT
    if as_uid is not None:
        script = f"import os\nos.setgroups([]); os.setgid({int(as_uid)}); os.setuid({int(as_uid)})\n" + script
    # -I -S: no environment variable, user site or site-packages .pth file (one an agent with root could plant)
    # runs code in the process whose output says what the agent changed
    return "python3 -I -S -c " + shlex.quote(script) + " " + " ".join(shlex.quote(a) for a in args)


def snapshot(exec_: Callable[[str, float], ExecResult], paths: Sequence[str]) -> dict[str, str]:
    """Sandbox.snapshot on every backend: the snapshot script run through the sandbox's exec, read back."""
    done = exec_(snapshot_command(paths), SNAPSHOT_TIME_CAP_S + 30)
    return parse_snapshot(done.output, done.exit_code)


def empty_then_snapshot(exec_: Callable[[str, float], ExecResult], path: str,
                        protected: Sequence[str]) -> tuple[str, dict[str, str]]:
    """Sandbox.empty_then_snapshot through the sandbox's exec: emptying and the snapshot script in one exec (on
    Docker each exec is an engine round trip)."""
    if not protected:
        return exec_(f"{empty_command(path)}; true", 30).output.strip(), {}
    nonce = secrets.token_hex(8)  # frames the listing: names in the directory cannot forge the split
    done = exec_(f"{empty_command(path)}; echo {nonce}; {snapshot_command(protected)}", SNAPSHOT_TIME_CAP_S + 30)
    held, _, snap = done.output.partition(f"{nonce}\n")
    return held.strip(), parse_snapshot(snap, done.exit_code)


def empty_command(path: str) -> str:
    """Prints the first few names in an in-sandbox directory, then removes everything in it."""
    return f'ls -A "{path}" | head -5; rm -rf "{path}"/* "{path}"/.[!.]* 2>/dev/null'


def parse_snapshot(output: str, exit_code: int) -> dict[str, str]:
    """The snapshot script's JSON; SandboxError when it did not finish (the trial then says why)."""
    try:
        data = json.loads(output.strip().splitlines()[-1]) if output.strip() else None
    except ValueError:
        data = None
    if exit_code != 0 or not isinstance(data, dict):
        raise SandboxError(f"protected-state snapshot failed (exit {exit_code}): {output.strip()[-200:]!r}")
    return {str(k): str(v) for k, v in data.items()}


def _drain_forever(fd: int) -> None:
    """Keep reading (and dropping) what background children write, until the last one exits."""
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


class _CappedOutput:
    """Bytes read from the exec's pipe: the first MAX_OUTPUT_BYTES kept, the rest counted and dropped."""

    def __init__(self, fd: int) -> None:
        self.fd, self.kept, self.total, self.eof = fd, 0, 0, False
        self.chunks: list[bytes] = []

    def read_once(self) -> None:
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return
        if not data:
            self.eof = True
            return
        self.total += len(data)
        if self.kept < MAX_OUTPUT_BYTES:
            self.chunks.append(data[: MAX_OUTPUT_BYTES - self.kept])
            self.kept += len(self.chunks[-1])

    def drain_available(self) -> None:
        os.set_blocking(self.fd, False)
        while not self.eof:
            before = self.total
            self.read_once()
            if self.total == before and not self.eof:
                break

    def finish(self) -> str:
        if self.eof:
            os.close(self.fd)
        else:  # a background child still holds the pipe: drain it on a thread, never block it or SIGPIPE it
            os.set_blocking(self.fd, True)
            threading.Thread(target=_drain_forever, args=(self.fd,), daemon=True, name="mm-drain").start()
        return decode_output(b"".join(self.chunks), self.total)


def run_with_deadline(argv: Sequence[str], timeout_s: float, env: Mapping[str, str], cwd: str | None) -> ExecResult:
    """Run argv in its own session, output through a capped pipe, killing the whole group on timeout or Ctrl-C.

    Raises:
        SandboxError: argv[0] cannot be started. KeyboardInterrupt is re-raised after the kill.

    The exec returns when the foreground command exits: what it wrote is in the pipe by then. A
    background child (`server &`) that inherited the pipe is then drained by a thread until it exits,
    so it never blocks on a full pipe and nothing it writes lands on the host's disk.
    """
    started = time.monotonic()
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=write_fd, stderr=write_fd,
            env=dict(env), cwd=cwd, start_new_session=True,
        )
    except OSError as exc:
        os.close(read_fd)
        raise SandboxError(f"cannot start {argv[0]}: {exc}") from exc
    finally:
        os.close(write_fd)
    output = _CappedOutput(read_fd)
    exited = os.pidfd_open(proc.pid)
    deadline = started + max(timeout_s, 0.001)
    timed_out = False
    try:
        while proc.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                kill_group(proc.pid)
                proc.wait()
                break
            watched = [exited] if output.eof else [exited, read_fd]
            ready, _, _ = select.select(watched, [], [], remaining)
            if read_fd in ready:
                output.read_once()
        code = TIMEOUT_EXIT_CODE if timed_out else proc.returncode
        if code < 0:  # killed by a signal: report it the way a shell would
            code = 128 - code
        output.drain_available()
    except BaseException:
        kill_group(proc.pid)
        proc.wait()
        os.close(exited)
        output.finish()
        raise
    os.close(exited)
    return ExecResult(output.finish(), code, time.monotonic() - started, timed_out)


@contextmanager
def destroyed_on_interrupt(sandbox: Sandbox) -> Iterator[None]:
    """Ctrl-C during a sandbox call destroys the sandbox (nothing of it outlives the run), then goes on up."""
    try:
        yield
    except KeyboardInterrupt:
        sandbox.destroy()
        raise


def kill_group(pgid: int) -> None:
    """SIGKILL a process group; a group that is already gone is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class HostMountedFiles:
    """upload / download / read for backends whose sandbox paths are host directories (bwrap, local).

    The backend sets `mounts` (sandbox dir -> host dir) and `app_dir`; files move through the host side,
    never following a link the agent planted.
    """

    mounts: Mapping[str, Path]
    app_dir: str
    layout: dict[str, str]
    upload_owner: int | None = None  # uploads belong to the sandbox's uid (bwrap as root), so it can use them

    def upload(self, src: Path, dest: str, extra_files: Mapping[str, Path] | None = None, *,
               through_exec: bool = False) -> None:
        # the sandbox sees these host dirs themselves: there is no other path, so through_exec changes nothing
        root, rel = to_host(dest, self.mounts, self.app_dir)
        upload_nofollow(Path(src), root, rel, self.upload_owner)
        for name, host in (extra_files or {}).items():
            upload_nofollow(Path(host), root, rel / name, self.upload_owner)

    def download(self, src: str, dest: Path) -> None:
        root, rel = to_host(src, self.mounts, self.app_dir)
        download_nofollow(root, rel, Path(dest))

    def file_kind(self, path: str) -> str | None:
        root, rel = to_host(path, self.mounts, self.app_dir)
        return kind_nofollow(root, rel)

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        root, rel = to_host(path, self.mounts, self.app_dir)
        data = read_nofollow(root, rel, limit)
        return None if data is None else data.decode("utf-8", errors="replace")

    def read_files(self, paths: Sequence[str], limit: int = 1 << 20) -> dict[str, FileRead]:
        """halt()'s reads: on the host side they cost no exec."""
        files = {}
        for path in paths:
            kind = self.file_kind(path)
            files[path] = FileRead(kind, self.read_text(path, limit) if kind == "file" else None)
        return files

    def planted_tests(self) -> list[str]:
        """The first few names in the host dir of $MM_TESTS (restart's `planted`), links not followed."""
        root, rel = to_host(self.layout["tests"], self.mounts, self.app_dir)
        try:
            return sorted(p.name for p in (root / rel).iterdir())[:5] if not (root / rel).is_symlink() else []
        except OSError:
            return []
