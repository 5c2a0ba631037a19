"""`matchmeter run` end to end through the console script: storage, resume after kill -9, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.runs import stored_results
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

MM = [sys.executable, "-m", "matchmeter.cli"]


def _mm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return run_matchmeter(*args, timeout=timeout)


def _rows(run_dir: Path) -> pd.DataFrame:
    return pd.read_parquet(run_dir / "results.parquet")


def test_run_stores_results_and_resume_skips_finished(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    write_task(tasks, "copy-b")
    out = tmp_path / "runs" / "oracle"
    first = _mm("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "local", "--seeds", "2",
                "--out", str(out), "--quiet")
    assert first.returncode == 0, first.stderr
    assert "planned 4, executed 4, skipped (already stored) 0" in " ".join(first.stdout.split())
    table = _rows(out)
    assert len(table) == 4
    assert table["execution_key"].is_unique
    assert set(table["reward"]) == {1.0}
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["task_digests"]) == {"copy-a", "copy-b"}
    for key in table["execution_key"]:
        assert (out / "executions" / key / "trajectory.json").exists()
        assert json.loads((out / "executions" / key / "trajectory.atif.json").read_text())["steps"]
    again = _mm("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "local", "--seeds", "2",
                "--out", str(out), "--quiet", "--resume")
    assert again.returncode == 0, again.stderr
    assert "executed 0, skipped (already stored) 4" in " ".join(again.stdout.split())
    # without --resume an existing run is refused, and nothing stored is touched
    refused = _mm("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "local", "--out", str(out))
    assert refused.returncode == 2
    assert "pass --resume" in refused.stderr
    assert len(_rows(out)) == 4


def _labelled_containers(run_id: str) -> list[str]:
    """This run's containers (other tests' runs may share the engine, even at the same moment)."""
    proc = subprocess.run(["docker", "ps", "-aq", "--filter", "label=matchmeter=1", "--filter",
                           f"label=matchmeter.label={run_id}"], capture_output=True, text=True)
    return proc.stdout.split()


@pytest.mark.slow
@pytest.mark.parametrize("backend", [pytest.param("bwrap", marks=pytest.mark.bwrap),
                                     pytest.param("docker", marks=pytest.mark.docker)])
def test_kill_9_then_resume_runs_every_execution_exactly_once(tmp_path, backend):
    tasks = tmp_path / "tasks"
    write_task(tasks, "slow-copy")
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(["sleep 1", "cp data/input.txt out.txt"]))
    out = tmp_path / "runs" / "killed"
    args = ["run", "--tasks", str(tasks), "--agent", "replay", "--replay", str(replay), "--backend", backend,
            "--seeds", "8", "--concurrency", "2", "--out", str(out), "--quiet"]
    proc = subprocess.Popen([*MM, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    executions = out / "executions"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until some executions finished and others are in flight
        if len(stored_results(out)) >= 2:
            break
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_before = len(stored_results(out))
    assert 2 <= finished_before < 8
    resumed = _mm(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"executed {8 - finished_before}, skipped (already stored) {finished_before}" in " ".join(resumed.stdout.split())
    table = _rows(out)
    assert len(table) == 8
    assert table["execution_key"].is_unique
    assert sorted(table["seed"]) == list(range(8))
    assert set(table["reward"]) == {1.0}
    assert not [p for p in executions.iterdir() if p.name.startswith(".partial-")]
    if backend == "docker":
        assert _labelled_containers(json.loads((out / "manifest.json").read_text())["run_id"]) == []


def test_bad_inputs_are_one_line_and_nonzero(tmp_path):
    tasks = tmp_path / "tasks"
    good = write_task(tasks, "good")
    bad_backend = _mm("run", "--tasks", str(good), "--agent", "oracle", "--backend", "nosuch", "--out", str(tmp_path / "r1"))
    assert bad_backend.returncode == 2
    assert bad_backend.stderr.strip().count("\n") == 0
    assert "unknown sandbox backend 'nosuch'" in bad_backend.stderr
    bad_weight = write_task(tmp_path / "bad", "bad-weight")
    toml = (bad_weight / "task.toml").read_text().replace("weight = 3", "weight = -1")
    (bad_weight / "task.toml").write_text(toml)
    weight = _mm("run", "--tasks", str(bad_weight), "--agent", "oracle", "--backend", "local", "--out", str(tmp_path / "r2"))
    assert weight.returncode == 2
    assert "weight" in weight.stderr
    assert weight.stderr.strip().count("\n") == 0
    missing = write_task(tmp_path / "bad2", "bad-family")  # a missing family defaults to "imported" (Harbor)
    (missing / "task.toml").write_text((missing / "task.toml").read_text().replace('"terminal"', '"shell"'))
    field = _mm("run", "--tasks", str(missing), "--agent", "oracle", "--backend", "local", "--out", str(tmp_path / "r3"))
    assert field.returncode == 2
    assert "source_family" in field.stderr
    assert not (tmp_path / "r2").exists()
    assert not (tmp_path / "r3").exists()


def test_unknown_agent_is_one_line(tmp_path):
    good = write_task(tmp_path / "tasks", "good")
    proc = _mm("run", "--tasks", str(good), "--agent", "nosuch", "--backend", "local", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "unknown agent 'nosuch'" in proc.stderr


def test_tasks_check_reports_oracle_and_nop(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    ok = _mm("tasks", "check", str(tasks), "--backend", "local", "--seeds", "2")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "2/2 task×seed checks pass" in ok.stdout
    # a task whose verifier passes with no work at all must fail the check (nop scores 1.0)
    lazy = write_task(tmp_path / "lazy", "lazy", test_sh='echo 1.0 > "$MM_LOGS/reward.txt"\n')
    bad = _mm("tasks", "check", str(lazy), "--backend", "local", "--seeds", "1")
    assert bad.returncode == 1
    assert "0/1 task×seed checks pass" in bad.stdout


def test_spend_cap_stops_cleanly_and_resume_finishes(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    out = tmp_path / "runs" / "capped"
    args = ["run", "--tasks", str(tasks), "--agent", "bash", "--model", "sim/expert", "--backend", "local",
            "--seeds", "3", "--out", str(out), "--quiet"]
    capped = _mm(*args, "--spend-cap", "0.0000001")
    assert capped.returncode == 2
    assert "spend cap reached" in capped.stderr
    assert "resume with --resume and a higher --spend-cap" in capped.stderr
    stored = len(stored_results(out))
    assert stored < 3
    assert not [p for p in (out / "executions").iterdir() if p.name.startswith(".partial-") and (p / "result.json").exists()]
    resumed = _mm(*args, "--resume", "--spend-cap", "10")
    assert resumed.returncode == 0, resumed.stderr
    table = _rows(out)
    assert len(table) == 3
    assert table["execution_key"].is_unique
    assert set(table["failure_mode"]) == {"none"}
    assert table["simulated"].all()
    spent = json.loads((out / "spend.json").read_text())
    assert spent["spent_usd"] > 0


def test_sigusr1_prints_every_threads_stack_and_the_run_goes_on(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "slow-copy")
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(["sleep 3", "cp data/input.txt out.txt"]))
    out = tmp_path / "runs" / "stack"
    proc = subprocess.Popen([*MM, "run", "--tasks", str(tasks), "--agent", "replay", "--replay", str(replay),
                             "--backend", "local", "--out", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any((out / "executions").glob(".partial-*")):
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGUSR1)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "Thread 0x" in stderr
    assert "execute_plan" in stderr  # the main thread waits on the trials
    assert "run_trial" in stderr  # a trial thread runs the replay
    assert "executed 1" in " ".join(stdout.split())


def test_tasks_check_says_which_subgoal_the_oracle_missed(tmp_path):
    """A failing check names what to read first: an oracle below 1.0 with no error lists its subgoals below 1."""
    task = write_task(tmp_path / "tasks", "half-right")
    (task / "solution" / "solve.sh").write_text("echo wrong > out.txt\n")  # written, wrong content
    bad = run_matchmeter("tasks", "check", str(task), "--backend", "local", "--seeds", "1",
                         env={**os.environ, "COLUMNS": "300"}, timeout=300)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "oracle 0.75 (content_right 0.00)" in bad.stdout
    assert "0/1 task×seed checks pass" in bad.stdout
