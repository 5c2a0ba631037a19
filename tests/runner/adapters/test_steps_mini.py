"""mini-swe-agent (the real CLI, from the CLI cache) across the two steps of a multi-step Harbor task, on bwrap.

The CLI runs once per step with that step's instruction, in the same sandbox, under the execution's one gateway
session: after step 1's verifier the sandbox was restarted (the forwarder to the gateway died with the agent's
processes, and $MM_LOGS is the verifier's), so step 2 reaching its model at all shows the forwarder came back.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.sim import sim_api_base
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import AgentSpec, Configuration, Description, ModelEndpoint, TokenUsage
from matchmeter.tasks.loader import load_task

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.bwrap]

STEPS_TASK = Path(__file__).parents[2] / "tasks" / "data" / "harbor-steps"
MINI_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def test_mini_swe_agent_runs_each_step_through_one_gateway_session(clis):
    task = load_task(STEPS_TASK)
    config = Configuration(id="sim/expert+mini-swe-agent", model="sim/expert", agent=AgentSpec(name="mini-swe-agent"))
    work = Path(tempfile.mkdtemp(prefix="mm-mini-steps-"))  # short: the gateway's socket path must fit AF_UNIX
    work.chmod(0o711)  # as the executor\'s (run_gateway): a root-verifier bwrap sandbox binds the socket as ns root
    try:
        with StubServer(tasks={task.id: task}) as stub, Gateway(socket_path=work / "gw.sock") as gateway:
            outcome = run_trial(TrialRequest(
                run_id="steps-mini", execution_key="k-mini-steps", configuration=config, task=task,
                description=Description.original(task), seed=0, attempt=0, backend=get_backend("bwrap"),
                logs_dir=work / "logs", endpoint=ModelEndpoint(api_base=sim_api_base(stub.url, task.id, 0)),
                gateway=gateway))
            stats = stub.stats.to_json()
        gateway_log = [json.loads(line) for line in (work / "logs" / "gateway.jsonl").read_text().splitlines()]
        agent_output = (work / "logs" / "agent-output.log").read_text()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result, trajectory = outcome.result, outcome.trajectory
    assert (result.failure_mode, result.error) == ("none", None), result.error
    # the same per-step rewards as the oracle's (tests/tasks/test_harbor_format.py) and Harbor's combination
    assert [(s.name, s.rewards, s.verified) for s in result.steps] == [
        ("write", {"reward": 1.0}, True), ("extend", {"reward": 1.0, "lines": 2.0}, True)]
    assert (result.reward, result.rewards) == (1.0, {"reward": 1.0, "lines": 1.0})
    # each step: mini ran that step's command, then its own submit
    assert [s.command for s in trajectory.steps] == ["echo hello > /app/notes.txt", MINI_SUBMIT,
                                                     "echo world >> /app/notes.txt", MINI_SUBMIT]
    assert [s.n_actions for s in result.steps] == [2, 2]
    # every stub request went through the gateway, stamped with the step whose agent phase made it
    assert [c["step"] for c in gateway_log] == ["write", "write", "extend", "extend"]
    assert stats["http_calls"] == len(trajectory.model_calls) == 4
    for step in result.steps:
        mine = [c for c in trajectory.model_calls if c.step == step.name]
        assert step.n_model_calls == len(mine) == 2
        assert step.tokens == sum((c.tokens for c in mine), TokenUsage())
        assert step.tokens.input > 0
    assert sum((s.tokens for s in result.steps), TokenUsage()) == result.tokens
    # mini's own log agrees with the gateway over both runs; its output is kept per step
    assert len(trajectory.cli_model_calls) == 4
    assert [c.step for c in trajectory.cli_model_calls] == ["write", "write", "extend", "extend"]
    assert trajectory.metering_disagreements == []
    assert "===== step write =====" in agent_output
    assert "===== step extend =====" in agent_output
