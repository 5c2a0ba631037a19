"""Statistics: pass@k / pass^k, rank agreement, frontier, cost-of-pass, cluster bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from matchmeter.errors import UserError
from matchmeter.metrics.stats import (
    bootstrap_mean_ci,
    cost_of_pass,
    pass_at_k,
    pass_hat_k,
    pass_k_table,
    quality_cost_frontier,
    rank_agreement,
    resample_task_means,
)


def test_pass_at_k_and_pass_hat_k():
    # n 5, c 2, k 2: pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10 ; pass^2 = C(2,2)/C(5,2) = 1/10
    assert pass_at_k([5, 5, 5], [2, 0, 5], 2).tolist() == pytest.approx([0.7, 0.0, 1.0])
    assert pass_hat_k([5, 5, 5], [2, 0, 5], 2).tolist() == pytest.approx([0.1, 0.0, 1.0])
    with pytest.raises(UserError, match="pass@3 needs at least 3 attempts"):
        pass_at_k([2], [1], 3)


def test_pass_k_table_averages_tasks():
    df = pd.DataFrame({"configuration_id": "a", "task_id": ["t1"] * 3 + ["t2"] * 3,
                       "reward": [1, 0, 0, 1, 1, 0.5]})
    out = pass_k_table(df, 2).loc["a"]
    # t1: n 3 c 1 -> pass@2 = 1 - C(2,2)/C(3,2) = 2/3, pass^2 = 0 ; t2: c 2 -> 1, pass^2 = 1/3
    assert out.pass_at_k == pytest.approx((2 / 3 + 1) / 2)
    assert out.pass_hat_k == pytest.approx((0 + 1 / 3) / 2)


def test_rank_agreement_reversal():
    a = pd.Series({"x": 3.0, "y": 2.0, "z": 1.0})
    b = pd.Series({"x": 1.0, "y": 2.0, "z": 3.0})
    agree = rank_agreement(a, b)
    assert (agree.spearman, agree.kendall) == pytest.approx((-1.0, -1.0))
    assert (agree.largest_shift, agree.shifted_item) == (2, "x")
    same = rank_agreement(a, a * 2)
    assert (same.spearman, same.largest_shift, same.shifted_item) == (1.0, 0, None)


def test_frontier_upper_hull_from_origin():
    pts = pd.DataFrame({"cost": [1, 2, 3, 4, 0.5, 2.5, 3, None], "reward": [0.5, 0.9, 0.8, 1.0, 0.1, 0.92, 0.95, 1.0]},
                       index=list("ABCDEFGH"))
    # slopes from origin: A .5 ; E at .5 is below the chord to A (.25) ; B above chord A-D (.667 at x 2)
    # C is dominated by B ; F (2.5, .92) below chord B-D (.925) ; G (3, .95) on chord B-D -> kept ; H no cost
    assert list(quality_cost_frontier(pts).index) == ["A", "B", "G", "D"]


def test_cost_of_pass():
    df = pd.DataFrame({"configuration_id": ["a", "a", "b", "c"], "reward": [1, 0, 0, 1],
                       "cost_usd": [0.1, 0.3, 0.2, None]})
    out = cost_of_pass(df)
    # a: mean cost .2 / pass rate .5 = .4 ; b never passes -> inf ; c has an unknown cost -> NaN
    assert out["a"] == pytest.approx(0.4)
    assert out["b"] == math.inf
    assert math.isnan(out["c"])


def test_bootstrap_two_stages():
    # one task with attempts 0 and 1: executions resampled -> means in {0, .5, 1}
    within = pd.DataFrame({"configuration_id": "a", "task_id": "t", "reward": [0.0, 1.0]})
    assert bootstrap_mean_ci(within, n_resamples=2000, seed=1)[["ci_low", "ci_high"]].values.tolist() == [[0.0, 1.0]]
    # two tasks with constant values 0 and 1: tasks resampled -> means in {0, .5, 1}
    across = pd.DataFrame({"configuration_id": "a", "task_id": ["t1", "t2"], "reward": [0.0, 1.0]})
    draws = resample_task_means(across, ["reward"], n_resamples=4000, seed=2).task_means["a"][:, :, 0].mean(axis=1)
    assert set(np.unique(draws)) == {0.0, 0.5, 1.0}
    assert (draws == 0.5).mean() == pytest.approx(0.5, abs=0.03)  # P(one of each) = 1/2
    # constant configuration -> degenerate interval
    const = pd.DataFrame({"configuration_id": "b", "task_id": ["t1", "t1", "t2"], "reward": [0.5] * 3})
    assert bootstrap_mean_ci(const, seed=0)[["ci_low", "ci_high"]].values.tolist() == [[0.5, 0.5]]


def test_bootstrap_seeded_and_paired():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"configuration_id": np.repeat(["a", "b"], 60), "task_id": np.tile(np.repeat(list("pqrstu"), 10), 2),
                       "reward": rng.random(120)})
    first, again = bootstrap_mean_ci(df, seed=7), bootstrap_mean_ci(df, seed=7)
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(bootstrap_mean_ci(df, seed=8))
    means = df.groupby("configuration_id")["reward"].mean()
    assert ((first["ci_low"].to_numpy() <= means.to_numpy()) & (means.to_numpy() <= first["ci_high"].to_numpy())).all()
    # the same task draws feed both configurations: a copy of a has identical resamples
    twin = pd.concat([df.loc[df.configuration_id == "a"], df.loc[df.configuration_id == "a"].assign(configuration_id="c")])
    res = resample_task_means(twin, ["reward"], n_resamples=50, seed=3)
    assert np.array_equal(res.task_means["a"], res.task_means["c"])


def test_bootstrap_ams_ci_stratified():
    from matchmeter.metrics import ams
    from matchmeter.metrics.calibration import calibrate
    from matchmeter.metrics.table import validate_results
    from tests.metrics.fixtures import reference_table, scored_table

    cuts = calibrate(validate_results(reference_table())).cuts()
    df = validate_results(scored_table())
    ci = ams.bootstrap_ams_ci(df, cuts, n_resamples=500, seed=4).set_index("configuration_id")
    # Y scores 1 on every task -> every resample is 1
    assert ci.loc["Y"].tolist() == [1.0, 1.0]
    # X: point AMS .95/3 lies inside; hard has one task, so only easy/medium/t1/t4 attempts vary
    assert ci.loc["X", "ci_low"] <= 0.95 / 3 <= ci.loc["X", "ci_high"]
    assert ci.loc["X", "ci_low"] < ci.loc["X", "ci_high"]
    pd.testing.assert_frame_equal(ci.reset_index(), ams.bootstrap_ams_ci(df, cuts, n_resamples=500, seed=4))
