"""Description conditions are compared over the same (target, task) set (issue 31, item 2).

A target whose Original executions have no price (adopted from a run priced with another table) is left
out of Original's macro AMS; keeping it in Generic's made a change of denominator read as a gain.
"""

from __future__ import annotations

import numpy as np
import pytest

from matchmeter.errors import UserError
from matchmeter.metrics import conditions as cond
from matchmeter.metrics.calibration import calibrate
from matchmeter.metrics.synthetic import synthetic_conditions
from matchmeter.metrics.table import validate_results
from matchmeter.report.registry import build_tables


@pytest.fixture(scope="module")
def unpriced_original():
    df = synthetic_conditions(n_targets=3, n_tasks=9, n_sources=2, n_attempts=1, seed=5)
    df["description_origin"] = df["condition"].map({"original": "original", "pooled": "optimized", "generic": "generic"})
    df = validate_results(df)
    cal = calibrate(df.loc[(df["condition"] == "original") & (df["configuration_id"] != "cfg02")])
    unpriced = df.copy()
    hole = (unpriced["condition"] == "original") & (unpriced["configuration_id"] == "cfg02")
    unpriced.loc[hole, "cost_usd"] = np.nan
    unpriced.loc[hole, "cost_null_reason"] = "no price for model x"
    return df, unpriced, cal


def test_table3_compares_conditions_over_the_same_targets(unpriced_original):
    """Fails on the old code: Original's macro AMS was over cfg00 and cfg01, Generic's and Pooled's over all
    three targets (n_pairs 2 against 3), and no row or note said so."""
    df, unpriced, cal = unpriced_original
    tables = build_tables(unpriced, cal, n_resamples=20, n_draws=200, seed=1)
    t3 = tables["table3_conditions"].set_index("condition")
    assert t3.loc[["original", "cross_only", "pooled", "generic"], "n_pairs"].tolist() == [2, 2, 2, 2]
    # the same numbers as the conditions of the two scorable targets alone
    alone = cond.condition_report(df.loc[df["configuration_id"] != "cfg02"], cal.cuts(), cal.alpha).per_condition
    alone = alone.set_index("condition")
    for c in ("original", "self", "cross_only", "pooled", "generic"):
        assert t3.loc[c, "macro_ams"] == pytest.approx(alone.loc[c, "macro_ams"]), c
        assert t3.loc[c, "leader"] == alone.loc[c, "leader"], c
    assert "RESTRICTED" not in t3.loc["original", "flags"]  # it lost nothing it could score
    for c in ("cross_only", "pooled", "generic"):
        assert "RESTRICTED" in t3.loc[c, "flags"].split(), c
    note = next(n for n in t3.attrs["notes"] if n.startswith("conditions compared over the same"))
    assert note.startswith("conditions compared over the same 18 (target, task) pairs (2 targets)")
    assert "cfg02 (9 execution(s) with unknown cost under original)" in note
    per_pair = tables["conditions_per_pair"]
    assert "cfg02" not in set(per_pair["configuration_id"])
    assert "cfg02" not in set(tables["table3_adapted1"]["configuration_id"])
    # Table 1 (Original alone) still lists the unpriced target as not scored
    assert any(n.startswith("cfg02: not scored") for n in tables["table1_configurations"].attrs["notes"])


def test_no_flag_when_every_condition_scores_every_target(unpriced_original):
    df, _, cal = unpriced_original
    t3 = build_tables(df, cal, n_resamples=20, n_draws=200)["table3_conditions"]
    assert not t3["flags"].str.contains("RESTRICTED").any()
    assert not any(n.startswith("conditions compared") for n in t3.attrs["notes"])


def test_no_common_target_is_refused_with_the_reason(unpriced_original):
    df, _, cal = unpriced_original
    none = df.copy()
    none.loc[none["condition"] == "generic", "cost_usd"] = np.nan
    with pytest.raises(UserError) as exc:
        cond.condition_report(none, cal.cuts(), cal.alpha)
    assert exc.value.line().startswith("no (target, task) pair is scorable under every condition (conditions "
                                       "compared over the same 0 (target, task) pairs")
    assert "price every target's model (--prices FILE)" in exc.value.line()
