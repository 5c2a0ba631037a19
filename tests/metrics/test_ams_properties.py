"""Properties of AMS over random tables and random frozen cuts (hypothesis)."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchmeter.metrics import ams

TASKS = {"t0": "easy", "t1": "easy", "t2": "medium", "t3": "medium", "t4": "hard", "t5": "hard"}
rewards = st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1)
costs = st.floats(0, 2, allow_nan=False)


@st.composite
def cuts(draw):
    grids, etas = {}, {}
    for s in ams.STRATA:
        grid = draw(st.lists(st.floats(0.01, 2), min_size=1, max_size=6, unique=True).map(sorted))
        grids[s] = draw(st.sampled_from([grid, [float("inf")]]))
        etas[s] = draw(st.floats(0, 2))
    return ams.StrataCuts(TASKS, grids, etas)


@st.composite
def tables(draw):
    rows = []
    for c in range(draw(st.integers(1, 3))):
        for t in TASKS:
            for a in range(draw(st.integers(1, 3))):
                rows.append({"configuration_id": f"c{c}", "task_id": t, "attempt": a,
                             "reward": draw(rewards), "cost_usd": draw(costs)})
    return pd.DataFrame(rows)


def _ams(df, cut, alpha=0.5):
    return ams.score(df, cut, alpha).table.set_index("configuration_id")["ams"]


@settings(max_examples=60, deadline=None)
@given(tables(), cuts(), st.floats(0, 1))
def test_ams_in_unit_interval(df, cut, alpha):
    values = _ams(df, cut, alpha)
    assert ((values >= 0) & (values <= 1)).all()


@settings(max_examples=60, deadline=None)
@given(tables(), cuts(), st.data())
def test_cheaper_rewarded_execution_never_lowers_ams(df, cut, data):
    rewarded = df.index[df["reward"] > 0]
    if rewarded.empty:
        return
    i = data.draw(st.sampled_from(list(rewarded)))
    cheaper = df.copy()
    cheaper.loc[i, "cost_usd"] = data.draw(st.floats(0, df.loc[i, "cost_usd"]))
    cfg = df.loc[i, "configuration_id"]
    assert _ams(cheaper, cut)[cfg] >= _ams(df, cut)[cfg] - 1e-12


@settings(max_examples=60, deadline=None)
@given(tables(), cuts(), st.data())
def test_dearer_failed_execution_never_raises_ams(df, cut, data):
    failed = df.index[df["reward"] == 0]
    if failed.empty:
        return
    i = data.draw(st.sampled_from(list(failed)))
    dearer = df.copy()
    dearer.loc[i, "cost_usd"] = df.loc[i, "cost_usd"] + data.draw(st.floats(0, 5))
    cfg = df.loc[i, "configuration_id"]
    assert _ams(dearer, cut)[cfg] <= _ams(df, cut)[cfg] + 1e-12


@settings(max_examples=40, deadline=None)
@given(tables(), cuts(), st.randoms(use_true_random=False))
def test_row_order_changes_nothing(df, cut, rnd):
    order = list(df.index)
    rnd.shuffle(order)
    a = ams.score(df, cut).table
    b = ams.score(df.loc[order].reset_index(drop=True), cut).table
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(tables(), cuts())
def test_alpha_one_is_tq_times_one_minus_efr(df, cut):
    table = ams.score(df, cut, alpha=1.0).table
    for s in ams.STRATA:
        assert table[f"ams_{s}"].to_numpy() == pytest.approx((table[f"tq_{s}"] * (1 - table[f"efr_{s}"])).to_numpy())
