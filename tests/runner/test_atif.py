"""ATIF export: conforms to tests/data/atif-v1.4.schema.json, per-step metrics from model calls, tool calls
in ATIF's shape, a never-empty step list, and `--agent replay` reads an ATIF file back into the same
commands (run end to end in a real bwrap sandbox through `matchmeter run`)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from matchmeter.runner.agents.replay import load_commands
from matchmeter.runner.atif import ATIF_VERSION, commands_from_atif, to_atif
from matchmeter.schema import Cost, ModelCall, Step, TokenUsage, Trajectory
from tests.helpers.atif import atif_problems

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(s: float) -> datetime:
    return T0 + timedelta(seconds=s)


def two_call_trajectory() -> Trajectory:
    calls = [ModelCall(index=0, model="openai/m", reported_model="m-2026", started_at=at(0),
                       tokens=TokenUsage(input=100, cached_input=20, output=10, reasoning=5), cost=Cost(usd=0.01)),
             ModelCall(index=1, model="openai/m", started_at=at(10), tokens=TokenUsage(input=200, output=3),
                       cost=Cost(usd=None, null_reason="unknown model price"))]
    steps = [Step(index=0, command="ls -la", output="a\nb\n", exit_code=0, started_at=at(1), ended_at=at(2)),
             Step(index=1, tool_call={"name": "edit", "path": "x.py"}, output="ok", started_at=at(3), ended_at=at(3)),
             Step(index=2, command="cat x.py", output="", exit_code=1, started_at=at(11), ended_at=at(12))]
    return Trajectory(agent="bash", model="openai/m", steps=steps, model_calls=calls, final_message="done")


def test_export_validates_and_carries_per_step_metrics_and_tool_calls():
    doc = to_atif(two_call_trajectory(), session_id="key1", agent_version="1.2.3", instruction="Do it.")
    assert atif_problems(doc) == []
    assert doc["schema_version"] == ATIF_VERSION
    assert doc["agent"] == {"name": "bash", "version": "1.2.3", "model_name": "openai/m"}
    user, first, second = doc["steps"]
    assert (user["source"], user["message"]) == ("user", "Do it.")
    assert (first["metrics"]["prompt_tokens"], first["metrics"]["completion_tokens"]) == (120, 15)
    assert (first["metrics"]["cached_tokens"], first["metrics"]["cost_usd"], first["model_name"]) == (20, 0.01, "m-2026")
    assert first["tool_calls"] == [
        {"tool_call_id": "call_1", "function_name": "bash", "arguments": {"command": "ls -la"}},
        {"tool_call_id": "call_2", "function_name": "edit", "arguments": {"path": "x.py"}}]
    assert [r["source_call_id"] for r in first["observation"]["results"]] == ["call_1", "call_2"]
    assert "cost_usd" not in second["metrics"]  # unknown cost is absent, never 0
    assert second["metrics"]["extra"]["cost_null_reason"] == "unknown model price"
    assert (second["message"], second["extra"]["actions"][0]["exit_code"]) == ("done", 1)
    assert doc["final_metrics"] == {"total_prompt_tokens": 320, "total_completion_tokens": 18,
                                    "total_cached_tokens": 20, "total_steps": 3}


def test_empty_trajectory_is_one_user_step_and_valid():
    doc = to_atif(Trajectory(agent="nop"), session_id="k", agent_version="matchmeter-0.1.0", instruction="Task.")
    assert atif_problems(doc) == []
    assert [s["source"] for s in doc["steps"]] == ["user"]
    assert doc["final_metrics"]["total_steps"] == 1


def test_schema_catches_the_old_export_shape():
    old = {"schema_version": "ATIF-v1.2", "agent": {"name": "aider", "model_name": None}, "steps": [],
           "final_metrics": {"total_steps": 0}}
    problems = "\n".join(atif_problems(old))
    for expected in ("'session_id' is a required property", "'version' is a required property",
                     "steps: [] should be non-empty"):
        assert expected in problems
    bad_step = to_atif(two_call_trajectory(), session_id="k", agent_version="v", instruction="x")
    bad_step["steps"][0]["metrics"] = {"prompt_tokens": 1}
    bad_step["steps"][1]["tool_calls"][0] = {"name": "bash", "command": "ls"}
    problems = atif_problems(bad_step)
    assert [p.split(":")[0] for p in problems] == ["steps/0"] + ["steps/1/tool_calls/0"] * 4, problems
    assert "Additional properties are not allowed ('command', 'name' were unexpected)" in "\n".join(problems)


def test_commands_from_atif_keep_order_and_skip_other_tools():
    doc = to_atif(two_call_trajectory(), session_id="k", agent_version="v", instruction="x")
    assert commands_from_atif(doc) == ["ls -la", "cat x.py"]


@pytest.mark.bwrap
def test_replay_of_an_atif_file_reproduces_the_run_commands(tmp_path):
    from tests.helpers.tasks import write_task

    task_dir = write_task(tmp_path / "tasks")
    commands = ["echo one > made.txt", "cat made.txt", "false || echo recovered"]
    (tmp_path / "cmds.json").write_text(json.dumps(commands))
    mm = [sys.executable, "-m", "matchmeter.cli", "run", "--backend", "bwrap", "--agent", "replay", "--quiet"]

    def run(replay: str, out: str):
        proc = subprocess.run([*mm, "--replay", replay, "--out", str(tmp_path / out), "--tasks", str(task_dir)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-800:]
        atif_files = list((tmp_path / out).rglob("trajectory.atif.json"))
        assert len(atif_files) == 1
        return atif_files[0]

    first = run(str(tmp_path / "cmds.json"), "run1")
    assert load_commands(first) == commands
    second = run(str(first), "run2")
    replayed = json.loads(second.read_text())
    assert commands_from_atif(replayed) == commands
    outputs = [r["content"] for s in replayed["steps"] for r in (s.get("observation") or {}).get("results", [])]
    assert outputs == ["", "one\n", "recovered\n"]
