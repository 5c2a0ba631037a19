"""The scoring rules of issue 16 through the real entry point: incomplete coverage is refused unless
--allow-partial (then marked PARTIAL), an evaluation directory is scored one condition at a time (each
equal to scoring that condition's rows alone), and calibrating on an evaluation directory counts each
Original execution once (same digest as calibrating on the Original run)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from matchmeter.metrics import ams
from matchmeter.metrics.calibration import calibrate, read_calibration, reference_digest
from matchmeter.metrics.conditions import select_condition
from matchmeter.metrics.synthetic import synthetic_conditions
from matchmeter.metrics.table import validate_results
from tests.metrics.fixtures import reference_table, scored_table
from tests.metrics.test_cli_metrics import cli, run_dir


@pytest.fixture
def calibrated(tmp_path, monkeypatch, capsys):
    ref = run_dir(tmp_path, "ref", reference_table())
    cal = tmp_path / "calibration.json"
    assert cli(monkeypatch, capsys, "calibrate", ref, "--out", cal)[0] == 0
    return cal


# ------------------------------------------------------------------ partial coverage


def test_partial_coverage_is_refused_with_one_line(tmp_path, monkeypatch, capsys, calibrated):
    df = scored_table()
    scored = run_dir(tmp_path, "scored", df.loc[~((df.configuration_id == "X") & (df.task_id == "t5"))])
    code, out, err = cli(monkeypatch, capsys, "score", scored, "--calibration", calibrated, "--out-dir", tmp_path / "s")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "configuration 'X' lacks 1 of 5 calibrated tasks: t5 (hard); no hard task ran" in err
    assert "--allow-partial" in err
    assert not (tmp_path / "s").exists()


def test_allow_partial_scores_what_ran_and_marks_it(tmp_path, monkeypatch, capsys, calibrated):
    df = scored_table()
    scored = run_dir(tmp_path, "scored", df.loc[~((df.configuration_id == "X") & (df.task_id.isin(["t4", "t5"])))])
    code, out, err = cli(monkeypatch, capsys, "score", scored, "--calibration", calibrated, "--out-dir", tmp_path / "s",
                         "--allow-partial")
    assert (code, err) == (0, "")
    assert "PARTIAL: X: no execution on 2 calibrated task(s): t4, t5" in out
    table = pd.read_csv(tmp_path / "s" / "scores.csv").set_index("configuration_id")
    assert table["coverage"].to_dict() == {"Y": "full", "X": "PARTIAL"}
    # X keeps easy .15 and, of medium, t3 alone (R 1 at C .45: TQ 1, AUBQC .6, EFR 0 -> .8); no hard stratum
    assert table.loc["X", "ams"] == pytest.approx((0.15 + 0.8) / 2)
    assert np.isnan(table.loc["X", "ams_hard"])
    payload = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert payload["partial"] == {"X": ["t4", "t5"]}
    assert [r["coverage"] for r in payload["scores"]] == ["full", "PARTIAL"]
    assert payload["trust"] == {"X": "not probed", "Y": "not probed"}


# ------------------------------------------------------------------ evaluation directories


def evaluation_tables(n_targets=3, n_tasks=6, n_sources=2, seed=1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(results.parquet, conditions.parquet) as `matchmeter evaluate` writes them: one row per execution,
    then the executions joined to every condition unit they serve. For target cfg00 on task000 source
    cfg01's selection fell back to Original: that pooled unit shares the Original execution."""
    cond = synthetic_conditions(n_targets, n_tasks, n_sources, seed=seed)
    cond["description_sha256"] = [f"{t}-{c}-{s}" for t, c, s in zip(cond.task_id, cond.condition, cond.source, strict=True)]
    cond["description_origin"] = cond["condition"].map({"original": "original", "pooled": "optimized", "generic": "generic"})
    fell_back = (cond.condition == "pooled") & (cond.source == "cfg01") & (cond.task_id == "task000")
    results = cond.loc[~fell_back].drop(columns=["condition", "source"]).reset_index(drop=True)
    results["execution_key"] = [f"k{i:04d}" for i in range(len(results))]
    results["trusted"] = True
    units = cond[["condition", "configuration_id", "task_id", "source", "description_sha256"]].copy()
    orig_sha = units.loc[units.condition == "original"].drop_duplicates("task_id").set_index("task_id")["description_sha256"]
    units.loc[fell_back, "description_sha256"] = units.loc[fell_back, "task_id"].map(orig_sha)
    joined = results.merge(units, on=["configuration_id", "task_id", "description_sha256"], how="inner")
    return results, joined


def eval_dir(root, results, joined):
    path = run_dir(root, "eval", results)
    joined.to_parquet(path / "conditions.parquet", index=False)
    return path


def test_calibration_on_evaluation_dir_equals_original_run(tmp_path, monkeypatch, capsys):
    results, joined = evaluation_tables()
    assert joined["execution_key"].duplicated().sum() == 3  # the fallback unit repeats 3 targets' executions
    original = run_dir(tmp_path, "original", results.loc[results.description_origin == "original"])
    evaluated = eval_dir(tmp_path, results, joined)
    for name, path in (("orig", original), ("eval", evaluated)):
        code, _, err = cli(monkeypatch, capsys, "calibrate", path, "--out", tmp_path / f"{name}.json")
        assert (code, err) == (0, "")
    a, b = read_calibration(tmp_path / "orig.json"), read_calibration(tmp_path / "eval.json")
    assert a.reference_digest == b.reference_digest
    assert a.n_reference_executions == b.n_reference_executions == 18
    assert a.model_dump(exclude={"created_at", "run_ids"}) == b.model_dump(exclude={"created_at", "run_ids"})
    # what the old filter (description origin only) counted: the fallback executions twice, another digest
    twice = validate_results(joined.loc[joined.description_origin == "original"])
    assert len(twice) == 21
    assert reference_digest(twice) != a.reference_digest


@pytest.mark.parametrize("condition", ["original", "generic", "pooled", "self", "cross_only"])
def test_each_condition_scores_as_its_rows_alone(tmp_path, monkeypatch, capsys, condition):
    results, joined = evaluation_tables()
    evaluated = eval_dir(tmp_path, results, joined)
    cal = tmp_path / "cal.json"
    assert cli(monkeypatch, capsys, "calibrate", evaluated, "--out", cal)[0] == 0
    code, _, err = cli(monkeypatch, capsys, "score", evaluated, "--calibration", cal, "--out-dir", tmp_path / "s",
                       "--condition", condition)
    assert (code, err) == (0, "")
    got = pd.read_csv(tmp_path / "s" / "scores.csv").set_index("configuration_id")
    assert json.loads((tmp_path / "s" / "scores.json").read_text())["condition"] == condition
    rows = select_condition(validate_results(joined), condition)
    assert len(rows) == {"original": 18, "generic": 18, "pooled": 36, "self": 12, "cross_only": 24}[condition]
    unit = "source" if condition in ("pooled", "cross_only") else None
    alone = ams.score(rows, read_calibration(cal).cuts(), unit_col=unit).table.set_index("configuration_id")
    assert got["ams"].to_dict() == pytest.approx(alone["ams"].to_dict(), abs=1e-12)
    assert got["n_executions"].to_dict() == alone["n_executions"].to_dict()
    if condition in ("original", "generic"):  # a plain run holding only these rows scores the same through the CLI
        plain = run_dir(tmp_path, "plain", rows.drop(columns=["condition", "source"]).assign(description_origin="original"))
        assert cli(monkeypatch, capsys, "score", plain, "--calibration", cal, "--out-dir", tmp_path / "p")[0] == 0
        again = pd.read_csv(tmp_path / "p" / "scores.csv").set_index("configuration_id")
        assert again["ams"].to_dict() == pytest.approx(got["ams"].to_dict(), abs=1e-12)


def test_several_conditions_give_one_table_each_never_a_mix(tmp_path, monkeypatch, capsys):
    results, joined = evaluation_tables()
    evaluated = eval_dir(tmp_path, results, joined)
    cal = tmp_path / "cal.json"
    assert cli(monkeypatch, capsys, "calibrate", evaluated, "--out", cal)[0] == 0
    code, out, err = cli(monkeypatch, capsys, "score", evaluated, "--calibration", cal, "--out-dir", tmp_path / "s",
                         "--condition", "original", "--condition", "pooled")
    assert (code, err) == (0, "")
    assert "condition original" in out
    assert "condition pooled" in out
    orig = pd.read_csv(tmp_path / "s" / "scores-original.csv")
    pooled = pd.read_csv(tmp_path / "s" / "scores-pooled.csv")
    assert orig["n_executions"].tolist() == [6, 6, 6]
    assert pooled["n_executions"].tolist() == [12, 12, 12]
    assert not (tmp_path / "s" / "scores.csv").exists()


def test_unknown_or_absent_condition_is_one_line(tmp_path, monkeypatch, capsys, calibrated):
    plain = run_dir(tmp_path, "plain", scored_table())
    code, _, err = cli(monkeypatch, capsys, "score", plain, "--calibration", calibrated, "--condition", "pooled")
    assert code == 2
    assert "condition 'pooled' asked of runs without conditions" in err
    code, _, err = cli(monkeypatch, capsys, "score", plain, "--calibration", calibrated, "--condition", "adapted1")
    assert code == 2
    assert "unknown condition 'adapted1'" in err
    assert "matchmeter report" in err


def test_calibration_needs_strata_then_scores_equal(tmp_path):
    """Sanity: the in-memory calibration of the Original rows equals the CLI's (no hidden state)."""
    results, joined = evaluation_tables()
    a = calibrate(validate_results(results.loc[results.description_origin == "original"]))
    b = calibrate(validate_results(joined))
    assert a.reference_digest == b.reference_digest
