"""Condition tables (Tables 3 and 4, Cross-only, rank shifts) equal the metrics functions they present."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from matchmeter.metrics import conditions as cond
from matchmeter.metrics.calibration import calibrate
from matchmeter.metrics.synthetic import synthetic_conditions
from matchmeter.metrics.table import validate_results
from matchmeter.report.registry import build_tables


@pytest.fixture(scope="module")
def evaluated():
    df = synthetic_conditions(n_targets=4, n_tasks=12, n_sources=3, n_attempts=2, seed=3)
    df["simulated"] = True
    df["trusted"] = df["configuration_id"] != "cfg03"
    df["description_origin"] = df["condition"].map({"original": "original", "pooled": "optimized", "generic": "generic"})
    df = validate_results(df)
    cal = calibrate(df.loc[df["condition"] == "original"])
    return df, cal, build_tables(df, cal, n_resamples=50, n_draws=3000, seed=7)


def test_table3_matches_condition_report_and_adapted_one(evaluated):
    df, cal, tables = evaluated
    report = cond.condition_report(df, cal.cuts(), cal.alpha)
    t3 = tables["table3_conditions"].set_index("condition")
    assert list(t3.index) == ["original", "self", "cross_only", "pooled", "generic", "adapted1"]
    expected = report.per_condition.set_index("condition")
    np.testing.assert_allclose(t3.loc[expected.index, "macro_ams"], expected["macro_ams"])
    assert t3.loc[expected.index, "leader"].tolist() == expected["leader"].tolist()
    assert t3.loc["self", "n_pairs"] == 3  # only the three targets that are also sources
    a1 = cond.adapted_one(df, cal.cuts(), cal.alpha, n_draws=3000, seed=7)
    shares = tables["table3_adapted1"].set_index("configuration_id")["first_share"]
    pd.testing.assert_series_equal(shares.sort_index(), a1.first_share.sort_index(), check_names=False)
    assert shares.sum() == pytest.approx(1.0)
    # per target mean reward, cost and AMS over the draws with their intervals, not the Pooled AMS in their place
    a1_table = tables["table3_adapted1"].set_index("configuration_id")
    for col in ("mean_reward", "mean_reward_low", "mean_reward_high", "mean_cost_usd", "mean_cost_usd_low",
                "mean_cost_usd_high", "ams", "ams_low", "ams_high"):
        np.testing.assert_allclose(a1_table.loc[a1.per_target.index, col], a1.per_target[col], err_msg=col)
    assert (a1_table["ams_low"] <= a1_table["ams"]).all()
    assert (a1_table["ams"] <= a1_table["ams_high"]).all()
    assert (a1_table["ams_low"] < a1_table["ams_high"]).all()
    assert t3.loc["adapted1", "leader"] == a1.first_share.idxmax()
    assert t3.loc["adapted1", "exact_order_share"] == pytest.approx(a1.exact_order_share)
    # Table 1 of an evaluate run scores the Original condition only
    t1 = tables["table1_configurations"].set_index("configuration_id")
    orig = report.per_pair.loc[report.per_pair["condition"] == "original"].set_index("configuration_id")
    np.testing.assert_allclose(t1.loc[orig.index, "ams"], orig["ams"])
    assert set(t1["n_executions"]) == {24}


def test_table4_cross_only_and_rank_shifts(evaluated):
    df, cal, tables = evaluated
    t4 = tables["table4_original_generic_self"].set_index("configuration_id")
    per_pair = cond.condition_report(df, cal.cuts(), cal.alpha).per_pair.set_index(["condition", "configuration_id"])
    for c in ("original", "generic", "self"):
        sub = per_pair.loc[c]
        np.testing.assert_allclose(t4.loc[sub.index, f"ams_{c}"], sub["ams"])
        np.testing.assert_allclose(t4.loc[sub.index, f"mean_reward_{c}"], sub["mean_reward"])
    self_change = cond.self_cost_change(df).set_index("configuration_id")
    np.testing.assert_allclose(t4.loc[self_change.index, "cost_change_pct_self"], self_change["change_pct"])
    assert pd.isna(t4.loc["cfg03", "ams_self"])  # cfg03 is no source: it has no Self condition
    # Generic cost change by hand for one target: summed per-task mean costs
    g = df.loc[(df["condition"] == "generic") & (df["configuration_id"] == "cfg00")].groupby("task_id")["cost_usd"].mean().sum()
    o = df.loc[(df["condition"] == "original") & (df["configuration_id"] == "cfg00")].groupby("task_id")["cost_usd"].mean().sum()
    assert t4.loc["cfg00", "cost_change_pct_generic"] == pytest.approx(100 * (g - o) / o)
    cross = tables["cross_only_improvements"].drop(columns="flags")
    pd.testing.assert_frame_equal(cross, cond.cross_only_improvements(df), check_dtype=False)
    assert cross.set_index("configuration_id")["total"].to_dict() == {"cfg00": 24, "cfg01": 24, "cfg02": 24, "cfg03": 36}
    rs = tables["rank_shifts"].set_index("configuration_id")
    for c in ("original", "pooled", "generic"):
        expected = per_pair.loc[c]["ams"].rank(method="min", ascending=False).astype(int)
        assert rs.loc[expected.index, f"rank_{c}"].tolist() == expected.tolist()
    shift = (rs[["rank_self", "rank_cross_only", "rank_pooled", "rank_generic"]].sub(rs["rank_original"], axis=0)
             .abs().max(axis=1))
    assert rs["largest_shift_vs_original"].tolist() == shift.astype(int).tolist()


def test_untrusted_target_flagged_in_condition_tables(evaluated):
    _, _, tables = evaluated
    for name in ("table3_adapted1", "rank_shifts", "table4_original_generic_self", "cross_only_improvements",
                 "conditions_per_pair"):
        df = tables[name]
        assert df.attrs["untrusted"] == ["cfg03"], name
        flagged = df.loc[df["configuration_id"] == "cfg03", "flags"]
        assert (flagged == "SIMULATED UNTRUSTED").all(), name
        assert (df.loc[df["configuration_id"] != "cfg03", "flags"] == "SIMULATED").all(), name


def test_missing_pooled_unit_leaves_adapted1_out_with_the_reason(evaluated):
    df, cal, _ = evaluated
    gap = df.drop(df.index[(df["condition"] == "pooled") & (df["configuration_id"] == "cfg01")
                           & (df["task_id"] == "task004") & (df["source"] == "cfg02")])
    tables = build_tables(gap, cal, n_resamples=20, n_draws=100)
    assert "table3_adapted1" not in tables
    notes = tables["table3_conditions"].attrs["notes"]
    assert any(n.startswith("Adapted-1 left out: no pooled execution of target 'cfg01' on task 'task004' with source 'cfg02'")
               for n in notes)
    assert "adapted1" not in set(tables["table3_conditions"]["condition"])


def test_evaluate_and_report_write_the_same_condition_tables_through_one_writer(evaluated, tmp_path):
    """`evaluate --calibration` (render_evaluation) writes the report's condition tables, by the report's writer."""
    import json

    from rich.console import Console

    from matchmeter.metrics.calibration import write_calibration
    from matchmeter.pipeline.evaluate import EvaluationSummary, render_evaluation
    from matchmeter.report import condition_tables
    from matchmeter.report.inputs import make_context
    from matchmeter.report.registry import titled
    from matchmeter.report.render import write_tables

    df, cal, _ = evaluated
    run_dir, cal_path = tmp_path / "eval", tmp_path / "calibration.json"
    run_dir.mkdir()
    df.to_parquet(run_dir / "conditions.parquet", index=False)
    write_calibration(cal, cal_path)
    summary = EvaluationSummary(run_dir=str(run_dir), planned=0, executed=0, skipped=0, units=0,
                                conditions_table=str(run_dir / "conditions.parquet"))
    console = Console(record=True, width=200)
    render_evaluation(summary, cal_path, console)
    report_dir = tmp_path / "report-tables"
    expected = write_tables(titled(condition_tables.build(make_context(df, cal.cuts(), cal.alpha))), report_dir)
    assert sorted(p.name for p in (run_dir / "tables").iterdir()) == sorted(p.name for p in expected)
    for path in expected:
        assert (run_dir / "tables" / path.name).read_text() == path.read_text(), path.name
    payload = json.loads((run_dir / "tables" / "table3_conditions.json").read_text())
    assert payload["label"] == "SIMULATED"
    assert [r["condition"] for r in payload["rows"]] == ["original", "self", "cross_only", "pooled", "generic", "adapted1"]
    assert "Table 3" in console.export_text()


def test_an_evaluate_run_with_only_original_writes_no_condition_tables(evaluated, tmp_path):
    from matchmeter.metrics.calibration import write_calibration
    from matchmeter.report.registry import write_run_tables

    df, cal, _ = evaluated
    path = tmp_path / "conditions.parquet"
    df.loc[df["condition"] == "original"].to_parquet(path, index=False)
    write_calibration(cal, tmp_path / "cal.json")
    assert write_run_tables(path, tmp_path / "cal.json", tmp_path / "tables") == {}
    assert not (tmp_path / "tables").exists()
