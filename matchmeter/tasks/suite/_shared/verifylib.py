"""Verifier helpers shared by the built-in tasks (stdlib only; copied into every task's tests/).

The canonical copy lives in suite/_shared/; tests/tasks checks every copy is byte-identical.
grade() runs each subgoal check, turns any exception into a 0 for that subgoal, and always writes
$MM_LOGS/subgoals.json and $MM_LOGS/reward.txt (the weighted mean). pristine() rebuilds the task's
starting state for MM_SEED in a temp dir from the copy of setup.sh beside this file, so checks can
compare against the original data even after the agent changed the working copy.
"""

import atexit
import json
import os
import shutil
import stat as stat_module
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP = Path(os.environ.get("MM_APP") or os.getcwd())
LOGS = Path(os.environ.get("MM_LOGS") or "/logs")


def seed():
    value = os.environ.get("MM_SEED")
    if value is None:
        # Without the seed the expected state is unknown: fail as a verifier error, never as a low score.
        sys.exit("verifier error: MM_SEED is not set")
    return int(value)


def pristine():
    """The starting state for this seed, rebuilt in a fresh temp dir (removed when the verifier exits)."""
    out = Path(tempfile.mkdtemp(prefix="mm-pristine-"))
    atexit.register(shutil.rmtree, out, True)
    env = dict(os.environ, MM_APP=str(out), MM_SEED=str(seed()))
    subprocess.run(["bash", str(HERE / "setup.sh")], cwd=out, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return out


def read(path, mode="t"):
    """File content (text or bytes) relative to the workspace, or None when it is missing."""
    p = APP / path
    if not p.is_file():
        return None
    return p.read_bytes() if mode == "b" else p.read_text(encoding="utf-8", errors="replace")


def read_json(path, kind=None):
    """The JSON document at path in the workspace; raises (the check scores 0) when it is missing, invalid
    or, with kind (e.g. dict), not of that type."""
    data = json.loads(read(path))
    if kind is not None and not isinstance(data, kind):
        raise AssertionError(f"{path}: a JSON {type(data).__name__}, not a {kind.__name__}")
    return data


def sh(command, cwd=None):
    """stdout of a shell command in the workspace ('' on failure)."""
    proc = subprocess.run(["bash", "-c", command], cwd=cwd or APP, capture_output=True, text=True, timeout=60)
    return proc.stdout if proc.returncode == 0 else ""


# Verifier-side git: the agent owns the repositories it leaves behind, and git reads configuration, attributes,
# objects and hooks from many places inside one (.git/config, a `commondir` or gitfile redirecting to another
# dir, info/attributes naming a clean filter, alternates, replace refs, submodules), some of which make git run a
# program. git() therefore never runs in the agent's repository: it runs in a copy the verifier owns, made of the
# work tree and the plain parts of .git (objects, refs, HEAD, index) under a config the verifier writes, with no
# system or global config or attributes. A repository whose layout is not the plain one a task sets up (.git a
# link or a gitfile, a commondir, alternates, a link inside .git) is refused: git() returns None, as for any
# failing command. -c settings still guard git commands a verifier runs on repositories it made itself.
GIT_SAFE = ["git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
            "-c", "core.pager=cat", "-c", "safe.directory=*", "-c", "core.untrackedCache=false",
            "-c", "protocol.allow=never", "-c", "core.sshCommand=false", "-c", "credential.helper="]
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0",
           "GIT_ATTR_NOSYSTEM": "1", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_OPTIONAL_LOCKS": "0"}
# Parts of .git never copied: where git finds programs, other directories or rewritten history.
_GIT_SKIP = {"config", "config.worktree", "hooks", "info", "commondir", "gitdir", "worktrees", "modules", "shallow",
             "remotes", "branches"}
# The only settings of the agent's .git/config carried into the copy: how to read the objects and the work tree.
_GIT_KEEP = ("core.repositoryformatversion", "extensions.objectformat", "extensions.refstorage", "core.filemode",
             "core.symlinks", "core.ignorecase", "core.precomposeunicode")
_GIT_COPY_CAP = 256 * 1024 * 1024  # bytes of one repository copy: beyond, the repository is refused
_git_copies = {}


class _NotPlain(Exception):
    pass


def _copy_tree(src, dest, in_git, budget):
    """Copy src to dest without following links: directories, regular files and (in the work tree) links as
    links; fifos and devices are left out, nested .git entries (submodules, nested repos) too."""
    os.mkdir(dest, 0o700)
    with os.scandir(src) as entries:
        for entry in entries:
            name, target = entry.name, os.path.join(dest, entry.name)
            if in_git and src.endswith("/.git") and name in _GIT_SKIP:
                continue
            if in_git and name == "info" and src.endswith("/objects"):
                continue  # alternates, http-alternates: objects from elsewhere
            if not in_git and name == ".git":
                continue  # a submodule's or nested repository's git dir: never looked at
            st = entry.stat(follow_symlinks=False)
            if stat_module.S_ISLNK(st.st_mode):
                if in_git:
                    raise _NotPlain(f"{entry.path} is a link")
                os.symlink(os.readlink(entry.path), target)
            elif stat_module.S_ISDIR(st.st_mode):
                _copy_tree(entry.path, target, in_git, budget)
            elif stat_module.S_ISREG(st.st_mode):
                budget[0] -= st.st_size
                if budget[0] < 0:
                    raise _NotPlain(f"more than {_GIT_COPY_CAP} bytes")
                fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                with os.fdopen(fd, "rb") as fin, open(target, "wb") as fout:
                    shutil.copyfileobj(fin, fout)
                os.chmod(target, stat_module.S_IMODE(st.st_mode) & 0o755 | 0o600)
                os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


def _git_settings(config):
    """The _GIT_KEEP settings of the agent's config file, read by `git config --file` (no includes, runs nothing)."""
    out = []
    for key in _GIT_KEEP:
        proc = subprocess.run(["git", "config", "--file", config, "--get", key], capture_output=True, text=True,
                              timeout=10, env=dict(os.environ, **GIT_ENV))
        value = proc.stdout.strip()
        if proc.returncode == 0 and value and "\n" not in value:
            out.append((key, value))
    return out


def plain_repo_copy(repo):
    """A copy of the repository whose top is `repo`, owned by the verifier (made once per verifier run, removed
    at exit), or None when its layout is not the plain one: .git a link or a file, a commondir, alternates."""
    key = os.path.abspath(repo)
    if key in _git_copies:
        return _git_copies[key]
    copy = None
    gitdir = os.path.join(key, ".git")
    try:
        if not (stat_module.S_ISDIR(os.lstat(key).st_mode) and stat_module.S_ISDIR(os.lstat(gitdir).st_mode)):
            raise _NotPlain("not a directory with a .git directory")
        for redirect in ("commondir", "gitdir", "objects/info/alternates", "objects/info/http-alternates"):
            if os.path.lexists(os.path.join(gitdir, redirect)):
                raise _NotPlain(f".git/{redirect} points elsewhere")
        top = tempfile.mkdtemp(prefix="mm-git-")
        atexit.register(shutil.rmtree, top, True)
        copy = os.path.join(top, "repo")
        budget = [_GIT_COPY_CAP]
        _copy_tree(key, copy, False, budget)
        _copy_tree(gitdir, os.path.join(copy, ".git"), True, budget)
        settings = _git_settings(os.path.join(gitdir, "config")) if os.path.isfile(os.path.join(gitdir, "config")) else []
        for name in ("hooks", "info"):
            os.mkdir(os.path.join(copy, ".git", name))
        with open(os.path.join(copy, ".git", "config"), "w") as fh:
            for section in sorted({k.split(".")[0] for k, _ in settings} | {"core"}):
                fh.write(f"[{section}]\n")
                fh.writelines(f"\t{k.split('.', 1)[1]} = {v}\n" for k, v in settings if k.split(".")[0] == section)
                if section == "core":
                    fh.write("\tbare = false\n")
    except (_NotPlain, OSError, subprocess.SubprocessError) as exc:
        print(f"git: refusing {key}: {exc}", file=sys.stderr)
        copy = None
    _git_copies[key] = copy
    return copy


def git(cwd, *args, strip=True, raw=False):
    """stdout of `git args` on a verifier-owned copy of the repository whose top is cwd (plain_repo_copy): nothing
    in the agent's repository can make git run a program, read another repository or rewrite history. Stripped
    text, or with raw=True the exact bytes (byte-exact checks); None on failure or for a refused repository.
    The copy is made at the first call for cwd: a read-only view of the repository as the verifier first saw it."""
    copy = plain_repo_copy(cwd)
    if copy is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV, GIT_DIR=os.path.join(copy, ".git"), GIT_WORK_TREE=copy, GIT_CEILING_DIRECTORIES=os.path.dirname(copy))
    proc = subprocess.run([*GIT_SAFE, *args], cwd=copy, capture_output=True, text=not raw, timeout=30, env=env)
    if proc.returncode != 0:
        return None
    if raw:
        return proc.stdout
    return proc.stdout.strip() if strip else proc.stdout


def write_probe(name, verdict):
    """An anti-gaming probe's outcome: $MM_LOGS/probe.json {"passed", "detail"} from verdict() -> (passed,
    detail); a verdict that raises is a failed probe, never a crashed verifier."""
    try:
        passed, detail = verdict()
    except Exception as exc:
        passed, detail = False, f"probe check raised {exc!r}"
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / "probe.json").write_text(json.dumps({"passed": passed, "detail": detail}) + "\n")
    print(f"probe {name}: {'pass' if passed else 'FAIL'}: {detail}")


# Agent code a verifier runs on purpose (a service's start.sh, a report script, a replayed command line or SQL file)
# goes through run_agent_code / start_service alone: dropped to the agent's uid ($MM_AGENT_UID, set by the harness
# when the verifier has an identity of its own) with every capability gone, in its own session, with a minimal
# environment; it cannot write $MM_LOGS or read $MM_TESTS (both the verifier's, mode 0700), and everything of that
# uid is killed before grade() writes the verdict.
AGENT_UID = int(os.environ["MM_AGENT_UID"]) if os.environ.get("MM_AGENT_UID") else None
_DROP = ["--clear-groups", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


def as_agent(argv):
    """argv run as the agent's uid with no capabilities (unchanged where the verifier has no identity of its own)."""
    if AGENT_UID is None or AGENT_UID == os.getuid():
        return list(argv)
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if setpriv is None:  # never run agent code as the verifier
        raise RuntimeError("setpriv (util-linux) is missing: agent code cannot be run as the agent's uid")
    return [setpriv, f"--reuid={AGENT_UID}", f"--regid={AGENT_UID}", *_DROP, *argv]


def give_to_agent(path, writable=False):
    """Let agent code reach path (a directory the verifier made): its parents become traversable and, with
    writable, the tree belongs to the agent's uid. Nothing changes where the verifier has no identity of its own."""
    if AGENT_UID is None:
        return
    path = Path(path)
    if writable:
        for top, dirs, files in os.walk(path):
            for name in [top, *(os.path.join(top, n) for n in dirs + files)]:
                os.lchown(name, AGENT_UID, AGENT_UID)
    for parent in [path, *path.parents]:
        st = os.lstat(parent)
        if st.st_uid == os.geteuid() and not st.st_mode & 0o001:
            os.chmod(parent, stat_module.S_IMODE(st.st_mode) | 0o011)


def agent_dir(prefix="mm-agent-"):
    """A fresh temp dir that agent code run by run_agent_code may read and write (removed when the verifier exits)."""
    out = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, out, True)
    give_to_agent(out, writable=True)
    return out


def run_agent_code(argv, cwd, timeout=20, env=None, stdin=None, raw=False, writable=False):
    """Run code the agent wrote (only where the task says it is run) as the agent (as_agent), with a minimal
    environment, in its own session, and kill whatever it left behind (every process of the agent's uid: never
    while a service of start_service should still be running). cwd is made reachable (give_to_agent;
    writable: the agent's). Returns the CompletedProcess (text, or bytes with raw; returncode -9 on timeout)."""
    give_to_agent(cwd, writable)
    base = {k: os.environ[k] for k in ("PATH", "LANG") if k in os.environ}
    proc = subprocess.Popen(as_agent(argv), cwd=cwd, env={**base, "HOME": str(cwd), **(env or {})},
                            start_new_session=True, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=not raw)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, err = (b"", b"timeout") if raw else ("", "timeout")
    finally:
        kill_group(proc.pid)
        kill_agent_processes()
    return subprocess.CompletedProcess(argv, proc.returncode if proc.returncode is not None else -9, out, err)


def replay_sql(db, sql_file, timeout=30):
    """The agent's SQL file run against db (a copy the verifier made) by the sqlite3 shell in -safe mode (no
    .shell, .system, .output, .import, .open, .load), as agent code (run_agent_code). The CompletedProcess."""
    with open(sql_file, "rb") as sql:
        return run_agent_code(["sqlite3", "-safe", Path(db).name], Path(db).parent, timeout=timeout, stdin=sql,
                              raw=True, writable=True)


def kill_group(pgid):
    """SIGKILL a process group, ignoring one that is already gone."""
    import signal

    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_agent_processes():
    """SIGKILL every process of the agent's uid until none is left (a verifier with an identity of its own)."""
    import signal

    if AGENT_UID is None or AGENT_UID == os.getuid():
        return
    for _ in range(200):
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and entry.stat().st_uid == AGENT_UID:
                    found.append(int(entry.name))
            except OSError:
                continue
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def start_service(script="start.sh", wait_s=20):
    """Run the agent's start script from the workspace as agent code (as_agent; tasks whose instruction says the
    verifier does), wait for it to return, and hand back its Popen for stop_service. The verifier becomes a child
    subreaper first, so a daemon that double-forks or calls setsid is still found and killed."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    log = tempfile.TemporaryFile()
    base = {k: os.environ[k] for k in ("PATH", "LANG") if k in os.environ}
    proc = subprocess.Popen(as_agent(["bash", script]), cwd=APP, env=dict(base, HOME=str(APP)),
                            start_new_session=True, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        print(f"{script} did not return within {wait_s}s", file=sys.stderr)
    return proc


def stop_service(proc):
    """Kill the start script's process group, every process that ended up a descendant of ours, and every process
    of the agent's uid."""
    import signal

    kill_group(proc.pid)
    for _ in range(5):
        found = _descendants(os.getpid())
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    kill_agent_processes()


def _descendants(root):
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            out.append(pid)
            todo.append(pid)
    return out


def close(a, b, tol):
    return a is not None and abs(float(a) - float(b)) <= tol


def all_or_nothing(checks):
    """The checks gated on each other: a subgoal pays only when every other one is fully right. For tasks whose
    setup plants several named cases, each touching every subgoal, so that skipping any one spoils them all (a
    broken check is that subgoal's 0, as in grade())."""
    values = {}
    for name, check in checks.items():
        try:
            values[name] = min(1.0, max(0.0, float(check())))
        except Exception as exc:  # noqa: BLE001 - a broken check scores 0, never a crash
            print(f"subgoal {name}: check raised {exc!r}", file=sys.stderr)
            values[name] = 0.0
    return {name: (lambda v=v, n=name: v if all(values[o] == 1 for o in values if o != n) else 0.0)
            for name, v in values.items()}


def grade(weights, checks, cleanup=None):
    """Run checks (name -> callable returning a score in [0,1] or a bool), then cleanup() (e.g. stop
    what the verifier started), then write the two result files."""
    scores = {}
    for name in weights:
        try:
            value = float(checks[name]())
        except Exception as exc:  # a broken check is that subgoal's 0, never a crash
            print(f"subgoal {name}: check raised {exc!r}", file=sys.stderr)
            value = 0.0
        scores[name] = min(1.0, max(0.0, value))
    if cleanup is not None:
        cleanup()
    kill_agent_processes()  # no agent code the checks ran is left to touch what follows
    total = sum(weights.values())
    reward = sum(weights[n] * scores[n] for n in weights) / total
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / "subgoals.json").write_text(json.dumps(scores, indent=2, sort_keys=True) + "\n")
    (LOGS / "reward.txt").write_text(f"{reward:.6f}\n")
    for name in weights:
        print(f"{name}: {scores[name]:.3f}")
    print(f"reward: {reward:.6f}")
