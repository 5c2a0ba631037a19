"""Model agents on a multi-step Harbor task (tests/tasks/data/harbor-steps): the built-in bash agent with sim
personas, through the model gateway, on bwrap and docker. The oracle's runs of the same task
(conftest.mm_fixture_runs) are the reference for each step's rewards.

- `matchmeter run --agent bash --model sim/expert`: each step's agent phase gets that step's instruction, so
  the persona plans that step (its solve.sh); every step is verified, its rewards equal the oracle's; each
  step's model calls are metered on their own (tokens > 0) and add up to the execution's; ATIF per step.
- sim/quitter, at a seed whose plan for step 1 only looks around: step 1 misses its min_reward and step 2
  never runs (no call of the execution belongs to it).
- A token budget that step 1 exhausts: budget_exceeded, reward 0, step 2 never runs (bwrap): the budgets are
  the execution's, so no later step's agent could make a call.
- Step 1's own agent deadline passing (Harbor's AgentTimeoutError): step 1 is still verified; with a min_reward
  it misses, step 2 never runs; without one, step 2's agent runs with its own instruction and deadline through
  the same gateway session, as Harbor goes on (bwrap and docker). The execution is `agent_timeout`, reward 0.
"""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from matchmeter.cli import app
from matchmeter.llm.sim import build_plan, is_look
from matchmeter.schema import (
    AgentSpec,
    Configuration,
    Cost,
    ExecutionResult,
    ModelEndpoint,
    TaskSpec,
    TokenUsage,
)
from matchmeter.tasks.loader import load_task
from tests.helpers.steps import STEPS_TASK, sim_trial


@pytest.fixture(scope="session")
def expert_steps_run(mm_fixture_runs, tmp_path_factory) -> tuple[ExecutionResult, Path, ExecutionResult]:
    """`matchmeter run --agent bash --model sim/expert` on harbor-steps, on the backend of mm_fixture_runs:
    (its result, its execution dir, the oracle's result on that backend)."""
    oracle = mm_fixture_runs[("harbor-steps", "oracle")]
    out = tmp_path_factory.mktemp(f"mm-steps-expert-{oracle.backend}")
    result = CliRunner().invoke(app, ["run", "--agent", "bash", "--model", "sim/expert", "--backend", oracle.backend,
                                      "--tasks", str(STEPS_TASK), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    [execution] = list((out / "executions").iterdir())
    return ExecutionResult.model_validate_json((execution / "result.json").read_text()), execution, oracle


def test_bash_agent_runs_each_step_with_its_instruction_and_scores_as_the_oracle(expert_steps_run):
    got, execution, oracle = expert_steps_run
    assert (got.failure_mode, got.error) == ("none", None)
    # each step verified in the one sandbox, with the oracle's rewards; the combination is Harbor's mean
    assert [(s.name, s.rewards, s.verified) for s in got.steps] == [(s.name, s.rewards, True) for s in oracle.steps]
    assert got.rewards == oracle.rewards == {"reward": 1.0, "lines": 1.0}
    assert got.reward == oracle.reward == 1.0
    trajectory = json.loads((execution / "trajectory.json").read_text())
    # the expert ran each step's solve.sh line, in step order, each in its own agent phase
    assert [s["command"] for s in trajectory["steps"]] == ["echo hello > /app/notes.txt", "echo world >> /app/notes.txt"]
    assert [s.n_actions for s in got.steps] == [1, 1]


def test_each_step_is_metered_on_its_own_and_the_steps_add_up(expert_steps_run):
    got, execution, _ = expert_steps_run
    calls = json.loads((execution / "trajectory.json").read_text())["model_calls"]
    gateway = [json.loads(line) for line in (execution / "logs" / "gateway.jsonl").read_text().splitlines()]
    # one command and one submit per step: two answered calls each, every one stamped with its step
    assert [c["step"] for c in calls] == [c["step"] for c in gateway] == ["write", "write", "extend", "extend"]
    assert all(c["status"] == 200 for c in gateway)
    for step in got.steps:
        mine = [c for c in calls if c["step"] == step.name]
        assert step.n_model_calls == len(mine) == 2
        assert step.tokens == sum((TokenUsage.model_validate(c["tokens"]) for c in mine), TokenUsage())
        assert step.tokens.input > 0
        assert step.tokens.output > 0
        assert step.cost.usd == pytest.approx(sum(c["cost"]["usd"] for c in mine), abs=1e-12)
        assert step.cost.usd > 0
    assert sum((s.tokens for s in got.steps), TokenUsage()) == got.tokens
    assert sum((s.cost for s in got.steps), Cost(usd=0.0)).usd == pytest.approx(got.cost.usd, abs=1e-12)


def test_each_step_has_its_own_atif_with_its_instruction_and_calls(expert_steps_run):
    got, execution, _ = expert_steps_run
    task = load_task(STEPS_TASK)
    for step, spec in zip(got.steps, task.steps, strict=True):
        doc = json.loads((execution / "steps" / step.name / "trajectory.atif.json").read_text())
        assert doc["steps"][0] == {"step_id": 1, "source": "user", "message": spec.instruction}
        agent_steps = [s for s in doc["steps"] if s["source"] == "agent"]
        assert len(agent_steps) == step.n_model_calls
        assert doc["final_metrics"]["total_prompt_tokens"] == step.tokens.input + step.tokens.cached_input
        assert doc["final_metrics"]["total_cost_usd"] == pytest.approx(step.cost.usd, abs=1e-12)


def _quitting_seed(task: TaskSpec) -> int:
    """The first seed at which sim/quitter only looks around on step 1 (so step 1 scores 0)."""
    for seed in range(20):
        plan = build_plan(task, seed, "quitter", task.steps[0].instruction)
        if all(is_look(a.command) for a in plan if a.kind == "command"):
            return seed
    raise AssertionError("no seed makes sim/quitter give up on step 1")


def test_min_reward_stops_a_model_agent_after_step_one(mm_fixture_runs):
    backend = mm_fixture_runs[("harbor-steps", "oracle")].backend
    task = load_task(STEPS_TASK)
    outcome, gateway = sim_trial(backend, task, "quitter", _quitting_seed(task))
    got = outcome.result
    assert (got.failure_mode, got.error, got.reward) == ("none", None, 0.0)
    [write] = got.steps  # step 2 never ran: not verified, not combined
    assert (write.name, write.rewards, write.verified) == ("write", {"reward": 0.0}, True)
    assert "below its min_reward" in (write.error or "")
    assert got.rewards == {"reward": 0.0}
    assert write.n_model_calls >= 2
    assert write.tokens.total > 0
    assert write.n_actions >= 1
    assert {c["step"] for c in gateway} == {"write"}
    assert got.tokens == write.tokens


@pytest.mark.bwrap
def test_a_token_budget_spent_in_step_one_ends_the_execution_there(tmp_path):
    task_dir = tmp_path / "harbor-steps-budget"
    shutil.copytree(STEPS_TASK, task_dir)
    with (task_dir / "task.toml").open("a") as f:
        f.write("\n[metadata.matchmeter.budgets]\ntokens = 400\n")
    task = load_task(task_dir)
    assert task.budgets.tokens == 400
    outcome, gateway = sim_trial("bwrap", task, "expert", 0)
    got = outcome.result
    # The first call (~330 tokens) runs step 1's command; the second would cross 400 and is refused at the
    # gateway: budget_exceeded scores 0 as in a single-step task, step 1 is still verified (raw reward 1).
    assert (got.failure_mode, got.reward) == ("budget_exceeded", 0.0), got.error
    [write] = got.steps
    assert (write.name, write.rewards, write.verified) == ("write", {"reward": 1.0}, True)
    assert got.raw_verifier_reward == 1.0
    assert "tokens" in (got.error or "")
    assert {c["step"] for c in gateway} == {"write"}
    assert [c["status"] for c in gateway] == [200, 402]
    assert got.tokens == write.tokens
    assert 0 < got.tokens.total <= 400


@pytest.mark.bwrap
def test_an_endpoint_down_in_a_step_is_infra_error_not_the_agents():
    task = load_task(STEPS_TASK)
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    down = ModelEndpoint(api_base=f"http://127.0.0.1:{closed}/v1", retry_attempts=1, timeout_s=5)
    outcome, gateway = sim_trial("bwrap", task, "expert", 0, endpoint=down)
    got = outcome.result
    assert got.failure_mode == "infra_error", got.error
    assert "model endpoint failed" in (got.error or "")
    [write] = got.steps  # step 1's agent could not reach its model: the execution ends there
    assert (write.name, write.n_model_calls, write.tokens.total) == ("write", 0, 0)
    assert gateway
    assert {c["step"] for c in gateway} == {"write"}
    assert {c["error_kind"] for c in gateway} == {"upstream_unavailable"}


@pytest.mark.bwrap
def test_a_cli_missing_from_the_sandbox_is_infra_error_before_any_step():
    task = load_task(STEPS_TASK)
    agent = AgentSpec(name="mini-swe-agent", options={"cli_path": "/nonexistent/bin/mini"})
    outcome, gateway = sim_trial("bwrap", task, "expert", 0, agent=agent)
    got = outcome.result
    assert got.failure_mode == "infra_error", got.error
    assert "not executable inside this sandbox" in (got.error or "")
    assert (got.steps, gateway) == ([], [])


def _step_one_deadline(tmp_path: Path, gated: bool) -> TaskSpec:
    """harbor-steps with step 1's own agent deadline (Harbor's [steps.agent] timeout_sec) gone before the agent
    can act; `gated`: step 1 keeps its min_reward of 1.0."""
    task_dir = tmp_path / "harbor-steps-deadline"
    shutil.copytree(STEPS_TASK, task_dir)
    toml = (task_dir / "task.toml").read_text()
    gate = "min_reward = 1.0\n"
    toml = toml.replace('name = "write"\n' + gate, 'name = "write"\n' + (gate if gated else "") +
                        "agent = { timeout_sec = 0.01 }\n")
    (task_dir / "task.toml").write_text(toml)
    task = load_task(task_dir)
    assert task.steps[0].agent_s == 0.01
    assert (task.steps[0].min_reward is not None) == gated
    return task


@pytest.mark.bwrap
def test_a_step_deadline_then_a_missed_min_reward_ends_the_execution_there(tmp_path):
    outcome, gateway = sim_trial("bwrap", _step_one_deadline(tmp_path, gated=True), "expert", 0)
    got = outcome.result
    assert (got.failure_mode, got.reward) == ("agent_timeout", 0.0), got.error
    [write] = got.steps  # verified (what state the agent left), missed its min_reward: step 2 never runs
    assert (write.name, write.rewards, write.verified, write.n_actions) == ("write", {"reward": 0.0}, True, 0)
    assert "deadline passed" in (write.error or "")
    assert "below its min_reward" in (write.error or "")
    assert {c["step"] for c in gateway} <= {"write"}


@pytest.mark.parametrize("backend", [pytest.param("bwrap", marks=pytest.mark.bwrap),
                                     pytest.param("docker", marks=pytest.mark.docker)])
def test_after_a_step_deadline_the_next_step_runs_as_in_harbor(tmp_path, backend):
    outcome, gateway = sim_trial(backend, _step_one_deadline(tmp_path, gated=False), "expert", 0)
    got, trajectory = outcome.result, outcome.trajectory
    # the first step's failure is the execution's: agent_timeout scores 0 as in a single-step task
    assert (got.failure_mode, got.reward) == ("agent_timeout", 0.0), got.error
    assert got.error is not None
    assert "deadline passed" in got.error
    write, extend = got.steps
    assert (write.name, write.rewards, write.verified, write.n_actions) == ("write", {"reward": 0.0}, True, 0)
    assert write.error == got.error
    # step 2's agent ran its own plan in the same sandbox, through the same gateway session: the file holds
    # only its line, so its verifier gives reward 0 and lines 1
    assert (extend.name, extend.rewards, extend.verified, extend.error) == \
        ("extend", {"reward": 0.0, "lines": 1.0}, True, None)
    assert [s.command for s in trajectory.steps] == ["echo world >> /app/notes.txt"]
    assert extend.n_actions == 1
    assert [(c["step"], c["status"]) for c in gateway if c["step"] == "extend"] == [("extend", 200)] * 2
    assert extend.n_model_calls == 2
    assert extend.tokens is not None
    assert extend.tokens.total > 0
    # Harbor's mean over both verified steps; raw_verifier_reward is that combination's scalar
    assert got.rewards == {"reward": 0.0, "lines": 0.5}
    assert got.raw_verifier_reward == 0.0
    assert [p.phase for p in got.phases] == ["setup", "agent:write", "verify:write", "agent:extend", "verify:extend"]


def test_the_bash_agent_is_told_its_steps_own_deadline(tmp_path):
    from matchmeter.runner.agents.bash import BashAgent
    from matchmeter.runner.agents.session import AgentSession

    task_dir = tmp_path / "harbor-steps-limits"
    shutil.copytree(STEPS_TASK, task_dir)
    toml = (task_dir / "task.toml").read_text()
    (task_dir / "task.toml").write_text(toml.replace('name = "extend"\n', 'name = "extend"\nagent = { timeout_sec = 45 }\n'))
    task = load_task(task_dir)
    config = Configuration(id="sim/expert+bash", model="sim/expert", agent=AgentSpec(name="bash"))
    agent = BashAgent(configuration=config, task=task)
    session = AgentSession(sandbox=None, configuration=config, task=task, budgets=task.budgets,  # type: ignore[arg-type]
                           deadline=0.0)
    assert "Wall-clock limit: 120 seconds" in agent.system_prompt(session)  # the task's [agent] timeout_sec
    session.limit_s = min(task.budgets.wall_s, task.steps[1].agent_s or 0)  # what the trial sets for step 2
    assert "Wall-clock limit: 45 seconds" in agent.system_prompt(session)
