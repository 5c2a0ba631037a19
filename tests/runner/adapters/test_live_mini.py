"""mini-swe-agent 2.4.6 (from PyPI, run from its image layer) driving the offline `sim/` personas through the
model gateway on built-in tasks, on docker and bwrap (issue 38's Must show, as for Codex, Claude Code and aider).

The personas answer mini's requests in its own dialect (one ```mswea_bash_command block a reply, then its submit
command: llm/sim.py); mini runs each block in the sandbox. Whole `matchmeter run`s: the steps are the persona's
plan and mini's submit, one metered call per plan item, tokens and cost from the gateway's meter (which mini's
own log matches), the effective-model check passed, no host key nor gateway token in any stored file. Each
run's wall is printed; the layer is built once per machine by the session fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from matchmeter.llm.sim import SUBMIT_COMMANDS
from matchmeter.runner.agents.adapters.model_check import TRUST_FLAG
from tests.runner.adapters.conftest import (
    SIM_TASKS,
    assert_no_secret_stored,
    layers_on_base,
    plan_commands,
    sim_run,
)

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.docker]
BACKENDS = ["docker", pytest.param("bwrap", marks=pytest.mark.bwrap)]
MINI_SUBMIT = SUBMIT_COMMANDS["mini"]


@pytest.fixture(scope="session")
def mini_layer() -> dict[str, Any]:
    """mini-swe-agent's image layer on the base image: its wheels fetched and the layer built once per machine."""
    found = layers_on_base(["mini-swe-agent"], "sim/expert")
    cli, _tag = found["mini-swe-agent"]
    assert (cli.kind, cli.version) == ("pypi", "2.4.6")
    return found


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_expert_solves_built_in_tasks_through_mini(mini_layer, tmp_path, backend):
    out = tmp_path / "run"
    for result, trajectory in sim_run(mini_layer["root"], out, "mini-swe-agent", "expert", backend):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 1.0)
        # mini ran the persona's plan, one block a step, then its submit command
        commands = plan_commands(result["task_id"], "expert")
        assert [s["command"] for s in trajectory["steps"]] == [*commands, MINI_SUBMIT]
        assert [s["exit_code"] for s in trajectory["steps"][:-1]] == [0] * len(commands)
        # one metered call per plan item (the commands and the submit), tokens and cost from the gateway
        calls = trajectory["model_calls"]
        assert len(calls) == len(commands) + 1
        assert all(c["reported_model"] == "sim/expert" and c["tokens"]["input"] + c["tokens"]["cached_input"] > 0
                   for c in calls)
        assert sum(sum(c["tokens"].values()) for c in calls) == sum(result["tokens"].values()) > 0
        assert result["cost"]["usd"] > 0
        assert trajectory["reported_models"] == ["sim/expert"]
        assert result["trust_flags"][TRUST_FLAG] is True
        assert trajectory["metering_disagreements"] == []  # mini's own log agrees with the gateway
        assert trajectory["agent_version"] == "2.4.6"
        assert result["simulated"] is True
    assert_no_secret_stored(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_quitter_gives_up_through_mini(mini_layer, tmp_path, backend):
    """The quitter looks around and submits early: mini runs the looks and its submit, the verifier finds the
    task undone. Reward 0 with failure mode `none` (the agent's own doing, no fault), as the bash agent scores
    the same plan."""
    out = tmp_path / "run"
    for result, trajectory in sim_run(mini_layer["root"], out, "mini-swe-agent", "quitter", backend,
                                      tasks=SIM_TASKS[:1]):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 0.0)
        commands = plan_commands(result["task_id"], "quitter")
        assert commands
        assert [s["command"] for s in trajectory["steps"]] == [*commands, MINI_SUBMIT]
        assert len(trajectory["model_calls"]) == len(commands) + 1
        assert sum(result["tokens"].values()) > 0
        assert result["trust_flags"][TRUST_FLAG] is True
    assert_no_secret_stored(out)
