"""Adversarial regression suite, run level (issue 10, item 8): the run store, Ctrl-C, a sandbox that kills itself.

Same rules as test_adversarial.py: real `matchmeter run` processes with `--agent replay`, on bwrap and
docker, judged by exit codes, timings and what is stored.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.adversary import (
    SECRET_KEY_ENV,
    SECRETS,
    Scratch,
    collect,
    files_holding,
    finish,
    leftover_containers,
    mm_run,
    redact,
    start,
)
from tests.helpers.attack_tasks import long_command_task
from tests.helpers.tasks import write_task

BACKENDS = [pytest.param("bwrap", marks=pytest.mark.bwrap), pytest.param("docker", marks=pytest.mark.docker)]
XDIST_GROUP_BY = "backend"  # the module fixture is cheap or per backend: one worker per backend (tests/conftest.py)
SLOW_SOLVE = ["sleep 4", "cp data/input.txt out.txt"]
WIDE = {"COLUMNS": "300"}  # one logical line stays one physical line in rich's output


@pytest.fixture(scope="module")
def scratch():
    s = Scratch("run")
    s.task = write_task(s.root / "tasks-copy")  # type: ignore[attr-defined]
    s.long = long_command_task(s.root / "tasks-long")  # type: ignore[attr-defined]
    yield s
    s.close()


def _args(scratch: Scratch, name: str, backend: str, commands: list[str], task: Path | None = None) -> list[str]:
    replay = scratch.root / "replays" / f"{name}.json"
    replay.parent.mkdir(exist_ok=True)
    replay.write_text(json.dumps(commands))
    return ["run", "--tasks", str(task or scratch.task), "--agent", "replay", "--replay", str(replay),  # type: ignore[attr-defined]
            "--backend", backend, "--out", str(scratch.root / "runs" / name), "--quiet", "--api-key-env", SECRET_KEY_ENV]


def _wait_for_trial(out: Path, proc, timeout_s: float = 60) -> None:  # type: ignore[no-untyped-def]
    """Until an execution of the run in `out` is in flight (its staging dir exists), then a little longer."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "executions").exists() and any(p.name.startswith(".partial-") for p in (out / "executions").iterdir()):
            time.sleep(1.0)
            return
        time.sleep(0.05)
    raise AssertionError(f"no trial of {out.name} started within {timeout_s:.0f}s")


def _table(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out / "results.parquet")


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_writer_on_one_run_dir_is_refused(scratch, backend):
    name = scratch.name(f"two-writers-{backend}")
    out = scratch.root / "runs" / name
    args = _args(scratch, name, backend, SLOW_SOLVE)
    started = time.monotonic()
    first = start(args, scratch, WIDE)
    _wait_for_trial(out, first)
    second = start([*args, "--resume"], scratch, WIDE)
    code2, _, err2, wall2, _, _ = finish(second, scratch, time.monotonic(), 60)
    code1, _, err1, _, _, _ = finish(first, scratch, started, 90)
    assert code1 == 0, redact(err1)
    assert code2 not in (0, None), f"second writer rc={code2} after {wall2:.1f}s"
    assert wall2 < 10
    assert err2.strip(), "the refused writer said nothing"
    assert err2.strip().count("\n") == 0, redact(err2)
    stored = collect(out, code1)
    assert [(r["reward"], r["failure_mode"]) for r in stored.results] == [(1.0, "none")]
    assert len(_table(out)) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_runs_sharing_a_long_name_prefix_do_not_collide(scratch, backend):
    base = scratch.name(f"prefix-{backend}-" + "x" * 40)
    names = [f"{base}-a", f"{base}-b"]
    scratch.names += names
    procs = []
    for name in names:  # the second starts while the first's trial is running (its startup prunes "its" leftovers)
        procs.append((name, time.monotonic(), start(_args(scratch, name, backend, SLOW_SOLVE), scratch)))
        _wait_for_trial(scratch.root / "runs" / name, procs[-1][2])
    for name, started, proc in procs:
        code, _, err, _, _, _ = finish(proc, scratch, started, 90)
        assert code == 0, redact(err)
        stored = collect(scratch.root / "runs" / name, code)
        assert [(r["reward"], r["failure_mode"]) for r in stored.results] == [(1.0, "none")], \
            [redact(str(r["error"])) for r in stored.results]


@pytest.mark.parametrize("backend", BACKENDS)
def test_copied_execution_dir_adds_no_row(scratch, backend):
    name = scratch.name(f"copied-exec-{backend}")
    out = scratch.root / "runs" / name
    first = mm_run(scratch, name, backend, scratch.task, ["cp data/input.txt out.txt"])  # type: ignore[attr-defined]
    assert first.returncode == 0, redact(first.stderr)
    key = first.result["execution_key"]
    shutil.copytree(out / "executions" / key, out / "executions" / f"{key}-copy")
    again = mm_run(scratch, name, backend, scratch.task, ["cp data/input.txt out.txt"], extra=("--resume",))  # type: ignore[attr-defined]
    assert again.returncode == 0, redact(again.stderr)
    table = _table(out)
    assert list(table["execution_key"]) == [key]


@pytest.mark.parametrize("backend", BACKENDS)
def test_agent_that_kills_its_sandbox_is_an_agent_failure(scratch, backend):
    name = scratch.name(f"self-kill-{backend}")
    outcome = mm_run(scratch, name, backend, scratch.task, ["kill -9 -1; sleep 1", "kill -9 1; sleep 1", "echo still-here"])  # type: ignore[attr-defined]
    assert outcome.returncode == 0, redact(outcome.stderr)
    result = outcome.result
    steps = outcome.trajectories[0]["steps"]
    sandbox_survived = any("still-here" in str(s.get("output")) for s in steps)
    assert result["failure_mode"] == ("none" if sandbox_survived else "agent_error"), redact(str(result["error"]))
    assert result["reward"] == 0.0
    assert outcome.wall_s < 30  # not three rounds of sandbox retries
    assert files_holding(outcome.out, list(SECRETS.values())) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_ctrl_c_stops_promptly_and_resume_finishes(scratch, backend):
    name = scratch.name(f"ctrl-c-{backend}")
    out = scratch.root / "runs" / name
    args = _args(scratch, name, backend, ["sleep 300"], scratch.long)  # type: ignore[attr-defined]
    started = time.monotonic()
    proc = start(args, scratch, WIDE)
    _wait_for_trial(out, proc)
    interrupted = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the foreground process group
    code, stdout, stderr, _, _, _ = finish(proc, scratch, started, (interrupted - started) + 15)
    waited = time.monotonic() - interrupted
    assert code not in (0, None, -9), f"Ctrl-C: rc={code}, stopped after {waited:.1f}s\n{redact(stderr[-6000:])}"
    assert waited < 15, f"Ctrl-C took {waited:.1f}s"
    assert "--resume" in stdout + stderr, redact(stdout + stderr)
    if backend == "docker":
        assert leftover_containers(name) == []
    assert not list(Path("/tmp").glob(f"matchmeter-{name[:30]}*")), "a temp workspace of the run was left"
    assert not list((out / "executions").glob("*/result.json")), "an interrupted execution was stored"
    # the resume runs the execution again; the replay is swapped for a quick solve so it ends soon
    (scratch.root / "replays" / f"{name}.json").write_text(json.dumps(["cp data/input.txt out.txt"]))
    resumed = start([*args, "--resume"], scratch)
    code, _, err, _, _, _ = finish(resumed, scratch, time.monotonic(), 90)
    assert code == 0, redact(err)
    assert [(r["reward"], r["failure_mode"]) for r in collect(out, code).results] == [(1.0, "none")]
