"""Source-side selection (SPEC §4): higher reward wins; equal reward at lower cost wins; otherwise Original."""

from __future__ import annotations

import pytest

from matchmeter.optimizer.records import DescriptionScore
from matchmeter.optimizer.select import score, select
from matchmeter.schema import Configuration, Cost, ExecutionResult


def s(reward: float, cost: float | None) -> DescriptionScore:
    return DescriptionScore(reward=reward, cost_usd=cost, n=1)


def test_higher_reward_wins_even_at_higher_cost():
    chosen = select(s(0.5, 0.01), [("a", s(0.5, 0.001)), ("b", s(0.75, 0.09)), ("c", s(0.25, 0.0))])
    assert chosen.chosen_candidate_id == "b"
    assert not chosen.fallback


def test_equal_reward_at_lower_cost_wins_and_the_cheapest_equal_candidate_is_taken():
    chosen = select(s(1.0, 0.010), [("a", s(1.0, 0.009)), ("b", s(1.0, 0.004)), ("c", s(0.5, 0.0))])
    assert chosen.chosen_candidate_id == "b"
    assert "lower cost" in chosen.reason


@pytest.mark.parametrize("candidates", [
    [("a", s(1.0, 0.010)), ("b", s(1.0, 0.020))],  # equal reward, not cheaper
    [("a", s(0.5, 0.001))],                        # cheaper but worse
    [("a", s(1.0, None))],                         # equal reward, unknown cost is never cheaper
    [],                                            # nothing eligible
])
def test_otherwise_original_is_kept(candidates):
    kept = select(s(1.0, 0.010), candidates)
    assert kept.fallback
    assert kept.chosen_candidate_id is None


def test_ties_between_candidates_go_to_the_lower_index():
    assert select(s(0.0, 1.0), [("first", s(1.0, 0.5)), ("second", s(1.0, 0.5))]).chosen_candidate_id == "first"


def _result(reward: float, cost: float | None, key: str) -> ExecutionResult:
    config = Configuration.model_validate({"id": "c", "agent": {"name": "nop"}})
    return ExecutionResult(execution_key=key, run_id="r", configuration_id="c", configuration=config, task_id="t",
                           task_digest="d", description_sha256="x", seed=0, attempt=0, backend="local",
                           reward=reward, cost=Cost(usd=cost, null_reason=None if cost is not None else "unpriced"))


def test_score_is_the_mean_over_seeds_and_unknown_cost_stays_unknown():
    sc = score([_result(1.0, 0.02, "k1"), _result(0.5, 0.04, "k2")])
    assert sc.reward == pytest.approx(0.75)
    assert sc.cost_usd == pytest.approx(0.03)
    assert sc.n == 2
    assert score([_result(1.0, 0.02, "k1"), _result(1.0, None, "k2")]).cost_usd is None


def test_source_side_cost_of_an_unpriced_execution_is_unknown_never_zero(tmp_path):
    from matchmeter.cli import _cost_text
    from matchmeter.optimizer.sourceside import SourceSide
    from matchmeter.runner.context import RunContext, RunSpec
    from matchmeter.runner.sandbox import get_backend
    from matchmeter.runner.store import RunStore

    spec = RunSpec(out=tmp_path, backend="local", configurations=[], tasks=[])
    side = SourceSide(RunContext(spec, get_backend("local"), RunStore(tmp_path), "r", lambda _item: None, None))
    side.account([_result(1.0, 0.02, "k1"), _result(0.5, 0.04, "k2")])
    assert (side.executed, side.cost.usd, side.unpriced) == (2, pytest.approx(0.06), 0)
    assert _cost_text(side.cost.usd, side.unpriced, side.cost.null_reason) == "$0.060000"
    side.account([_result(1.0, None, "k3"), _result(1.0, 0.5, "k4")])
    assert (side.executed, side.cost.usd, side.unpriced) == (4, None, 1)
    assert side.cost.null_reason == "unpriced"
    assert _cost_text(side.cost.usd, side.unpriced, side.cost.null_reason) == \
        "cost unknown (1 unpriced executions: unpriced)"
