"""One execution of a model agent on a multi-step Harbor task (tests/tasks/data/harbor-steps) with a `sim/`
persona through a gateway of its own, as every run's: shared by the step tests of the bash agent and the CLIs."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.sim import sim_api_base
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.trial import TrialOutcome, TrialRequest, run_trial
from matchmeter.schema import AgentSpec, Configuration, Description, ModelEndpoint, TaskSpec, TokenUsage

STEPS_TASK = Path(__file__).parents[1] / "tasks" / "data" / "harbor-steps"


def sim_trial(backend: str, task: TaskSpec, persona: str, seed: int, *, agent: AgentSpec | None = None,
              endpoint: ModelEndpoint | None = None) -> tuple[TrialOutcome, list[dict]]:
    """One execution of the bash agent (or `agent`) with sim/<persona> through a gateway of its own (as every
    run's), at the stub's sim path (or `endpoint`): its outcome and the gateway's record (gateway.jsonl)."""
    agent = agent or AgentSpec(name="bash")
    config = Configuration(id=f"sim/{persona}+{agent.name}", model=f"sim/{persona}", agent=agent)
    work = Path(tempfile.mkdtemp(prefix="mm-steps-"))  # short: the gateway's socket path must fit AF_UNIX
    work.chmod(0o711)  # as the executor's (run_gateway): a root-verifier bwrap sandbox binds the socket as ns root
    try:
        with StubServer(tasks={task.id: task}) as stub, Gateway(socket_path=work / "gw.sock") as gateway:
            outcome = run_trial(TrialRequest(
                run_id="steps-agents", execution_key=f"k-{persona}-{seed}", configuration=config, task=task,
                description=Description.original(task), seed=seed, attempt=0, backend=get_backend(backend),
                logs_dir=work / "logs", gateway=gateway,
                endpoint=endpoint or ModelEndpoint(api_base=sim_api_base(stub.url, task.id, seed))))
        log = work / "logs" / "gateway.jsonl"
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        return outcome, calls
    finally:
        shutil.rmtree(work, ignore_errors=True)


def assert_both_steps_solved(outcome: TrialOutcome, gateway_log: list[dict]) -> None:
    """What a CLI × sim/expert run of tests/tasks/data/harbor-steps must show, whichever CLI: both steps verified
    at 1.0, each step's one command run, its two calls stamped with it and metered into the step's tokens."""
    result, trajectory = outcome.result, outcome.trajectory
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    assert [(s.name, s.rewards, s.reward, s.verified) for s in result.steps] == [
        ("write", {"reward": 1.0}, 1.0, True), ("extend", {"reward": 1.0, "lines": 2.0}, 1.0, True)]
    assert result.rewards == {"reward": 1.0, "lines": 1.0}
    # each step: the CLI ran that step's one command with its shell tool, then ended its turn on a text reply
    assert [s.command for s in trajectory.steps] == ["echo hello > /app/notes.txt", "echo world >> /app/notes.txt"]
    assert [s.n_actions for s in result.steps] == [1, 1]
    assert [(c["step"], c["status"]) for c in gateway_log] == [("write", 200)] * 2 + [("extend", 200)] * 2
    assert [c.step for c in trajectory.model_calls] == ["write", "write", "extend", "extend"]
    for step in result.steps:
        mine = [c for c in trajectory.model_calls if c.step == step.name]
        assert step.n_model_calls == len(mine) == 2
        assert step.tokens == sum((c.tokens for c in mine), TokenUsage())
        assert step.tokens.input + step.tokens.cached_input > 0
    assert sum((s.tokens for s in result.steps), TokenUsage()) == result.tokens
    assert trajectory.metering_disagreements == []
    assert trajectory.reported_models == ["sim/expert"]
