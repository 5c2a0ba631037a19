"""Claude Code 2.1.327 (the native binary bundled in the claude-agent-sdk 0.2.184 wheel, run from its image
layer) driving the offline `sim/` personas through the model gateway, on docker and bwrap.

The personas answer Claude Code's streamed Anthropic Messages requests with calls of its own Bash tool
(llm/sim.py, the tools dialect); the gateway carries tool_use/tool_result both ways (llm/gateway_wire.py).
These are whole `matchmeter run`s on built-in tasks: the CLI's steps are the persona's plan, tokens and cost
come from the gateway's meter (which the CLI's own account matches), the effective-model check passes, and
no host key nor gateway token is in any stored file. Each run takes about 15-25 s a trial here (see the
printed wall time); the layer is built once per machine by the session fixture (about 40 s cold).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from matchmeter.llm.gateway import TOKEN_PREFIX
from matchmeter.llm.sim import build_plan
from matchmeter.runner.agents.adapters.model_check import TRUST_FLAG
from matchmeter.schema import Description
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks
from tests.helpers.clis import machine_clis_dir
from tests.helpers.warm_cli import run_matchmeter

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.docker]
BACKENDS = ["docker", pytest.param("bwrap", marks=pytest.mark.bwrap)]
TASKS = ("cleanup-old-tmp", "commit-special-message")
HOST_KEYS = {"ANTHROPIC_API_KEY": "sk-ant-live-HOST-KEY-4f1c0e", "OPENAI_API_KEY": "sk-live-HOST-KEY-9b2e71"}


@pytest.fixture(scope="session")
def claude_layer() -> dict[str, Any]:
    """Claude Code's image layer on the base image: the wheel fetched and the layer built once per machine."""
    from matchmeter.runner.agents.adapters import cli_install
    from matchmeter.runner.run import configuration_from_flags
    from matchmeter.runner.sandbox import baseimage, clilayer

    root = machine_clis_dir()
    previous = os.environ.get("MATCHMETER_CLIS_DIR")
    os.environ["MATCHMETER_CLIS_DIR"] = str(root)
    client = baseimage.docker_client()
    started = time.monotonic()
    try:
        cli = cli_install(configuration_from_flags("claude-code", "sim/expert"))
        assert cli is not None
        tag = clilayer.layer_image(client, baseimage.BASE_IMAGE, cli)
    finally:
        client.close()
        if previous is None:
            os.environ.pop("MATCHMETER_CLIS_DIR", None)
        else:
            os.environ["MATCHMETER_CLIS_DIR"] = previous
    return {"root": root, "cli": cli, "tag": tag, "s": time.monotonic() - started}


def _run(claude_layer, out: Path, persona: str, backend: str) -> list[tuple[dict, dict]]:
    env = {**os.environ, "MATCHMETER_CLIS_DIR": str(claude_layer["root"]), **HOST_KEYS}
    started = time.monotonic()
    proc = run_matchmeter("run", "--agent", "claude-code", "--model", f"sim/{persona}", "--backend", backend,
                          *[a for t in TASKS for a in ("--task", t)], "--out", out, env=env, timeout=900)
    print(f"\nclaude-code x sim/{persona} on {backend}: {len(TASKS)} trials in {time.monotonic() - started:.1f} s")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SIMULATED" in proc.stdout
    runs = []
    for execution in sorted((out / "executions").iterdir()):
        runs.append((json.loads((execution / "result.json").read_text()),
                     json.loads((execution / "trajectory.json").read_text())))
    assert sorted(r["task_id"] for r, _ in runs) == sorted(TASKS)
    return runs


def _plan(task_id: str, persona: str) -> list[str]:
    """The commands of the persona's plan (seed 0, the original description): what the bash agent would run."""
    [task] = [t for t in load_tasks([builtin_suite_dir()]) if t.id == task_id]
    return [a.command for a in build_plan(task, 0, persona, Description.original(task).text) if a.kind == "command"]


def _no_secret_stored(out: Path) -> None:
    stored = [p for p in out.rglob("*") if p.is_file()]
    assert stored
    for path in stored:
        data = path.read_bytes()
        for value in (*HOST_KEYS.values(), TOKEN_PREFIX):
            assert value.encode() not in data, f"{value[:12]}… stored in {path}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_expert_solves_built_in_tasks_through_claude_code(claude_layer, tmp_path, backend):
    out = tmp_path / "run"
    for result, trajectory in _run(claude_layer, out, "expert", backend):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 1.0)
        # Claude Code ran the persona's plan with its own Bash tool, one step per call, outputs kept
        steps = trajectory["steps"]
        assert [s["command"] for s in steps] == _plan(result["task_id"], "expert")
        assert {s["tool_call"]["name"] for s in steps} == {"Bash"}
        # tokens and cost from the gateway: one metered call per plan item and the final submit
        calls = trajectory["model_calls"]
        assert len(calls) == len(steps) + 1
        assert all(c["reported_model"] == "sim/expert" and c["tokens"]["input"] + c["tokens"]["cached_input"] > 0
                   for c in calls)
        assert sum(sum(c["tokens"].values()) for c in calls) == sum(result["tokens"].values()) > 0
        assert result["cost"]["usd"] > 0
        assert trajectory["reported_models"] == ["sim/expert"]
        assert result["trust_flags"][TRUST_FLAG] is True
        # the CLI's own account (its stream events) agrees with the gateway's
        assert trajectory["metering_disagreements"] == []
        assert [sum(c["tokens"].values()) for c in trajectory["cli_model_calls"]] == [
            sum(c["tokens"].values()) for c in calls]
        assert trajectory["final_message"].startswith("THOUGHT (SIMULATED sim/expert):")
        assert result["simulated"] is True
    _no_secret_stored(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_quitter_gives_up_through_claude_code(claude_layer, tmp_path, backend):
    """The quitter looks around and stops: Claude Code ends its turn on the text-only reply, the verifier
    finds the task undone. Reward 0 with failure mode `none`, as the bash agent scores the same plan."""
    out = tmp_path / "run"
    for result, trajectory in _run(claude_layer, out, "quitter", backend):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 0.0)
        assert [s["command"] for s in trajectory["steps"]] == _plan(result["task_id"], "quitter")
        assert len(trajectory["model_calls"]) == len(trajectory["steps"]) + 1
        assert "I give up" in trajectory["final_message"]
        assert result["trust_flags"][TRUST_FLAG] is True
    _no_secret_stored(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_up_traffic_without_the_switches_is_refused_not_hung(claude_layer, tmp_path, backend, monkeypatch):
    """With its traffic switches taken away (only IS_SANDBOX left) Claude Code reaches for its own services
    (telemetry, error reports, update checks) beside the model. Through the gateway the sandbox has no
    network, only the gateway's socket: those calls are refused at once, and the trial ends as with the
    switches on (reward 1.0 within the agent deadline, not an agent timeout)."""
    from matchmeter.llm.gateway import Gateway
    from matchmeter.llm.sim import sim_api_base
    from matchmeter.llm.stub_server import StubServer
    from matchmeter.runner.agents.adapters.claude_code import ClaudeCodeAdapter
    from matchmeter.runner.run import configuration_from_flags
    from matchmeter.runner.sandbox import get_backend
    from matchmeter.runner.trial import TrialRequest, run_trial

    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(claude_layer["root"]))
    monkeypatch.setattr(ClaudeCodeAdapter, "ENV", {"IS_SANDBOX": "1"})
    [task] = [t for t in load_tasks([builtin_suite_dir()]) if t.id == TASKS[0]]
    started = time.monotonic()
    with StubServer(tasks={task.id: task}) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        outcome = run_trial(TrialRequest(
            run_id="claude-traffic", execution_key=f"k-traffic-{backend}",
            configuration=configuration_from_flags("claude-code", "sim/expert"), task=task,
            description=Description.original(task), seed=0, attempt=0, backend=get_backend(backend),
            logs_dir=tmp_path / "logs", api_base=sim_api_base(stub.url, task.id, 0), gateway=gateway))
    print(f"\nclaude-code without its traffic switches on {backend}: {time.monotonic() - started:.1f} s")
    result = outcome.result
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    assert [s.command for s in outcome.trajectory.steps] == _plan(task.id, "expert")
