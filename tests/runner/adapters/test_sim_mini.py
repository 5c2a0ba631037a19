"""mini-swe-agent (the real CLI, from the CLI cache) driving `sim/<persona>` models through the stub.

The sim personas speak mini's dialect (```mswea_bash_command, its submit command) when its prompt asks for
it; these tests check that a real mini run follows the persona's plan (format errors included), scores
like the bash agent would, and that every call's tokens and cost are the stub's usage × the sim price.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.pricing import PriceTable
from matchmeter.llm.sim import build_plan, sim_api_base
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents.adapters.model_check import TRUST_FLAG
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import AgentSpec, Configuration, Description, ModelEndpoint, TokenUsage
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.bwrap]

MINI_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
REFERENCE = "cp data/input.txt out.txt"  # write_task's reference path


def _tokens(usage: dict) -> TokenUsage:
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
    return TokenUsage(input=usage["prompt_tokens"] - cached, cached_input=cached,
                      output=usage["completion_tokens"] - reasoning, reasoning=reasoning)


def _sim_cost(tokens: TokenUsage) -> float:
    rate = PriceTable.load().lookup("sim/expert")
    assert rate is not None
    assert rate.simulated
    amount = sum(Decimal(n) * Decimal(str(r)) for n, r in (
        (tokens.input, rate.input), (tokens.cached_input, rate.cached_input),
        (tokens.output, rate.output), (tokens.reasoning, rate.reasoning)))
    return float(amount / 1_000_000)


@pytest.mark.parametrize(("persona", "seed"), [("expert", 0), ("sloppy", 2)])
def test_mini_follows_the_sim_plan_and_accounts_the_stub_usage(clis, tmp_path, persona, seed):
    task = load_task(write_task(tmp_path / "tasks", steps=10, agent_s=240))
    description = Description.original(task)
    plan = build_plan(task, seed, persona, description.text)
    if persona == "sloppy":  # seed 2: a reply without a block, a failing command, the fix, submit
        assert [a.kind for a in plan] == ["noformat", "command", "command", "submit"]
    config = Configuration(id=f"sim/{persona}+mini-swe-agent", model=f"sim/{persona}",
                           agent=AgentSpec(name="mini-swe-agent"))
    # Through the gateway, as every real run: a bwrap sandbox has no route to the host's loopback (netns.py).
    with StubServer(tasks={task.id: task}) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        outcome = run_trial(TrialRequest(
            run_id="sim-mini", execution_key=f"k-{persona}", configuration=config, task=task,
            description=description, seed=seed, attempt=0, backend=get_backend("bwrap"),
            logs_dir=tmp_path / "logs", endpoint=ModelEndpoint(api_base=sim_api_base(stub.url, task.id, seed)),
            gateway=gateway))
        stats = stub.stats.to_json()
    result, trajectory = outcome.result, outcome.trajectory
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    # one model call per plan item (the format error too), the blocks run in plan order, then mini's submit
    assert stats["http_calls"] == len(plan) == len(trajectory.model_calls)
    assert [s.command for s in trajectory.steps] == [a.command for a in plan if a.kind == "command"] + [MINI_SUBMIT]
    assert REFERENCE in [s.command for s in trajectory.steps]
    if persona == "sloppy":
        assert trajectory.steps[0].exit_code != 0
    expected = [_tokens(u) for u in stats["usages"]]
    assert [c.tokens for c in trajectory.model_calls] == expected
    assert [c.cost.usd for c in trajectory.model_calls] == [_sim_cost(t) for t in expected]
    assert result.cost.usd == pytest.approx(sum(_sim_cost(t) for t in expected), abs=1e-15)
    assert result.tokens.output + result.tokens.reasoning == sum(u["completion_tokens"] for u in stats["usages"])
    assert trajectory.reported_models == [f"sim/{persona}"]
    assert result.trust_flags[TRUST_FLAG] is True
    assert result.simulated is True


def test_matchmeter_run_with_mini_and_a_sim_model(clis, tmp_path):
    """The CLI path: `matchmeter run` starts the stub and hands mini the per-execution sim endpoint."""
    tasks = write_task(tmp_path / "tasks", steps=10, agent_s=240)
    out = tmp_path / "run"
    proc = run_matchmeter("run", "--agent", "mini-swe-agent", "--model",
                           "sim/expert", "--backend", "bwrap", "--tasks", str(tasks), "--out", str(out), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SIMULATED" in proc.stdout
    [execution] = list((out / "executions").iterdir())
    result = json.loads((execution / "result.json").read_text())
    trajectory = json.loads((execution / "trajectory.json").read_text())
    assert (result["failure_mode"], result["reward"]) == ("none", 1.0)
    assert [s["command"] for s in trajectory["steps"]] == [REFERENCE, MINI_SUBMIT]
    assert trajectory["reported_models"] == ["sim/expert"]
    assert result["trust_flags"][TRUST_FLAG] is True
    calls = trajectory["model_calls"]
    assert len(calls) == 2
    assert all(c["reported_model"] == "sim/expert" and c["tokens"]["input"] > 0 for c in calls)
    costs = [_sim_cost(TokenUsage.model_validate(c["tokens"])) for c in calls]
    assert [c["cost"]["usd"] for c in calls] == costs
    assert result["cost"]["usd"] == pytest.approx(sum(costs), abs=1e-15)
