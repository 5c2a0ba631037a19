"""Description conditions on a hand-computed table; Adapted-1 against the per-draw loop; Core picker."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.conditions import (
    adapted_one,
    condition_report,
    condition_view,
    core_fidelity,
    cross_only_improvements,
    pick_core,
    self_cost_change,
)
from matchmeter.metrics.synthetic import synthetic_conditions

# one task per stratum, every budget at 1 USD, eta 1: with costs <= 1 AUBQC = TQ and EFR = 0,
# so AMS = mean over the three tasks of the task reward
CUTS = ams.StrataCuts({"t1": "easy", "t2": "medium", "t3": "hard"}, {s: [1.0] for s in ams.STRATA},
                      dict.fromkeys(ams.STRATA, 1.0))
POOLED = {  # target -> task -> source -> reward
    "A": {"t1": {"A": 1, "B": 0}, "t2": {"A": 1, "B": 1}, "t3": {"A": 0, "B": 0.5}},
    "B": {"t1": {"A": 1, "B": 1}, "t2": {"A": 0, "B": 1}, "t3": {"A": 0, "B": 0}},
}
ORIGINAL = {"A": {"t1": 0, "t2": 1, "t3": 0.5}, "B": {"t1": 0, "t2": 0, "t3": 0}}
GENERIC = {"A": {"t1": 1, "t2": 1, "t3": 1}, "B": {"t1": 0, "t2": 0, "t3": 0}}


def table() -> pd.DataFrame:
    rows = []
    for g, tasks in POOLED.items():
        for t, by_source in tasks.items():
            for k, r in by_source.items():
                cost = 0.3 if (g, t, k) == ("A", "t3", "B") else 0.1
                rows.append({"configuration_id": g, "task_id": t, "condition": "pooled", "source": k, "reward": r,
                             "cost_usd": cost})
            rows.append({"configuration_id": g, "task_id": t, "condition": "original", "source": None,
                         "reward": ORIGINAL[g][t], "cost_usd": 0.2})
            rows.append({"configuration_id": g, "task_id": t, "condition": "generic", "source": None,
                         "reward": GENERIC[g][t], "cost_usd": 0.2})
    return pd.DataFrame(rows).assign(attempt=0)


def test_views():
    df = table()
    assert len(condition_view(df, "self")) == 6  # 2 targets x 3 tasks, source == target
    assert set(condition_view(df, "cross_only")[["configuration_id", "source"]].itertuples(index=False, name=None)) == {
        ("A", "B"), ("B", "A")}
    with pytest.raises(UserError, match="unknown condition 'adapted'"):
        condition_view(df.assign(condition="adapted"), "pooled")


def test_condition_report_hand_computed():
    report = condition_report(table(), CUTS)
    pairs = report.per_pair.set_index(["condition", "configuration_id"])
    # Pooled A: t1 (1+0)/2, t2 1, t3 (0+.5)/2 -> (.5 + 1 + .25)/3 ; B: (1 + .5 + 0)/3
    assert pairs.loc[("pooled", "A"), "ams"] == pytest.approx(1.75 / 3)
    assert pairs.loc[("pooled", "B"), "ams"] == pytest.approx(0.5)
    assert pairs.loc[("pooled", "A"), "mean_reward"] == pytest.approx(1.75 / 3)
    # Pooled A cost: t1 .1, t2 .1, t3 (.1 + .3)/2 = .2 -> .4/3
    assert pairs.loc[("pooled", "A"), "mean_cost_usd"] == pytest.approx(0.4 / 3)
    # Self A: 1, 1, 0 ; Cross-only A (source B): 0, 1, .5 ; Cross-only B (source A): 1, 0, 0
    assert pairs.loc[("self", "A"), "ams"] == pytest.approx(2 / 3)
    assert pairs.loc[("cross_only", "A"), "ams"] == pytest.approx(0.5)
    assert pairs.loc[("cross_only", "B"), "ams"] == pytest.approx(1 / 3)
    summary = report.per_condition.set_index("condition")
    assert summary.loc["pooled", "macro_ams"] == pytest.approx((1.75 / 3 + 0.5) / 2)
    assert summary.loc["pooled", "leader"] == "A"
    assert summary.loc["generic", "leader"] == "A"
    assert summary.loc["original", "macro_ams"] == pytest.approx((0.5 + 0) / 2)
    assert list(summary.index) == ["original", "self", "cross_only", "pooled", "generic"]


def test_adapted_one_expected_shares():
    # 8 equally likely draws (k1, k2, k3); sums of task rewards for A | B:
    # AAA 2|1  AAB 2.5|1  ABA 2|2 (tie)  ABB 2.5|2  BAA 1|1 (tie)  BAB 1.5|1  BBA 1|2  BBB 1.5|2
    # first share A = (1 + 1 + .5 + 1 + .5 + 1 + 0 + 0)/8 = 5/8 ; exact Pooled order (A > B) in 4/8
    out = adapted_one(table(), CUTS, n_draws=10_000, seed=3)
    assert out.first_share["A"] == pytest.approx(5 / 8, abs=0.02)
    assert out.first_share.sum() == pytest.approx(1.0)
    assert out.exact_order_share == pytest.approx(0.5, abs=0.02)
    assert out.pooled_ams.to_dict() == pytest.approx({"A": 1.75 / 3, "B": 0.5})


def test_adapted_one_per_target_values_hand_computed():
    # task-macro reward of A per draw: sums above / 3, each draw 1/8 likely -> mean 1.75/3 (the Pooled mean),
    # lowest atom 1/3 (BAA, BBA: 2/8 > 2.5%), highest 2.5/3 (AAB, ABB): the 95% draw interval is exactly those
    out = adapted_one(table(), CUTS, n_draws=10_000, seed=3).per_target
    assert out.loc["A", "mean_reward"] == pytest.approx(1.75 / 3, abs=0.01)
    assert out.loc["A", ["mean_reward_low", "mean_reward_high"]].tolist() == pytest.approx([1 / 3, 2.5 / 3])
    # costs are <= 1 and budgets 1: AMS = mean task reward here, so its interval is the same
    assert out.loc["A", ["ams_low", "ams_high"]].tolist() == pytest.approx([1 / 3, 2.5 / 3])
    # A's cost: t1 .1, t2 .1, t3 .1 or .3 -> 0.3/3 or 0.5/3
    assert out.loc["A", ["mean_cost_usd_low", "mean_cost_usd_high"]].tolist() == pytest.approx([0.1, 0.5 / 3])
    assert out.loc["A", "mean_cost_usd"] == pytest.approx(0.4 / 3, abs=0.002)


def test_adapted_one_intervals_match_exact_enumeration():
    """3 targets, 6 tasks, 3 sources: all 3^6 = 729 draws enumerated give the exact distribution of each
    per-target value; the 10,000 sampled draws must agree with it. Dvoretzky–Kiefer–Wolfowitz: with
    n = 10,000 the empirical CDF is within 0.0136 of the true one everywhere (95%), so each sampled
    endpoint must lie between the exact quantiles at 2.5% ± 0.0136 (97.5% ± 0.0136), and each mean
    within 4 standard errors of the exact mean."""
    import itertools

    from matchmeter.metrics.conditions import DRAW_VALUES, draw_values, unit_terms

    df = synthetic_conditions(3, 6, 3, n_attempts=2, seed=4)
    cuts = ams.StrataCuts({f"task{i:03d}": ams.STRATA[i % 3] for i in range(6)},
                          {s: [0.05, 0.1, 0.2] for s in ams.STRATA}, dict.fromkeys(ams.STRATA, 0.15))
    x, targets, tasks, _ = unit_terms(df, cuts, with_cost=True)
    labels = np.array([cuts.task_strata[t] for t in tasks])
    masks = np.array([labels == s for s in ams.STRATA], dtype=float)
    every = np.array(list(itertools.product(range(3), repeat=6)))
    exact = draw_values(x, masks, 0.5, every)  # (729, G, 3), each row equally likely
    sampled = adapted_one(df, cuts, n_draws=10_000, seed=11).per_target
    eps = 0.0136
    checked = 0
    for g, target in enumerate(targets):
        for j, name in enumerate(DRAW_VALUES):
            values = exact[:, g, j]
            lo_band = np.quantile(values, [0.025 - eps, 0.025 + eps], method="inverted_cdf")
            hi_band = np.quantile(values, [0.975 - eps, 0.975 + eps], method="inverted_cdf")
            assert lo_band[0] - 1e-12 <= sampled.loc[target, f"{name}_low"] <= lo_band[1] + 1e-12, (target, name)
            assert hi_band[0] - 1e-12 <= sampled.loc[target, f"{name}_high"] <= hi_band[1] + 1e-12, (target, name)
            assert abs(sampled.loc[target, name] - values.mean()) <= 4 * values.std() / 100, (target, name)
            assert lo_band[1] < hi_band[0]  # a real spread: the check is not vacuous
            checked += 1
    assert checked == 9
    # the exact mean reward over draws is the Pooled mean reward (the mean over sources, per task)
    pooled_reward = x[..., 0].mean(axis=2).mean(axis=1)
    assert exact[:, :, 0].mean(axis=0) == pytest.approx(pooled_reward, abs=1e-12)


def _bench():
    spec = importlib.util.spec_from_file_location("bench_metrics", Path(__file__).parents[2] / "benchmarks" / "metrics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adapted_one_equals_per_draw_loop():
    df = synthetic_conditions(3, 6, 3, n_attempts=2, seed=4)
    cuts = ams.StrataCuts({f"task{i:03d}": ams.STRATA[i % 3] for i in range(6)},
                          {s: [0.05, 0.1, 0.2] for s in ams.STRATA}, dict.fromkeys(ams.STRATA, 0.15))
    vec = adapted_one(df, cuts, n_draws=500, seed=9, chunk=64)
    first, exact = _bench().adapted_one_loop(df, cuts, n_draws=500, seed=9)
    assert vec.first_share.to_dict() == pytest.approx(first, abs=1e-12)
    assert vec.exact_order_share == exact


def test_adapted_one_missing_unit_is_user_error():
    df = table()
    df = df.drop(index=df.index[(df.configuration_id == "B") & (df.task_id == "t2") & (df.source == "A")])
    with pytest.raises(UserError, match="no pooled execution of target 'B' on task 't2' with source 'A'"):
        adapted_one(df, CUTS, n_draws=10)


def test_cross_only_improvements_and_self_cost():
    out = cross_only_improvements(table()).set_index("configuration_id")
    # A (source B) vs Original A: t1 0 = 0 at .1 < .2 -> cheaper ; t2 1 = 1 cheaper ; t3 .5 = .5 at .3 > .2 -> no
    # B (source A) vs Original B (0, 0, 0): t1 1 > 0 -> higher ; t2 0 = 0 cheaper ; t3 0 = 0 cheaper
    assert out.loc["A"].tolist() == [0, 2, 2, 3]
    assert out.loc["B"].tolist() == [1, 2, 3, 3]
    cost = self_cost_change(table()).set_index("configuration_id")
    # Self: .1 x 3 = .3 against Original .2 x 3 = .6 -> -.3 USD, -50 %
    assert cost.loc["A", "change_usd"] == pytest.approx(-0.3)
    assert cost.loc["B", "change_pct"] == pytest.approx(-50.0)


def test_core_fidelity():
    rewards = {"A": (1, 0, 1), "B": (0, 1, 0), "C": (0.5, 0.5, 0.5)}
    df = pd.DataFrame([{"configuration_id": g, "task_id": f"t{i + 1}", "reward": r, "cost_usd": 0.1}
                       for g, rs in rewards.items() for i, r in enumerate(rs)])
    # full: A 2/3, C .5, B 1/3 ; on {t2}: B 1, C .5, A 0 -> reversed: rho -1, A moves 1 -> 3
    agree = core_fidelity(df, CUTS, ["t2"])
    assert (agree.spearman, agree.largest_shift, agree.shifted_item) == (pytest.approx(-1.0), 2, "A")
    assert core_fidelity(df, CUTS, ["t1", "t2", "t3"]).spearman == pytest.approx(1.0)


def _tasks():
    families = ["terminal", "skills", "data-analysis", "quoting"]
    return pd.DataFrame({"task_id": [f"t{i:02d}" for i in range(40)],
                         "source_family": [families[i % 4] for i in range(40)],
                         "stratum": [ams.STRATA[(i // 4) % 3] for i in range(40)]})


def test_pick_core_stratified_and_seeded():
    tasks = _tasks().set_index("task_id")
    core = pick_core(_tasks(), n=8, seed=1)
    assert len(core) == 8 == len(set(core))
    assert set(tasks.loc[core, "source_family"]) == set(tasks["source_family"])
    assert set(tasks.loc[core, "stratum"]) == set(ams.STRATA)
    assert pick_core(_tasks(), n=8, seed=1) == core
    assert pick_core(_tasks().sample(frac=1, random_state=5), n=8, seed=1) == core  # input order is irrelevant
    assert len({tuple(pick_core(_tasks(), n=8, seed=s)) for s in range(5)}) > 1
    # every (family, stratum) cell has 40/12 tasks -> a Core of 24 takes each cell twice
    big = tasks.loc[pick_core(_tasks(), n=24, seed=0)]
    assert big.groupby(["source_family", "stratum"]).size().tolist() == [2] * 12


def test_pick_core_bounds():
    with pytest.raises(UserError, match="a Core of 3 tasks cannot represent every family and stratum"):
        pick_core(_tasks(), n=3)
    assert pick_core(_tasks(), n=100) == sorted(_tasks()["task_id"])


def test_adapted_one_is_fast_enough():
    import time

    df = synthetic_conditions(4, 16, 4, seed=0)
    cuts = ams.StrataCuts({f"task{i:03d}": ams.STRATA[i % 3] for i in range(16)},
                          {s: list(np.linspace(0.05, 0.5, 10)) for s in ams.STRATA}, dict.fromkeys(ams.STRATA, 0.3))
    start = time.perf_counter()
    adapted_one(df, cuts, n_draws=10_000, seed=0)
    assert time.perf_counter() - start < 1.0
