"""aider 0.86.2 (from PyPI, run from its image layer) driving the offline `sim/` personas through the model
gateway, on docker and bwrap.

The personas answer aider's editblock requests with the whole plan in one reply of ```bash blocks (llm/sim.py,
the aider dialect); aider, its confirmations answered from /dev/null (each takes its default, yes), runs each
block: the trial's steps are those commands, in plan order, with their outputs. Whole `matchmeter run`s on
built-in tasks: reward as the bash agent scores the same plan, tokens and cost from the gateway's meter (which
aider's own account matches), the effective-model check passed, no host key nor gateway token in any stored
file. Each run's wall is printed; the layer is built once per machine by the session fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from matchmeter.llm.sim_aider import aider_line
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


@pytest.fixture(scope="session")
def aider_layer() -> dict[str, Any]:
    """aider's image layer on the base image: its wheels fetched and the layer built once per machine."""
    return layers_on_base(["aider"], "sim/expert")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_expert_solves_built_in_tasks_through_aider(aider_layer, tmp_path, backend):
    out = tmp_path / "run"
    for result, trajectory in sim_run(aider_layer["root"], out, "aider", "expert", backend):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 1.0)
        # aider ran the persona's plan, each command a step (commit-special-message's heredoc as one bash line)
        steps = trajectory["steps"]
        assert [s["command"] for s in steps] == [aider_line(c) for c in plan_commands(result["task_id"], "expert")]
        assert steps[-1]["output"].strip()  # the last look of each plan prints what was done
        # one metered call: aider answers its --message once, then runs the blocks
        [call] = trajectory["model_calls"]
        assert call["reported_model"] == "sim/expert"
        assert call["tokens"]["input"] + call["tokens"]["cached_input"] > 0
        assert sum(call["tokens"].values()) == sum(result["tokens"].values()) > 0
        assert result["cost"]["usd"] > 0
        assert trajectory["reported_models"] == ["sim/expert"]
        assert result["trust_flags"][TRUST_FLAG] is True
        assert trajectory["metering_disagreements"] == []  # aider's own ModelResponse agrees with the gateway
        assert trajectory["agent_version"] == "0.86.2"
        assert result["simulated"] is True
    assert_no_secret_stored(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sim_quitter_gives_up_through_aider(aider_layer, tmp_path, backend):
    """The quitter looks around and stops: aider runs the looks, the verifier finds the task undone. Reward 0
    with failure mode `none`, as the bash agent scores the same plan, on both backends as issue 38 asks of every
    live CLI (one task: the expert test already covers both)."""
    out = tmp_path / "run"
    for result, trajectory in sim_run(aider_layer["root"], out, "aider", "quitter", backend, tasks=SIM_TASKS[:1]):
        assert (result["failure_mode"], result["error"], result["reward"]) == ("none", None, 0.0)
        commands = [s["command"] for s in trajectory["steps"]]
        assert commands == [aider_line(c) for c in plan_commands(result["task_id"], "quitter")]
        assert commands
        assert len(trajectory["model_calls"]) == 1
        assert result["trust_flags"][TRUST_FLAG] is True
    assert_no_secret_stored(out)
