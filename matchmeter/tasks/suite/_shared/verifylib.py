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
import subprocess
import sys
import tempfile
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


# The agent owns the repos it leaves behind: its config must not run code or hide changes when the
# verifier (possibly another user) runs git there. Command-line -c wins over the repo's config.
GIT_SAFE = ["git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
            "-c", "core.pager=cat", "-c", "safe.directory=*", "-c", "core.untrackedCache=false"]
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0"}


def git(cwd, *args, strip=True, raw=False):
    """stdout of `git args` in cwd with the agent's hooks/fsmonitor disabled (stripped text, or with raw=True
    the exact bytes, for byte-exact checks); None on failure."""
    proc = subprocess.run([*GIT_SAFE, *args], cwd=cwd, capture_output=True, text=not raw, timeout=30,
                          env=dict(os.environ, **GIT_ENV))
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


def run_agent_code(argv, cwd, timeout=20, env=None):
    """Run code the agent wrote (only where the task says it is run) with a minimal environment, in its
    own session, and kill whatever it left behind. Returns the CompletedProcess (returncode -9 on timeout)."""
    base = {k: os.environ[k] for k in ("PATH", "LANG") if k in os.environ}
    proc = subprocess.Popen(argv, cwd=cwd, env=dict(base, HOME=str(cwd), **(env or {})), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, err = "", "timeout"
    finally:
        kill_group(proc.pid)
    return subprocess.CompletedProcess(argv, proc.returncode if proc.returncode is not None else -9, out, err)


def kill_group(pgid):
    """SIGKILL a process group, ignoring one that is already gone."""
    import signal

    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def start_service(script="start.sh", wait_s=20):
    """Run the agent's start script from the workspace (tasks whose instruction says the verifier does),
    wait for it to return, and hand back its Popen for stop_service. The verifier becomes a child
    subreaper first, so a daemon that double-forks or calls setsid is still found and killed."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    log = tempfile.TemporaryFile()
    base = {k: os.environ[k] for k in ("PATH", "LANG") if k in os.environ}
    proc = subprocess.Popen(["bash", script], cwd=APP, env=dict(base, HOME=str(APP)), start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        print(f"{script} did not return within {wait_s}s", file=sys.stderr)
    return proc


def stop_service(proc):
    """Kill the start script's process group and every process that ended up a descendant of ours."""
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
    total = sum(weights.values())
    reward = sum(weights[n] * scores[n] for n in weights) / total
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / "subgoals.json").write_text(json.dumps(scores, indent=2, sort_keys=True) + "\n")
    (LOGS / "reward.txt").write_text(f"{reward:.6f}\n")
    for name in weights:
        print(f"{name}: {scores[name]:.3f}")
    print(f"reward: {reward:.6f}")
