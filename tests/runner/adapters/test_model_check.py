"""The effective-model rule: provider prefixes and dated snapshots match; anything else is a mismatch."""

from __future__ import annotations

import pytest

from matchmeter.errors import ModelMismatch
from matchmeter.runner.agents.adapters.model_check import (
    TRUST_FLAG,
    check_effective_model,
    normalise_model,
    record_effective_model,
    same_model,
)
from matchmeter.schema import AgentSpec, Configuration, ExecutionResult, Trajectory


def config(model: str | None = "openai/gpt-4o") -> Configuration:
    return Configuration(id="cfg", model=model, agent=AgentSpec(name="aider"))


def result() -> ExecutionResult:
    return ExecutionResult(execution_key="k", run_id="r", configuration_id="cfg", configuration=config(), task_id="t",
                           task_digest="d", description_sha256="s", seed=0, attempt=0, backend="local")


@pytest.mark.parametrize(("configured", "reported", "same"), [
    ("openai/gpt-4o", "gpt-4o", True),
    ("openrouter/openai/gpt-4o", "GPT-4o", True),
    ("openai/gpt-4o", "gpt-4o-2024-08-06", True),
    ("anthropic/claude-sonnet-4", "claude-sonnet-4-20250514", True),
    ("openai/gpt-4o", "gpt-4o-mini", False),
    ("openai/gpt-4o", "gpt-4o-mini-2024-07-18", False),
    ("openai/stub/scripted", "stub/other-model", False),
    ("deepseek/deepseek-chat", "deepseek-reasoner", False),
])
def test_same_model_rule(configured, reported, same):
    assert same_model(configured, reported) is same


def test_normalise_keeps_only_the_last_segment_lower_cased():
    assert normalise_model(" openrouter/Meta-Llama/Llama-3.1-8B/ ") == "llama-3.1-8b"


def test_mismatch_raises_unless_allowed():
    trajectory = Trajectory(reported_models=["gpt-4o", "gpt-4o-mini"])
    with pytest.raises(ModelMismatch, match="reports running gpt-4o-mini;") as info:
        check_effective_model(config(), trajectory, allow_incompatible=False)
    assert info.value.failure_mode == "model_mismatch"
    note = check_effective_model(config(), trajectory, allow_incompatible=True)
    assert note == ("configuration cfg asked for model openai/gpt-4o but aider reports running gpt-4o-mini "
                    "(kept: --allow-incompatible)")


def test_nothing_reported_or_no_model_sets_no_flag():
    for cfg, trajectory in ((config(), Trajectory()), (config(None), Trajectory(reported_models=["x"]))):
        res = result()
        assert record_effective_model(cfg, trajectory, False, res) is None
        assert res.trust_flags == {}


def test_record_sets_the_trust_flag_and_note():
    res = result()
    assert record_effective_model(config(), Trajectory(reported_models=["gpt-4o-2024-08-06"]), False, res) is None
    assert res.trust_flags == {TRUST_FLAG: True}
    res = result()
    failure = record_effective_model(config(), Trajectory(reported_models=["o3"]), False, res)
    assert isinstance(failure, ModelMismatch)
    assert res.trust_flags == {TRUST_FLAG: False}
    res = result()
    assert record_effective_model(config(), Trajectory(reported_models=["o3"]), True, res) is None
    assert res.trust_flags == {TRUST_FLAG: False}
    assert "o3" in (res.error or "")
