"""Claude Code 2.1.327 (the native binary bundled in the claude-agent-sdk 0.2.184 wheel, run from its image
layer) driving the offline `sim/` personas through the model gateway, on docker and bwrap.

The personas answer Claude Code's streamed Anthropic Messages requests with calls of its own Bash tool
(llm/sim.py, the tools dialect); the gateway carries tool_use/tool_result both ways (llm/gateway_wire.py).
These are whole `matchmeter run`s on built-in tasks (and trials of a multi-step Harbor task, one CLI run per step): the CLI's steps are the persona's plan, tokens and cost
come from the gateway's meter (which the CLI's own account matches), the effective-model check passes, and
no host key nor gateway token is in any stored file. A trial's wall: benchmarks/live_clis.py --agents
claude-code (each run's wall is printed here too); the layer is built once per machine by the session
fixture (its cold build: benchmarks/cli_layer.py --layers).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from matchmeter.llm.sim import build_plan
from matchmeter.runner.agents.adapters.model_check import TRUST_FLAG
from matchmeter.schema import AgentSpec, Description, ModelEndpoint
from matchmeter.tasks.loader import builtin_suite_dir, load_task, load_tasks
from tests.helpers.steps import STEPS_TASK, assert_both_steps_solved
from tests.helpers.steps import sim_trial as steps_sim_trial
from tests.runner.adapters.conftest import (
    SIM_TASKS,
    assert_no_secret_stored,
    layers_on_base,
    plan_commands,
    sim_run,
)

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.docker]
BACKENDS = ["docker", pytest.param("bwrap", marks=pytest.mark.bwrap)]
TASKS = SIM_TASKS


@pytest.fixture(scope="session")
def claude_layer() -> dict[str, Any]:
    """Claude Code's image layer on the base image: the wheel fetched and the layer built once per machine."""
    return layers_on_base(["claude-code"], "sim/expert")


def _run(claude_layer, out: Path, persona: str, backend: str, agent: str = "claude-code",
         seeds: int = 1) -> list[tuple[dict, dict]]:
    return sim_run(claude_layer["root"], out, agent, persona, backend, seeds)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_expert_solves_built_in_tasks_through_claude_code(claude_layer, tmp_path, backend):
    out = tmp_path / "run"
    for result, trajectory in _run(claude_layer, out, "expert", backend):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 1.0)
        # Claude Code ran the persona's plan with its own Bash tool, one step per call, outputs kept
        steps = trajectory["steps"]
        assert [s["command"] for s in steps] == plan_commands(result["task_id"], "expert")
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
    assert_no_secret_stored(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_quitter_gives_up_through_claude_code(claude_layer, tmp_path, backend):
    """The quitter looks around and stops: Claude Code ends its turn on the text-only reply, the verifier
    finds the task undone. Reward 0 with failure mode `none`, as the bash agent scores the same plan."""
    out = tmp_path / "run"
    for result, trajectory in _run(claude_layer, out, "quitter", backend):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 0.0)
        assert [s["command"] for s in trajectory["steps"]] == plan_commands(result["task_id"], "quitter")
        assert len(trajectory["model_calls"]) == len(trajectory["steps"]) + 1
        assert "I give up" in trajectory["final_message"]
        assert result["trust_flags"][TRUST_FLAG] is True
    assert_no_secret_stored(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_up_traffic_without_the_switches_is_refused_not_hung(claude_layer, tmp_path, backend, monkeypatch):
    """With its traffic switches taken away (only IS_SANDBOX left) Claude Code dials api.anthropic.com beside
    the model (test_claude_code_dials_only_the_gateway_with_its_switches). Through the gateway the sandbox
    has no network, only the gateway's socket: that call is refused at once, and the trial ends as with the
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
            logs_dir=tmp_path / "logs", endpoint=ModelEndpoint(api_base=sim_api_base(stub.url, task.id, 0)),
            gateway=gateway))
    print(f"\nclaude-code without its traffic switches on {backend}: {time.monotonic() - started:.1f} s")
    result = outcome.result
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    assert [s.command for s in outcome.trajectory.steps] == plan_commands(task.id, "expert")


@pytest.mark.bwrap
def test_sim_sloppy_plays_the_same_plan_through_claude_code_as_through_the_bash_agent(claude_layer, tmp_path):
    """Mistakes, corrections, skipped steps and replies without a command: over 3 seeds of both tasks the
    commands Claude Code ran are the bash agent's, and every reward is the same. A reply without a code block
    (bash dialect) is a Bash call without its command here: Claude Code answers it with its own validation
    error, a step with no command, and the conversation goes on as the bash agent's does after a format error."""
    claude = {(r["task_id"], r["seed"]): (r, t) for r, t in _run(claude_layer, tmp_path / "c", "sloppy", "bwrap",
                                                                  seeds=3)}
    bash = {(r["task_id"], r["seed"]): (r, t) for r, t in _run(claude_layer, tmp_path / "b", "sloppy", "bwrap",
                                                                agent="bash", seeds=3)}
    assert sorted(claude) == sorted(bash)
    rewards = []
    for key, (result, trajectory) in claude.items():
        bash_result, bash_trajectory = bash[key]
        commands = [s["command"] for s in trajectory["steps"]]
        assert [c for c in commands if c is not None] == [s["command"] for s in bash_trajectory["steps"]]
        assert result["reward"] == bash_result["reward"]
        rewards.append(result["reward"])
        [task] = [t for t in load_tasks([builtin_suite_dir()]) if t.id == key[0]]
        plan = build_plan(task, key[1], "sloppy", Description.original(task).text)
        assert commands.count(None) == sum(a.kind == "noformat" for a in plan)
    assert 0 < sum(rewards) < len(rewards)  # the sloppy persona both fails and succeeds here
    assert None in [s["command"] for _, t in claude.values() for s in t["steps"]]


class _RecordingProxy:
    """An HTTP proxy on loopback that records each request line (CONNECT host:port) and refuses it."""

    def __init__(self) -> None:
        import socket
        import threading

        self.lines: list[str] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                self.lines.append(conn.recv(4096).decode(errors="replace").split("\r\n")[0])
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")


@pytest.mark.parametrize("switches", ["on", "off"])
def test_claude_code_dials_only_the_gateway_with_its_switches(claude_layer, tmp_path, switches):
    """On the host, every connection Claude Code makes through a recording proxy (HTTPS_PROXY; the gateway on
    loopback is NO_PROXY): with the adapter's environment, none; without its traffic switches, a call to
    api.anthropic.com (which shows the probe sees what the CLI dials)."""
    import subprocess

    from matchmeter.llm.gateway import Gateway, Upstream
    from matchmeter.llm.stub_server import StubServer
    from matchmeter.runner.agents.adapters.claude_code import ClaudeCodeAdapter
    from matchmeter.runner.agents.adapters.install import ensure_unpacked

    spec = ClaudeCodeAdapter.PROFILE.install
    claude = ensure_unpacked(spec.package, spec.version, spec.payload, spec.binary, claude_layer["root"])
    proxy = _RecordingProxy()
    work = tmp_path / "work"
    work.mkdir()
    with StubServer(["hello"]) as stub, Gateway(tcp=True) as gateway:
        session = gateway.open_session("traffic", Upstream(model="stub/scripted", endpoint=ModelEndpoint(
            api_base=stub.api_base, use_cache=False)))
        env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "ANTHROPIC_BASE_URL": gateway.url,
               "ANTHROPIC_API_KEY": session.token, "HTTPS_PROXY": proxy.url, "HTTP_PROXY": proxy.url,
               "NO_PROXY": "127.0.0.1,localhost",
               **(ClaudeCodeAdapter.ENV if switches == "on" else {"IS_SANDBOX": "1"})}
        proc = subprocess.run([str(claude), *ClaudeCodeAdapter.PROFILE.flags, "--model", "m", "say hello"], env=env,
                              cwd=work, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        calls = len(gateway.close_session(session).calls)
    proxy.server.close()
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert calls == 1
    if switches == "on":
        assert proxy.lines == []
    else:
        assert "CONNECT api.anthropic.com:443 HTTP/1.1" in proxy.lines


@pytest.mark.parametrize("backend", BACKENDS)
def test_claude_code_solves_each_step_of_a_harbor_task_through_one_gateway_session(claude_layer, backend,
                                                                                   monkeypatch):
    """tests/tasks/data/harbor-steps: Claude Code runs once per step with that step's instruction, in the same
    sandbox, under the execution's one gateway session (the forwarder restarted after step 1's verifier); the
    persona plans each step from its own solve.sh; both steps score 1.0, every call stamped with its step."""
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(claude_layer["root"]))
    task = load_task(STEPS_TASK)
    outcome, gateway_log = steps_sim_trial(backend, task, "expert", 0, agent=AgentSpec(name="claude-code"))
    assert_both_steps_solved(outcome, gateway_log)
    trajectory = outcome.trajectory
    assert {(s.tool_call or {}).get("name") for s in trajectory.steps} == {"Bash"}
    # Claude Code's own account of both runs agrees with the gateway's
    assert [c.tokens.total for c in trajectory.cli_model_calls] == [c.tokens.total for c in trajectory.model_calls]
