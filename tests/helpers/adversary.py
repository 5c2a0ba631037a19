"""Drive `matchmeter run` as an attacker would, and read back only what a run stores.

The adversarial suite (tests/runner/test_adversarial*.py) judges outcomes, never internals: every trial
goes through the console script with `--agent replay`, in its own session, under an address-space
limit (so a harness that reads a huge file into memory fails here instead of starving the shared
machine), with canary secrets in its environment. What comes back is the stored run directory, the
exit code, the wall time, and the peak RSS of the harness process (from wait4).
"""

from __future__ import annotations

import json
import os
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.runs import stored_results

MM = [sys.executable, "-m", "matchmeter.cli"]
# Each attack trial must end within this (a normal trial takes ~1 s on bwrap, ~3 s on docker).
BOUND_S = 90.0
# The harness may use this much address space; a 4 TiB archive or a 1.5 GB output held in memory breaks it.
HARNESS_AS_LIMIT = 3 << 30

# Canary secrets the harness knows (its environment and --api-key-env); none may reach a stored file.
SECRET_KEY_ENV = "MM_ADV_KEY"
SECRETS = {
    "OPENAI_API_KEY": f"sk-mmcanary-{secrets.token_hex(12)}",
    "ANTHROPIC_API_KEY": f"sk-ant-mmcanary-{secrets.token_hex(12)}",
    SECRET_KEY_ENV: f"mmcanary-custom-{secrets.token_hex(12)}",
}


@dataclass
class RunOutcome:
    out: Path
    returncode: int | None  # None: killed at the bound
    stdout: str
    stderr: str
    wall_s: float
    max_rss_kb: int
    max_temp_bytes: int = 0  # largest file the harness process held open in its temp dir or unlinked
    results: list[dict] = field(default_factory=list)
    trajectories: list[dict] = field(default_factory=list)

    @property
    def result(self) -> dict:
        assert len(self.results) == 1, f"expected one stored execution, found {len(self.results)}: {self.stderr[-500:]}"
        return self.results[0]

    def outputs(self) -> str:
        """Every stored step output of every execution, joined."""
        return "\n".join(str(s.get("output", "")) for t in self.trajectories for s in t.get("steps", []))


class Scratch:
    """A host directory outside /tmp (bwrap gives the sandbox a fresh /tmp, which would hide a leak)."""

    def __init__(self, tag: str) -> None:
        self.token = secrets.token_hex(3)
        self.root = Path(tempfile.mkdtemp(prefix=f"mm-adv-{tag}-", dir="/var/tmp"))
        self.tmp = Path(tempfile.gettempdir())  # the harness's temp dir (left as is: bwrap hides the host /tmp)
        self.cache = self.root / "cache"
        self.home = self.root / "home"
        for d in (self.cache, self.home):
            d.mkdir()
        self.names: list[str] = []

    def name(self, what: str) -> str:
        """A run name unique to this scratch (its first 40 characters too: labels are cut there)."""
        name = f"a{self.token}{len(self.names):03d}-{what}"
        self.names.append(name)
        return name

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ)
        env.update(SECRETS)
        env.update({"MATCHMETER_CACHE_DIR": str(self.cache), "MATCHMETER_HOME": str(self.home),
                    "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
        env.update(extra or {})
        return env

    def close(self) -> None:
        for name in self.names:
            remove_leftovers(name)
        shutil.rmtree(self.root, ignore_errors=True)


def remove_leftovers(name: str) -> None:
    """Remove containers and temp workspaces of runs named `name` (a killed harness leaves them)."""
    if shutil.which("docker"):
        proc = subprocess.run(["docker", "ps", "-a", "--format", '{{.ID}} {{.Label "matchmeter.label"}}'],
                              capture_output=True, text=True, timeout=60)
        ids = [line.split()[0] for line in proc.stdout.splitlines()
               if len(line.split()) == 2 and line.split()[1].startswith(name[:30])]
        if ids:
            subprocess.run(["docker", "rm", "-f", *ids], capture_output=True, timeout=120)
    for base in {Path(tempfile.gettempdir()), Path("/tmp")}:
        for entry in base.glob(f"matchmeter-{name[:30]}*"):
            shutil.rmtree(entry, ignore_errors=True)


def leftover_containers(name: str) -> list[str]:
    proc = subprocess.run(["docker", "ps", "-a", "--format", '{{.ID}} {{.Label "matchmeter.label"}}'],
                          capture_output=True, text=True, timeout=60)
    return [line for line in proc.stdout.splitlines() if len(line.split()) == 2 and line.split()[1].startswith(name[:30])]


def _limit_harness() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (HARNESS_AS_LIMIT, HARNESS_AS_LIMIT))


def _largest_temp_file(pid: int, temp_dir: Path) -> int:
    """Size of the largest file `pid` holds open under temp_dir or unlinked (an anonymous temp file)."""
    best = 0
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0
    for fd in fds:
        try:
            target = str(fd.readlink())
            spilled = target.startswith(str(temp_dir)) and "/app/" not in target  # not the agent's own workspace
            if spilled or (target.startswith("/") and target.endswith("(deleted)")):
                best = max(best, fd.stat().st_size)
        except OSError:
            continue
    return best


def start(args: list[str], scratch: Scratch, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start `matchmeter <args>` in its own session under the address-space limit."""
    return subprocess.Popen([*MM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=scratch.env(env), start_new_session=True, preexec_fn=_limit_harness)


def finish(proc: subprocess.Popen[str], scratch: Scratch, started: float, bound_s: float = BOUND_S) -> tuple:
    """Wait for a started harness (killing its session at the bound); return (code, out, err, wall, rss, temp)."""
    out_chunks: list[str] = []
    err_chunks: list[str] = []
    readers = [threading.Thread(target=lambda s=s, c=c: c.append(s.read()), daemon=True)
               for s, c in ((proc.stdout, out_chunks), (proc.stderr, err_chunks))]
    for r in readers:
        r.start()
    code: int | None = None
    rss_kb, max_temp = 0, 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            code, rss_kb = os.waitstatus_to_exitcode(status), usage.ru_maxrss
            proc.returncode = code
            break
        max_temp = max(max_temp, _largest_temp_file(proc.pid, scratch.tmp))
        if time.monotonic() - started > bound_s:
            os.kill(proc.pid, signal.SIGUSR1)  # the harness prints every thread's stack (cli.main): why it was stuck
            time.sleep(1.0)
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode, rss_kb = -9, usage.ru_maxrss
            break
        time.sleep(0.05)
    wall = time.monotonic() - started
    for r in readers:
        r.join(10)
    return code, "".join(out_chunks), "".join(err_chunks), wall, rss_kb, max_temp


def mm_run(scratch: Scratch, name: str, backend: str, tasks: Path, commands: list[str] | None, *,
           agent: str = "replay", extra: tuple[str, ...] = (), bound_s: float = BOUND_S,
           env: dict[str, str] | None = None) -> RunOutcome:
    """`matchmeter run` of one replay (or another agent) into scratch/runs/<name>; collect what it stored."""
    out = scratch.root / "runs" / name
    args = ["run", "--tasks", str(tasks), "--agent", agent, "--backend", backend, "--out", str(out), "--quiet",
            "--api-key-env", SECRET_KEY_ENV, *extra]
    if commands is not None:
        replay = scratch.root / "replays" / f"{name}.json"
        replay.parent.mkdir(exist_ok=True)
        replay.write_text(json.dumps(commands))
        args += ["--replay", str(replay)]
    started = time.monotonic()
    proc = start(args, scratch, env)
    code, stdout, stderr, wall, rss, temp = finish(proc, scratch, started, bound_s)
    if code is None or code < 0:
        remove_leftovers(name)
    return collect(out, code, stdout, stderr, wall, rss, temp)


def collect(out: Path, code: int | None, stdout: str = "", stderr: str = "", wall: float = 0.0, rss: int = 0,
            temp: int = 0) -> RunOutcome:
    outcome = RunOutcome(out, code, stdout, stderr, wall, rss, temp)
    for result in stored_results(out):
        outcome.results.append(json.loads(result.read_text()))
        trajectory = result.parent / "trajectory.json"
        if trajectory.exists():
            outcome.trajectories.append(json.loads(trajectory.read_text()))
    return outcome


def files_holding(root: Path, values: list[str]) -> list[str]:
    """Every file under root (any depth, any name) whose bytes contain one of values: `path: value`."""
    found = []
    needles = [v.encode() for v in values]
    for path in sorted(root.rglob("*")) if root.exists() else []:
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [f"{path.relative_to(root)}: {n.decode()}" for n in needles if n in data]
    return found


def _masked(text: str) -> str:
    for value in SECRETS.values():
        text = text.replace(value, "<secret>")
    return text


def redact_lines(text: str, keep: int = 6000) -> str:
    """Like redact, but keeping lines (a thread-stack dump) and more of the end."""
    return _masked(text)[-keep:]


def redact(text: str) -> str:
    """Show a failure without echoing secrets into the test log."""
    return re.sub(r"\s+", " ", _masked(text))[-600:]
