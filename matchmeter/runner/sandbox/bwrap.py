"""The bubblewrap backend (the default): namespaces without a daemon, an allow-listed root.

The sandbox's root is the Debian root filesystem of rootfs.py (the same one the docker base image is
made from) — or, when the task's Dockerfile does more than `FROM` the base or a CLI adapter runs, the
exported filesystem of the same image docker would run (the task image, or its CLI layer from
clilayer.py), built once with the local engine — read-only, with only /app, /tests and /logs (host temp
dirs) bound in, fresh tmpfs for /tmp, /var/tmp and /run. /app starts with what the image holds there
(owned by the sandbox uid, as docker's volume copy does), and the image's ENV is every exec's base
environment. With no engine answering, a task that needs its image is refused at preflight, and a CLI
adapter falls back to its host venv shown read-only (the only host path ever bound). Nothing else of the
host — not /root, /etc/shadow, the LM cache, the run store, task sources or a checkout of matchmeter — exists inside.

create() starts one long-lived bwrap process (a holder bash under bwrap's own pid-1 reaper) that owns
the sandbox's mount, pid, net, ipc and uts namespaces. Every exec joins those namespaces with
`nsenter` and runs as an unprivileged uid with no capabilities and no_new_privs:

- harness running as root: bwrap runs privileged (no user namespace) and each exec switches to a
  per-sandbox host uid (AGENT_UID_BASE + random) that owns nothing on the host but the workspace; a
  verifier exec (`as_verifier`) switches to a second per-sandbox uid (VERIFIER_UID_BASE + random) with only
  policy.VERIFIER_CAPS, which after restart() alone owns /tests and /logs (0700);
- harness running as a normal user: bwrap makes a user namespace for that uid, and execs join it; an
  unprivileged user namespace maps one id, so the verifier runs as that same uid (no second identity).

restart()/halt()/destroy() kill the bwrap process: pid 1 of the namespace dies and the kernel kills
every process in it; the runner then waits until no process of that pid namespace is left. The
holder blocks reading a pipe whose write end only the runner holds, so a runner killed with SIGKILL
takes its sandboxes with it. Arguments reach bwrap through `--args FD`, so /proc/1/cmdline inside
shows no host paths.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.sandbox import (
    BackendClass,
    ExecResult,
    FileRead,
    Restarted,
    SandboxCapabilities,
    SandboxRequest,
    baseimage,
    clilayer,
    host_snapshot,
    netns,
    policy,
    rootfs,
    rootphase,
)
from matchmeter.runner.sandbox.egress_forwarder import IN_SANDBOX_SOCKET
from matchmeter.schema import TaskSpec

NSENTER_NAMESPACES = ("--mount", "--net", "--pid", "--ipc", "--uts")
START_TIMEOUT_S = 10.0
AGENT_UID_BASE = 200_000  # root mode: sandbox uids come from [BASE, BASE + 100000), owning nothing on the host
VERIFIER_UID_BASE = 300_000  # root mode: the verifier's uid, from [BASE, BASE + 100000): never an agent's
NPROC_LIMIT = 512  # per sandbox uid (root mode); a fork bomb stops there instead of taking the host
FSIZE_LIMIT = 2 * 1024**3  # no single file over 2 GiB: `truncate -s 4T` fails with EFBIG
TMPFS_BYTES = 1024**3
# A minimal /dev made by hand: bwrap's own `--dev` mounts a devpts, which as a normal user makes bwrap nest
# a second user namespace that nsenter cannot use to join the others (every trial failed that way).
DEV_ARGS = [
    "--tmpfs", "/dev",
    *[arg for node in ("null", "zero", "full", "random", "urandom", "tty") for arg in ("--dev-bind", f"/dev/{node}", f"/dev/{node}")],
    "--symlink", "/proc/self/fd", "/dev/fd", "--symlink", "/proc/self/fd/0", "/dev/stdin",
    "--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink", "/proc/self/fd/2", "/dev/stderr",
    "--perms", "1777", "--tmpfs", "/dev/shm",
]
# The host's program directories: all the namespace probe shows (enough to exec `true`).
PROBE_DIRS = ("usr", "bin", "sbin", "lib", "lib64", "lib32")
# Top-level rootfs entries that a read-only bind of a CLI venv may not shadow with a tmpfs.
SYSTEM_DIRS = {"usr", "bin", "sbin", "lib", "lib64", "lib32", "etc", "var", "app", "tests", "logs", "tmp", "proc", "dev"}


def _privileged() -> bool:
    return os.geteuid() == 0


def _root_args(root: Path, binds: list[Path], writable_at: Path | None = None) -> list[str]:
    """The rootfs's top-level entries, read-only, over a tmpfs root (a ro `/` bind forbids new mount points);
    a top-level dir that must hold a read-only bind (a venv under /root) becomes an empty tmpfs instead.
    writable_at: bind each entry writable from there instead (the root verifier's overlay, whose mount only
    bwrap's namespace sees: the names come from `root`, its lower layer)."""
    tops = {b.parts[1] for b in binds if len(b.parts) > 1} - {"tmp"}  # /tmp is the sandbox's own tmpfs anyway
    clash = tops & SYSTEM_DIRS
    if clash:
        raise SandboxError(f"cannot show {sorted(clash)} from the host inside the sandbox: install the CLI elsewhere")
    args: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.name in {"proc", "dev", "tmp", "run", rootfs.MARKER} or entry.name in tops:
            continue
        if entry.is_symlink():
            args += ["--symlink", str(entry.readlink()), f"/{entry.name}"]
        elif writable_at is not None:
            args += ["--bind", str(writable_at / entry.name), f"/{entry.name}"]
        else:
            args += ["--ro-bind", str(entry), f"/{entry.name}"]
    for top in sorted(tops):
        args += ["--tmpfs", f"/{top}"]
    return args


def _bind_args(binds: list[Path]) -> list[str]:
    """Read-only binds at their host paths; bwrap would make their parents 0700 (as root), which the
    sandbox uid could not reach, so the parents are made 0755 first. After the tmpfs mounts: a CLI
    cache under /tmp lands inside the sandbox's own /tmp."""
    args: list[str] = []
    made: set[Path] = set()
    for bind in binds:
        for parent in reversed(bind.parents[:-2]):
            if parent not in made:
                made.add(parent)
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(bind), str(bind)]
    return args


def _probe_argv() -> list[str]:
    """bwrap's namespace probe, over the host's program directories only. Binding the whole host root
    would bind every mount under it too, and bwrap remounts each one read-only: a mount that goes away
    meanwhile (a container the Docker engine stops, under /var/lib/docker) fails the probe with an error
    that says nothing about namespaces."""
    args = ["bwrap", "--unshare-all", "--die-with-parent"]
    for name in PROBE_DIRS:
        entry = Path("/") / name
        if entry.is_symlink():
            args += ["--symlink", str(entry.readlink()), f"/{name}"]
        elif entry.is_dir():
            args += ["--ro-bind", str(entry), f"/{name}"]
    return [*args, shutil.which("true", path="/usr/bin:/bin") or "/bin/true"]


def _host_tool(name: str) -> str:
    return shutil.which(name, path=policy.CONTAINER_PATH) or name


def _seed_workspace(image_app: Path, app: Path, owner: int | None) -> None:
    """Copy what the image holds in /app into the fresh workspace (links kept as links: the source is the
    image's tree, not the agent's), owned by the sandbox uid; docker fills its /app volume the same way."""
    if image_app.is_symlink() or not image_app.is_dir() or not any(image_app.iterdir()):
        return
    shutil.copytree(image_app, app, symlinks=True, dirs_exist_ok=True)
    if owner is not None:
        for top, dirs, files in os.walk(app):
            for name in [*dirs, *files]:
                os.lchown(Path(top) / name, owner, owner)


def _pidns_alive(inode: int) -> list[int]:
    """Host pids still running in the pid namespace with this inode (zombies run nothing: not counted;
    the namespace's orphaned init is reaped by the host's pid 1, which may take seconds)."""
    alive = []
    for name in os.listdir("/proc"):  # noqa: PTH208 - plain os calls: this scan runs several times per trial
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}/ns/pid").st_ino != inode:  # noqa: PTH116
                    continue
                with open(f"/proc/{name}/stat", "rb") as fh:
                    if fh.read().rpartition(b")")[2].split()[0] != b"Z":
                        alive.append(int(name))
            except (OSError, IndexError):
                continue
    return alive


class _Backoff:
    """Sleeps for a poll loop: 0.5 ms first, doubling up to a ceiling. The holder shell is usually up within a
    couple of milliseconds, and a fixed 5 ms sleep was most of the time a start took (twice per trial)."""

    def __init__(self, first_s: float = 0.0005, ceiling_s: float = 0.005) -> None:
        self.next_s, self.ceiling_s = first_s, ceiling_s

    def sleep(self) -> None:
        time.sleep(self.next_s)
        self.next_s = min(self.next_s * 2, self.ceiling_s)


class BwrapSandbox(policy.HostMountedFiles):
    """One bwrap sandbox: a host temp tree plus a namespace-holding init process."""

    # No CPU/memory limits (no cgroup delegation assumed); processes and file size are bounded by rlimits.
    capabilities = SandboxCapabilities(isolated=True, network_control=True, resource_limits=False)
    app_dir = policy.APP_DIR

    def __init__(self, request: SandboxRequest, root: Path, cli_executable: str | None = None) -> None:
        self.request = request
        self.root = root
        self.cli_executable = cli_executable  # the CLI adapter's in-image executable (clilayer.py), if any
        self.base_env = baseimage.sandbox_base_env(rootfs.rootfs_env(root))
        self.dirs = policy.make_host_dirs(request.label or request.task_id)
        self.uid = AGENT_UID_BASE + secrets.randbelow(100_000) if _privileged() else os.getuid()
        self.verifier_uid = VERIFIER_UID_BASE + secrets.randbelow(100_000) if _privileged() else os.getuid()
        self.upload_owner = self.uid if _privileged() else None
        self.mounts = {policy.APP_DIR: self.dirs.app, policy.TESTS_DIR: self.dirs.tests, policy.LOGS_DIR: self.dirs.logs}
        self.layout = {"app": policy.APP_DIR, "tests": policy.TESTS_DIR, "logs": policy.LOGS_DIR}
        self._init: subprocess.Popen[bytes] | None = None
        self._lifeline_w = -1
        self._target_pid = 0
        self._pidns = 0
        self._destroyed = False
        self._lifecycle = threading.Lock()  # Ctrl-C's destroy() (main thread) vs the trial's restart()
        self.lost = False  # the namespace died while no one asked (the agent killed it)
        self._network = request.network or request.environment.network
        # A root verifier's restart moves the agent into a user namespace (rootphase.py): its identity there is not
        # one the host reads as, so both of that trial's snapshots are taken inside, by the same script.
        self._host_snapshots = not request.verifier_root
        self._slirp: netns.Slirp | None = None
        # A Harbor-format task's verifier phase: ns root over a writable overlay (rootphase.py); as a normal user
        # there is one identity and one read-only root, as for every other task.
        self.verifier_root = request.verifier_root and _privileged()
        self._overlay: rootphase.Overlay | None = None  # set by the restart into that phase
        for d in self.dirs[1:]:
            self._own(d)
        _seed_workspace(root / policy.APP_DIR.lstrip("/"), self.dirs.app, self.uid if _privileged() else None)

    def _own(self, path: Path) -> None:
        if _privileged():
            os.chown(path, self.uid, self.uid)

    def _identity_files(self) -> dict[str, bytes]:
        """/etc/passwd and /etc/group of the rootfs plus an `agent` entry for the sandbox uid (git, ssh and
        python's getpass want a name for the uid they run as); in the root verifier's phase the agent is
        AGENT_NS_UID, named only where the image has no such entry (as docker does), and the verifier is root."""
        files = {}
        v, a = self.verifier_uid, (rootphase.AGENT_NS_UID if self._overlay is not None else self.uid)
        users = f"agent:x:{a}:{a}:matchmeter agent:/tmp:/bin/bash\n" + (
            f"verifier:x:{v}:{v}:matchmeter verifier:/tmp:/bin/bash\n" if v != self.uid and self._overlay is None else "")
        groups = f"agent:x:{a}:\n" + (f"verifier:x:{v}:\n" if v != self.uid and self._overlay is None else "")
        for name, line in (("passwd", users), ("group", groups)):
            base = (self.root / "etc" / name).read_text()
            if self._overlay is not None and any(row.split(":")[2:3] == [str(a)] for row in base.splitlines()):
                line = ""
            files[f"/etc/{name}"] = (base if base.endswith("\n") else base + "\n").encode() + line.encode()
        if self._network:
            files["/etc/resolv.conf"] = netns.RESOLV_CONF
        return files

    def _argv(self, info_fd: int, data_fds: dict[str, int]) -> list[str]:
        # A network namespace of its own even for a network-on task: slirp4netns connects it (netns.py), so the
        # host's loopback services stay out of reach.
        namespaces = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--unshare-net"]
        overlay = self._overlay
        # The CLI's host venv and the gateway's socket stay after the restart into the root verifier's overlay: a
        # multi-step task's later agent phases run there (as in Harbor, in the container its verifier ran in as
        # root), and its CLI reaches its model only through the socket. The verifier holds no gateway token, and
        # the trial refuses every call between agent phases (gateway_link.settle_step).
        binds = self.request.readonly_binds
        gateway = self.request.gateway_socket
        return [
            *(_root_args(self.root, binds) if overlay is None else _root_args(overlay.lower, binds, overlay.merged)),
            *DEV_ARGS, *(overlay.dev_args() if overlay is not None else []), "--proc", "/proc", "--tmpfs", "/run",
            "--perms", "1777", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp",
            "--perms", "1777", "--size", str(TMPFS_BYTES), "--tmpfs", "/var/tmp",
            *_bind_args(binds),
            "--bind", str(self.dirs.app), policy.APP_DIR,
            "--bind", str(self.dirs.tests), policy.TESTS_DIR,
            "--bind", str(self.dirs.logs), policy.LOGS_DIR,
            *[arg for dest, fd in data_fds.items() for arg in ("--perms", "0644", "--ro-bind-data", str(fd), dest)],
            # The model gateway's socket: with no network, the sandbox's only way out (egress_forwarder.py).
            *(["--perms", "0755", "--dir", str(Path(IN_SANDBOX_SOCKET).parent),
               "--bind", str(gateway), IN_SANDBOX_SOCKET] if gateway else []),
            "--remount-ro", "/",
            # ns root's holder is pid 1 itself (no bwrap reaper whose capabilities a traced execve would regain)
            *(["--as-pid-1"] if overlay is not None else []),
            *namespaces, "--die-with-parent", "--new-session", "--chdir", policy.APP_DIR,
            "--info-fd", str(info_fd),
        ]  # fmt: skip

    def start(self) -> None:
        info_r, info_w = os.pipe()
        lifeline_r, self._lifeline_w = os.pipe()
        args_r, args_w = os.pipe()
        data_fds: dict[str, int] = {}
        userns: rootphase.UserNamespace | None = None
        launch: list[str] = []
        for dest, content in self._identity_files().items():  # small: fits a pipe buffer, written up front
            if self._overlay is not None:  # writable, like the rest of the verifier's root
                self._overlay.put(dest, content)
                continue
            data_r, data_w = os.pipe()
            os.write(data_w, content)
            os.close(data_w)
            data_fds[dest] = data_r
        payload = b"".join(a.encode() + b"\0" for a in self._argv(info_w, data_fds))
        holder = ["bash", "-c", f"read -r _ <&{lifeline_r}"]  # bash: dash takes one-digit fds only
        if self._overlay is not None:  # bwrap runs as ns root, in the mount namespace that holds the overlay
            holder = [*rootphase.HOLDER_DROP, *holder]
            userns = rootphase.UserNamespace(self.uid)
            launch = [_host_tool("nsenter"), f"--target={userns.pid}", "--user", "--", *self._overlay.mount_argv()]
        try:
            self._init = subprocess.Popen(
                [*launch, "bwrap", "--args", str(args_r), *holder], pass_fds=(info_w, lifeline_r, args_r, *data_fds.values()),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                env=dict(policy.SANDBOX_ENV),  # bwrap's pid 1 keeps this environ: never the harness's keys
            )
            with os.fdopen(args_w, "wb") as fh:
                fh.write(payload)
        except BaseException:
            if userns is not None:
                userns.release()
            raise
        finally:
            for fd in (info_w, lifeline_r, args_r, *data_fds.values()):
                os.close(fd)
        with os.fdopen(info_r, "rb") as info:
            raw = info.read()  # EOF once bwrap has set up the namespaces (or died)
        if userns is not None:
            userns.release()  # bwrap's processes hold the namespace from now on
        if not raw:
            err = self._init.stderr.read().decode(errors="replace") if self._init.stderr else ""
            raise SandboxError(f"bwrap failed to start: {err.strip()[:300]}")
        self._target_pid = self._wait_for_holder(int(json.loads(raw)["child-pid"]), as_pid_1=self._overlay is not None)
        self._pidns = Path(f"/proc/{self._target_pid}/ns/pid").stat().st_ino
        if self._network:
            self._slirp = netns.Slirp(self._target_pid, user_namespace=not _privileged() or self._overlay is not None)

    def _wait_for_holder(self, ns_init: int, as_pid_1: bool = False) -> int:
        """Host pid of the holder shell (pid 2 inside; pid 1 when bwrap runs it as pid 1, once it is bash); nsenter
        takes its root and cwd (/app)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        children = Path(f"/proc/{ns_init}/task/{ns_init}/children")
        pause = _Backoff()
        while time.monotonic() < deadline:
            try:
                if as_pid_1:
                    pids = [str(ns_init)] if Path(f"/proc/{ns_init}/comm").read_text().strip() == "bash" else []
                else:
                    pids = children.read_text().split()
                if pids and str(Path(f"/proc/{pids[0]}/cwd").readlink()) == policy.APP_DIR:
                    return int(pids[0])
            except OSError:
                pass
            if self._init is not None and self._init.poll() is not None:
                break
            pause.sleep()
        raise SandboxError("bwrap started but its init process never appeared")

    def _exec_prefix(self, as_verifier: bool = False) -> list[str]:
        # Host-side prlimit: the limits are inherited through nsenter and setpriv by everything the exec starts.
        # Host tools by absolute path: the exec's PATH is the image's, which names in-sandbox dirs.
        nproc = NPROC_LIMIT if _privileged() else 4096
        if self._overlay is not None:
            nproc = rootphase.NPROC_LIMIT
        prefix = [_host_tool("prlimit"), f"--nproc={nproc}", f"--fsize={FSIZE_LIMIT}", "--",
                  _host_tool("nsenter"), f"--target={self._target_pid}", *NSENTER_NAMESPACES, "--root", "--wd"]
        if self._overlay is not None:  # joining the user namespace makes the exec ns root; the agent drops from it
            prefix = [*prefix[:-2], "--user", *prefix[-2:], "--", "setpriv"]
            if as_verifier:
                caps = "-all," + ",".join(f"+{c}" for c in rootphase.ROOT_CAPS)
                return [*prefix, f"--bounding-set={caps}", "--inh-caps=-all", "--no-new-privs"]
            a = rootphase.AGENT_NS_UID
            return [*prefix, f"--reuid={a}", f"--regid={a}", "--clear-groups", "--bounding-set=-all", "--inh-caps=-all",
                    "--no-new-privs"]
        if not _privileged():
            # The user namespace is ours: joining it first grants the rest, as our own uid.
            return [*prefix, "--user", "--preserve-credentials", "--",
                    "setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
        if as_verifier:  # its own uid, with only the capabilities policy.VERIFIER_CAPS gives it
            caps = "-all," + ",".join(f"+{c}" for c in policy.VERIFIER_CAPS)
            return [*prefix, "--", "setpriv", f"--reuid={self.verifier_uid}", f"--regid={self.verifier_uid}",
                    "--clear-groups", f"--bounding-set={caps}", f"--inh-caps={caps}", f"--ambient-caps={caps}",
                    "--no-new-privs"]
        return [*prefix, "--", "setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]

    def alive(self) -> bool:
        return not self._destroyed and self._init is not None and self._init.poll() is None

    def exec(self, command: str, timeout_s: float, env: dict[str, str] | None = None, *,
             as_verifier: bool = False) -> ExecResult:
        if not self.alive():
            if not self._destroyed and self._init is not None:
                self.lost = True
            raise SandboxError("bwrap sandbox is not running")
        full_env = policy.sandbox_env(self.layout, self.request.env, env, self.base_env)
        if as_verifier and self._overlay is not None:
            full_env.update(policy.verifier_env(rootphase.AGENT_NS_UID, 0))
        elif as_verifier:
            full_env.update(policy.verifier_env(self.uid, self.verifier_uid))
        with policy.destroyed_on_interrupt(self):
            return policy.run_with_deadline([*self._exec_prefix(as_verifier), "bash", "-c", command], timeout_s,
                                            full_env, None)

    def snapshot(self, paths: list[str]) -> dict[str, str]:
        """Read from the host side (host_snapshot.py: no interpreter started in the sandbox) when the agent's
        identity is one the host can read as; else the snapshot script, inside."""
        if self._host_snapshots:
            identity = (self.uid, self.uid) if _privileged() else None
            taken = host_snapshot.snapshot(paths, self.dirs.app, policy.APP_DIR, identity)
            if taken is not None:
                return taken
        return self.snapshot_inside(paths)

    def snapshot_inside(self, paths: list[str]) -> dict[str, str]:
        """The snapshot script, run in the sandbox as the agent (what snapshot() falls back to)."""
        return policy.snapshot(self.exec, paths)

    def empty_then_snapshot(self, path: str, paths: Sequence[str]) -> tuple[str, dict[str, str]]:
        if not self._host_snapshots:
            return policy.empty_then_snapshot(self.exec, path, paths)
        return self._empty_on_host(path), self.snapshot(list(paths)) if paths else {}

    def _empty_on_host(self, path: str) -> str:
        """policy.empty_command from the host side (no exec): the directory's first few names, then nothing in it.
        Root removes what the agent's uid could not; no link is followed (rmtree by dir fd). A removal that fails
        (a process setup.sh left behind still writing there) is ignored, as `rm -rf … 2>/dev/null` ignores it: the
        names listed already say the directory was not empty, and the trial flags it."""
        root, rel = policy.to_host(path, self.mounts, self.app_dir)
        fd = policy.open_dir_nofollow(root, rel.parts)
        try:
            with os.scandir(fd) as entries:
                listing = sorted((entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries)
            for name, is_dir in listing:
                try:
                    if is_dir:
                        shutil.rmtree(name, dir_fd=fd)
                    else:
                        os.unlink(name, dir_fd=fd)
                except OSError:
                    continue
        except OSError as exc:
            raise SandboxError(f"could not list {path}: {exc}") from exc
        finally:
            os.close(fd)
        return "\n".join(name for name, _ in listing[:5])

    def halt(self, read: Sequence[str] = (), limit: int = 1 << 20) -> dict[str, FileRead]:
        """Kill the namespace: its pid 1 dies, the kernel kills the rest; wait until none is left. Then read `read`
        from the host side."""
        self._kill_namespace()
        return self.read_files(read, limit)

    def _kill_namespace(self) -> None:
        if self._init is not None and self._init.poll() is None:
            policy.kill_group(self._init.pid)
            self._init.wait(timeout=10)
        if self._lifeline_w >= 0:
            os.close(self._lifeline_w)
            self._lifeline_w = -1
        if self._slirp is not None:  # its namespace is gone with the sandbox's init
            self._slirp.stop()
            self._slirp = None
        if self._pidns:
            deadline = time.monotonic() + 10
            pause = _Backoff(ceiling_s=0.01)
            while (alive := _pidns_alive(self._pidns)) and time.monotonic() < deadline:
                for pid in alive:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                pause.sleep()
            if alive:
                raise SandboxError(f"{len(alive)} sandbox processes survived the kill")
            # proven empty, and it stays so: a pid namespace whose init has died admits no new process (fork
            # there fails), so restart()'s second kill and destroy() need not scan /proc again
            self._pidns = 0

    def restart(self, snapshot: Sequence[str] = ()) -> Restarted:
        with self._lifecycle:
            if self._destroyed:  # destroyed under the trial (Ctrl-C): never recreate dirs it already removed
                raise SandboxError("bwrap sandbox was destroyed")
            self._kill_namespace()  # before the listing: nothing of the agent's can add to the tests dir after it
            planted = self.planted_tests()
            self._restart()
        return Restarted(planted, self.snapshot(list(snapshot)) if snapshot else {})

    def _restart(self) -> None:
        """The agent phase is over: fresh tests and logs dirs that belong to the verifier's uid alone (0700), and
        uploads (the tests) from now on too. A root verifier (verifier_root) gets a fresh overlay whose upper dir
        the agent never had (rootphase.py)."""
        self._kill_namespace()
        owner = rootphase.ROOT_BASE if self.verifier_root else self.verifier_uid
        for name in ("tests", "logs"):
            path = getattr(self.dirs, name)
            shutil.rmtree(path, ignore_errors=True)  # symlink-safe: never follows a planted link
            path.mkdir(mode=0o700)
            if _privileged():
                os.chown(path, owner, owner)
        if _privileged():
            self.upload_owner = owner
        if self.verifier_root:
            self._overlay = rootphase.Overlay(self.dirs.root, rootphase.shifted_rootfs(self.root))
        self.start()

    def destroy(self) -> None:
        with self._lifecycle:
            if self._destroyed:
                return
            self._destroyed = True
            try:
                self._kill_namespace()
            except Exception:  # noqa: BLE001 - destroy never raises; the dirs below still go
                pass
            shutil.rmtree(self.dirs.root, ignore_errors=True)


class BwrapBackend:
    """bubblewrap: allow-listed root, no network unless declared, unprivileged uid, pids/file-size limits."""

    name = "bwrap"
    capabilities = BwrapSandbox.capabilities

    def __init__(self, base_aliases: dict[str, str] | None = None) -> None:
        self._root: Path | None = None
        self.base_aliases = dict(base_aliases or {})
        self._engine_answers: bool | None = None

    def preflight(self) -> None:
        for tool, package in (("bwrap", "bubblewrap"), ("nsenter", "util-linux"), ("setpriv", "util-linux"),
                              ("prlimit", "util-linux")):
            if shutil.which(tool) is None:
                raise UserError(f"{tool} is not installed", "--backend bwrap", f"apt-get install {package}, or use --backend docker")
        _namespaces_work()
        self.root_dir()

    def root_dir(self) -> Path:
        if self._root is None:
            from rich.console import Console

            self._root = rootfs.ensure_base_rootfs(Console(stderr=True), from_image=baseimage.BASE_IMAGE)
        return self._root

    def builds_images(self) -> bool:
        """Whether a local Docker engine answers (task images and CLI layers are built with it)."""
        if self._engine_answers is None:
            self._engine_answers = _engine_answers(os.environ.get("DOCKER_HOST", ""))
        return self._engine_answers

    def needs_engine_for(self, task: TaskSpec) -> bool:
        """An image that is more than FROM the base (aliases applied) is built and exported with an engine."""
        env = baseimage.Environment(Path(task.path) / "environment", task.environment.dockerfile, self.base_aliases)
        return env.plain != baseimage.BASE_IMAGE

    def prune(self, label: str) -> int:
        """The temp trees of this label's sandboxes (their processes died with the killed runner: bwrap
        --die-with-parent)."""
        return policy.prune_workspaces(label)

    def check_environment(self, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile") -> None:
        """Preflight of one task: a Dockerfile that does more than `FROM` the base needs its image built (or
        exported before); UserError when no engine answers or a FROM image is not local."""
        env = baseimage.Environment(environment_dir, dockerfile, self.base_aliases)
        if env.plain == baseimage.BASE_IMAGE or rootfs.is_complete(rootfs.image_rootfs_path(env.key)):
            return
        client = self._client(env)
        try:
            env.check_bases(client)
        finally:
            client.close()

    def _client(self, env: baseimage.Environment) -> Any:
        try:
            return baseimage.docker_client()
        except UserError as exc:
            raise UserError(
                f"no Docker engine answers, and this task's Dockerfile does more than FROM {baseimage.BASE_IMAGE}: "
                "bwrap runs such a task in its built image's filesystem", str(env.path),
                "start the Docker daemon (or set DOCKER_HOST) so the image can be built once, or use --backend docker",
            ) from exc

    def _root_for(self, request: SandboxRequest) -> tuple[Path, str | None]:
        """The root filesystem of this request (base, task image or CLI layer) and the CLI's in-image path."""
        env = baseimage.Environment(request.environment_dir, request.environment.dockerfile, self.base_aliases)
        cli = request.cli_install
        if cli is None and env.plain == baseimage.BASE_IMAGE:
            return self.root_dir(), None
        key = env.key if cli is None else clilayer.layer_key(env.key, cli)
        executable = clilayer.executable_path(cli) if cli is not None else None
        path = rootfs.image_rootfs_path(key)
        if rootfs.is_complete(path):
            return path, executable
        client = self._client(env)
        try:
            image = baseimage.task_image(client, request.task_id, env.dir, request.environment.dockerfile,
                                         self.base_aliases)
            if cli is not None:
                image = clilayer.layer_image(client, image, cli)
            return rootfs.ensure_image_rootfs(image, key, baseimage.image_env(client, image)), executable
        finally:
            client.close()

    def create(self, request: SandboxRequest) -> BwrapSandbox:
        root, executable = self._root_for(request)
        sandbox = BwrapSandbox(request, root, executable)
        try:
            sandbox.start()
        except BaseException:
            sandbox.destroy()
            raise
        return sandbox


@functools.cache
def _namespaces_work() -> None:
    """bwrap can make its namespaces here (UserError with the fix otherwise); asked once per process (issue 35)."""
    probe = subprocess.run(_probe_argv(), capture_output=True, text=True, timeout=20)
    if probe.returncode != 0:
        raise UserError(
            f"bwrap cannot create namespaces here: {probe.stderr.strip()[:200]}",
            "--backend bwrap",
            "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or use --backend docker",
        )


@functools.cache
def _engine_answers(docker_host: str) -> bool:
    """Whether the Docker engine at `docker_host` ($DOCKER_HOST, which docker.from_env reads) answers, asked once
    per process and engine."""
    try:
        baseimage.docker_client().close()
    except UserError:
        return False
    return True


_BACKEND_CLASS: BackendClass = BwrapBackend  # mypy --strict proves the class is a SandboxBackend
