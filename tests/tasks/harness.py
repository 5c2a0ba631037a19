"""Run a task's scripts directly on the host (no sandbox): the fast local check of the suite.

Each `Trial` gets a network namespace of its own (loopback only), so trials running at once on
other pytest workers never reach each other's services on a seeded port. Every process in that
namespace (a double-forked setsid daemon included) is killed before the verifier runs, as in a
trial, and at the end; nothing outlives a `Trial`.

Under pytest the seeded starting state is made once per (task digest, seed) and copied from then on
(tests/conftest.py names the session's cache directory in MM_TEST_SETUP_CACHE).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from matchmeter.schema import TaskSpec, Trap
from matchmeter.tasks.loader import builtin_suite_dir, stage_setup, task_files, verify_support_files
from matchmeter.tasks.oracle import stage_oracle
from matchmeter.tasks.seeding import script_env, task_digest, tree_files

# The variable naming the oracle's solve.sh for a checks/ script (not MM_*: the runner's scripts never see it).
ORACLE_ENV = "ORACLE_SH"
# (kind "file" | "link" | "dir", bytes or link target, permission bits, mtime in ns) of one path.
Entry = tuple[str, bytes, int, int]


class Verdict(NamedTuple):
    reward_txt: float
    subgoals: dict[str, float]
    weighted: float  # task.toml-weighted mean of subgoals.json, as the runner grades
    log: str


class Trial:
    """Temp app/tests/logs dirs for one (task, seed); use as a context manager."""

    def __init__(self, task: TaskSpec, seed: int) -> None:
        self.task, self.seed = task, seed
        self.root = Path(tempfile.mkdtemp(prefix=f"mm-{task.id}-{seed}-"))
        self.app, self.tests, self.logs = (self.root / n for n in ("app", "tests", "logs"))
        for d in (self.app, self.tests, self.logs):
            d.mkdir()
        self.holder, self.enter = _network_namespace()
        self.netns = str(Path(f"/proc/{self.holder.pid}/ns/net").readlink())

    def __enter__(self) -> Trial:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill_all()
        self.holder.kill()
        self.holder.communicate()
        shutil.rmtree(self.root, ignore_errors=True)

    def kill_all(self) -> None:
        """SIGKILL every process in this trial's network namespace but its holder, until none is left
        (a process may fork while its parent dies; a dying one may still hold its port)."""
        for _ in range(500):
            found = [pid for pid in _pids_in(self.netns) if pid != self.holder.pid]
            if not found:
                return
            for pid in found:
                _kill_if_in(pid, self.netns)
            time.sleep(0.01)
        raise AssertionError(f"{self.task.id} seed {self.seed}: processes {found} survive SIGKILL")

    def env(self) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("MM_")}
        return base | script_env(self.seed, str(self.app), str(self.tests), str(self.logs))

    def bash(self, args: list[str], timeout_s: float = 120,
             extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.Popen([*self.enter, "bash", *args], cwd=self.app, env=self.env() | (extra_env or {}),
                                start_new_session=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out, _ = proc.communicate(timeout=timeout_s)
        return subprocess.CompletedProcess(args, proc.returncode, out, "")

    def setup(self, fresh: bool = False) -> None:
        """The seeded starting state: copied from the session's cache when it holds this (task, seed),
        else made by the setup script, staged as the runner uploads it (always so when fresh), and then
        stored there if it can be reused."""
        cached = None if fresh else _cached_setup(self.task, self.seed)
        if cached is not None and cached.is_dir():
            _copy_tree(cached, self.app)
            return
        staged = self.root / "env"
        shutil.rmtree(staged, ignore_errors=True)
        script = stage_setup(self.task, staged)
        if script is None:  # no setup script (a Harbor-layout task): the state is the empty workspace
            return
        proc = self.bash([str(script)])
        assert proc.returncode == 0, f"setup.sh failed for {self.task.id} seed {self.seed}:\n{proc.stdout}"
        if cached is not None and self._reusable():
            self.kill_all()  # nothing setup.sh started may still be writing
            tmp = Path(tempfile.mkdtemp(prefix=f".{cached.name}-", dir=cached.parent))
            _copy_tree(self.app, tmp)
            try:
                tmp.rename(cached)  # atomic: another worker may have stored the same state meanwhile
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)

    def _pristine_from_cache(self) -> None:
        """Let the verifier's own rebuild of the starting state (verifylib.pristine()) copy it from the
        session cache too: its setup.sh becomes a stand-in that serves the cached state for exactly the call
        pristine() makes and runs the real setup.sh (kept beside it) for any other."""
        cached = _cached_setup(self.task, self.seed)
        setup = self.tests / "setup.sh"
        if cached is None or verify_support_files(self.task).get("setup.sh") != task_files(self.task).setup:
            return  # outside pytest, or the task ships a setup.sh of its own in tests/
        setup.rename(self.tests / "setup.real.sh")
        prefix = shlex.quote(str(cached)[: -len(str(self.seed))])
        setup.write_text(_SETUP_STAND_IN.format(prefix=prefix))

    def _reusable(self) -> bool:
        """A state is copied to another path only when it does not name this trial's paths (a config file,
        an absolute symlink), holds no git work tree and setup.sh left nothing beside the workspace. A git
        index caches each file's inode and ctime, which a copy changes: `git apply --index` then refuses
        files that do not match it, where a fresh setup.sh leaves a matching index."""
        if any(self.tests.iterdir()) or any(self.logs.iterdir()):
            return False
        needle = str(self.root).encode()
        for dirpath, dirnames, filenames in os.walk(self.app):
            for name in filenames + dirnames:
                path = Path(dirpath) / name
                if name == ".git":
                    return False
                if path.is_symlink():
                    if needle in os.fsencode(path.readlink()):
                        return False
                elif path.is_file() and needle in path.read_bytes():
                    return False
        return True

    def oracle(self) -> Path:
        """The oracle's solve.sh, staged once per trial outside the workspace as the oracle agent stages it
        (matchmeter/tasks/oracle.py): the task's own solution/, or solve.sh written from its first reference path."""
        staged = self.root / "solution"
        if not staged.is_dir():
            stage_oracle(self.task, staged)
        return staged / "solve.sh"

    def solve(self) -> str:
        proc = self.bash([str(self.oracle())])
        assert proc.returncode == 0, f"solve.sh failed for {self.task.id} seed {self.seed}:\n{proc.stdout}"
        return proc.stdout

    def run_check(self, script: Path) -> str:
        """Run a checks/ script exactly as the oracle runs solve.sh (bash, cwd = workspace), with ORACLE_SH
        naming the oracle's staged solve.sh: generic checks build on it (suite/_shared/checks/).

        Its exit status is ignored: a cheap shot may fail half way, the verifier still scores what it left.
        """
        return self.bash([str(script)], extra_env={ORACLE_ENV: str(self.oracle())}).stdout

    def run_reference(self, index: int = 0) -> None:
        for command in self.task.reference_paths[index].commands:
            proc = self.bash(["-c", command])
            assert proc.returncode == 0, f"{self.task.id} reference command failed: {command}\n{proc.stdout}"

    def snapshot(self) -> dict[str, Entry]:
        """Relative path -> (kind, bytes or link target, mode, mtime_ns) for every file, symlink and
        directory under the workspace."""
        return tree_snapshot(self.app)

    def apply(self, changes: dict[str, Entry | None]) -> None:
        """Write a snapshot diff onto the workspace: None deletes, other entries replace (directory
        modes last, so a read-only directory does not block its children)."""
        for rel in sorted((r for r, e in changes.items() if e is None), reverse=True):
            _remove(self.app / rel)
        dirs = []
        for rel, entry in sorted((r, e) for r, e in changes.items() if e is not None):
            path = self.app / rel
            kind, data, mode, mtime_ns = entry
            if kind == "dir":
                if not path.is_dir() or path.is_symlink():
                    _remove(path)
                    path.mkdir(parents=True)
                dirs.append((path, mode))
                continue
            _remove(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "link":
                path.symlink_to(data.decode())
            else:
                path.write_bytes(data)
                path.chmod(mode)
                os.utime(path, ns=(mtime_ns, mtime_ns))
        for path, mode in reversed(dirs):
            path.chmod(mode)

    def app_digest(self) -> str:
        """Digest of the workspace; git's index is left out because it caches file stat times."""
        h = hashlib.sha256()
        for path in tree_files(self.app):
            rel = path.relative_to(self.app).as_posix()
            if rel.endswith(".git/index"):
                continue
            h.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        return h.hexdigest()

    def verify(self) -> Verdict:
        # As in a trial, nothing the agent phase started is still running when the verifier starts.
        self.kill_all()
        shutil.copytree(task_files(self.task).tests_dir, self.tests, dirs_exist_ok=True)
        for name, host in verify_support_files(self.task).items():  # as the runner supplies them
            shutil.copyfile(host, self.tests / name)
        self._pristine_from_cache()
        proc = self.bash([str(self.tests / "test.sh")])
        reward_file, subgoal_file = self.logs / "reward.txt", self.logs / "subgoals.json"
        assert reward_file.is_file(), f"verifier wrote no reward.txt:\n{proc.stdout}"
        assert subgoal_file.is_file(), f"verifier wrote no subgoals.json:\n{proc.stdout}"
        scores = json.loads(subgoal_file.read_text())
        weights = {g.name: g.weight for g in self.task.subgoals}
        assert set(scores) == set(weights), f"subgoals.json keys {sorted(scores)} != task.toml {sorted(weights)}"
        weighted = sum(weights[n] * scores[n] for n in weights) / sum(weights.values())
        return Verdict(float(reward_file.read_text()), scores, weighted, proc.stdout)


# $MM_TESTS/setup.sh in a harness trial: verifylib.pristine() runs it in an empty temp dir (cwd = MM_APP) with
# only the script variables set; that state is the cached one for MM_SEED. Any other call (another dir, an
# extra MM_* variable such as MM_TRUTH_OUT, a seed not cached) runs the real setup.sh.
_SETUP_STAND_IN = """#!/usr/bin/env bash
cache={prefix}"$MM_SEED"
shopt -s nullglob dotglob
here=("$PWD"/*)
serve=1
[ -d "$cache" ] && [ "$PWD" -ef "${{MM_APP:-}}" ] && [ ${{#here[@]}} -eq 0 ] || serve=0
for name in $(compgen -e); do
    case $name in MM_SEED|MM_APP|MM_TESTS|MM_LOGS) ;; MM_*) serve=0 ;; esac
done
[ $serve = 1 ] && exec cp -a -- "$cache/." "$PWD/"
exec bash "$(dirname "$0")/setup.real.sh" "$@"
"""


def tree_snapshot(root: Path) -> dict[str, Entry]:
    """Relative path -> (kind, bytes or link target, mode, mtime_ns) for every file, symlink and directory
    under root."""
    out: dict[str, Entry] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            rel, st = path.relative_to(root).as_posix(), path.lstat()
            if path.is_symlink():
                out[rel] = ("link", str(path.readlink()).encode(), 0, 0)
            elif path.is_dir():
                out[rel] = ("dir", b"", stat.S_IMODE(st.st_mode), 0)
            elif path.is_file():
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(st.st_mode), st.st_mtime_ns)
    return out


def check_scripts(task: TaskSpec) -> dict[str, list[Path]]:
    """The task's checks/ scripts by kind: "cheap" (must score <= 0.3) and "alt" (must score 1.0)."""
    checks = Path(task.path) / "checks"
    found = sorted(checks.glob("*.sh")) if checks.is_dir() else []
    return {kind: [p for p in found if p.name.startswith(f"{kind}-")] for kind in ("cheap", "alt")}


def trap_cheap_script(trap: Trap) -> str:
    """The checks/ script that ignores just this trap (tests/tasks/test_traps.py runs it on seeds 0-4)."""
    return trap.cheap or f"cheap-trap-{trap.name}.sh"


def trap_cheap_scripts(task: TaskSpec) -> set[str]:
    """Every checks/ script test_traps.py runs as a trap's cheap shot: `cheap-trap-*.sh` and any a trap names."""
    checks = Path(task.path) / "checks"
    found = {p.name for p in checks.glob("cheap-trap-*.sh")} if checks.is_dir() else set()
    return found | {trap_cheap_script(t) for t in task.traps}


def _network_namespace() -> tuple[subprocess.Popen[str], list[str]]:
    """A holder process alone in a new network namespace with loopback up, and the command prefix that
    runs a command in that namespace. Root needs nothing more; anyone else gets a user namespace that
    maps only their own uid, so no capability survives exec and scripts see the permissions they would
    see without it."""
    if os.geteuid() == 0:
        create, enter = ["unshare", "--net"], ["--net"]
    else:
        create = ["unshare", "--user", "--map-current-user", "--net", "--keep-caps"]
        enter = ["--user", "--net", "--preserve-credentials"]
    ip = shutil.which("ip", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))
    if ip is None:
        raise RuntimeError("host trials need `ip` (iproute2) to bring up loopback in their network namespace: "
                           "apt-get install iproute2")
    # The holder waits on its stdin, so it also ends when the test process dies without cleaning up.
    holder = subprocess.Popen([*create, "--", "sh", "-c", f"{ip} link set lo up && echo up && exec cat >/dev/null"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    if holder.stdout.readline() != "up\n":
        holder.kill()
        _, err = holder.communicate()
        raise RuntimeError(f"host trials run in a network namespace of their own, and `{' '.join(create)}` failed: "
                           f"{err.strip()}; run as root or allow unprivileged user namespaces")
    return holder, ["nsenter", f"--target={holder.pid}", *enter, "--"]


def _pids_in(netns: str) -> list[int]:
    """Processes whose network namespace is netns (zombies have none, so the dead are not listed)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if str(Path(entry.path, "ns", "net").readlink()) == netns:
                    found.append(int(entry.name))
            except OSError:
                continue  # gone, or another user's
    return found


def _kill_if_in(pid: int, netns: str) -> None:
    """SIGKILL pid through a pidfd, after checking it is still in netns (so a recycled pid is left alone)."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if str(Path(f"/proc/{pid}/ns/net").readlink()) == netns:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(fd)


SETUP_CACHE_ENV = "MM_TEST_SETUP_CACHE"  # MM_*: Trial.env() keeps it from the scripts

# The interpreter the sandbox images run task scripts with (Debian bookworm's, rootfs.py).
SYSTEM_PYTHON3 = Path("/usr/bin/python3")


def resolved_python3() -> str | None:
    """The interpreter `python3` on PATH runs, through any wrapper (a pyenv shim); None if there is none."""
    found = shutil.which("python3")
    if found is None:
        return None
    try:
        real = subprocess.run([found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True,
                              timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return real or None


def host_trials_python3() -> str | None:
    """The `python3` host trials' scripts should get: the images' own when the host has it (it also starts
    without pyenv's site-packages and their .pth files: 13 ms against 44 ms here), else `resolved_python3()`."""
    if SYSTEM_PYTHON3.is_file() and os.access(SYSTEM_PYTHON3, os.X_OK):
        return str(SYSTEM_PYTHON3)
    return resolved_python3()


_SUITE_KEYS: dict[str, str] = {}


def _setup_key(task: TaskSpec) -> str:
    """The runner's task digest (task directory and the shared files beside its tests). Once per process for
    a built-in task, whose files no test changes; every time for others (a test may edit its own task)."""
    if not Path(task.path).is_relative_to(builtin_suite_dir()):
        return task_digest(Path(task.path), verify_support_files(task))[:20]
    if task.path not in _SUITE_KEYS:
        _SUITE_KEYS[task.path] = task_digest(Path(task.path), verify_support_files(task))[:20]
    return _SUITE_KEYS[task.path]


def _cached_setup(task: TaskSpec, seed: int) -> Path | None:
    """Where this (task, seed)'s starting state is (or will be) cached; None outside a pytest session."""
    root = os.environ.get(SETUP_CACHE_ENV)
    if not root:
        return None
    return Path(root) / f"{task.id}-{_setup_key(task)}-{seed}"


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy src's contents into the existing dst keeping modes, mtimes, symlinks and hard links."""
    proc = subprocess.run(["cp", "-a", "--", f"{src}/.", f"{dst}/"], capture_output=True, text=True)
    assert proc.returncode == 0, f"cp -a {src} {dst} failed: {proc.stderr}"


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def snapshot_diff(before: dict[str, Entry], after: dict[str, Entry]) -> dict[str, Entry | None]:
    """What turned before into after: created or changed entries, and None for deleted ones."""
    diff: dict[str, Entry | None] = {k: v for k, v in after.items() if before.get(k) != v}
    diff.update({k: None for k in before if k not in after})
    return diff
