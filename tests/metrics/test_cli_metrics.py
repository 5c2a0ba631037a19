"""`matchmeter calibrate` and `matchmeter score` through the real entry point, good and bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.helpers.cli_inprocess import cli
from tests.helpers.warm_cli import run_matchmeter
from tests.metrics.fixtures import reference_table, row, scored_table


def run_dir(root, name, df, price_table_id="prices-2026-01"):
    path = root / "runs" / name
    path.mkdir(parents=True)
    df.to_parquet(path / "results.parquet", index=False)
    (path / "manifest.json").write_text(json.dumps({"run_id": name, "price_table_id": price_table_id}))
    return path


@pytest.fixture
def calibrated(tmp_path, monkeypatch, capsys):
    ref = run_dir(tmp_path, "ref", reference_table())
    cal = tmp_path / "calibration.json"
    code, out, err = cli(monkeypatch, capsys, "calibrate", ref, "--out", cal)
    assert (code, err) == (0, "")
    assert "5 tasks: easy 2, medium 2, hard 1" in out
    return cal


def test_calibrate_then_score_hand_computed(tmp_path, monkeypatch, capsys, calibrated):
    data = json.loads(calibrated.read_text())
    assert data["schema_version"] == 1
    assert data["price_table_id"] == "prices-2026-01"
    assert data["reference_configuration_ids"] == ["A", "B"]
    assert data["strata"]["hard"]["budget_grid"] == [float("inf")]
    scored = run_dir(tmp_path, "scored", scored_table())
    code, out, err = cli(monkeypatch, capsys, "score", scored, "--calibration", calibrated, "--out-dir", tmp_path / "s")
    assert (code, err) == (0, "")
    assert "0.317" in out
    assert "1.000" in out
    table = pd.read_csv(tmp_path / "s" / "scores.csv").set_index("configuration_id")
    # X: (.15 + .3 + .5)/3 from test_ams.test_score_hand_computed ; Y: 1
    assert table.loc["X", "ams"] == pytest.approx(0.95 / 3)
    assert table.loc["Y", "ams"] == pytest.approx(1.0)
    payload = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert payload["calibration"]["reference_digest"] == json.loads(calibrated.read_text())["reference_digest"]
    assert [r["configuration_id"] for r in payload["scores"]] == ["Y", "X"]


def test_reference_config_option_and_unknown_reference(tmp_path, monkeypatch, capsys):
    ref = run_dir(tmp_path, "ref", reference_table())
    code, _, _ = cli(monkeypatch, capsys, "calibrate", ref, "--out", tmp_path / "c.json", "--reference-config", "A")
    assert code == 0
    assert json.loads((tmp_path / "c.json").read_text())["n_reference_executions"] == 10
    code, out, err = cli(monkeypatch, capsys, "calibrate", ref, "--out", tmp_path / "d.json", "--reference-config", "Q")
    assert code == 2
    assert err.strip() == ("error: reference configuration 'Q' has no Original execution in these runs "
                           "(--reference-config): choose among: A, B")


def _broken(kind):
    df = reference_table()
    if kind == "missing column":
        return df.drop(columns=["cost_usd"]), "results table lacks column 'cost_usd'"
    if kind == "nan reward":
        df.loc[3, "reward"] = np.nan
        return df, "reward is missing (NaN) in row 3"
    if kind == "reward above one":
        df.loc[4, "reward"] = 1.5
        return df, "reward 1.5 outside [0, 1] in row 4"
    df.loc[2, "cost_usd"] = -0.01
    return df, "negative cost -0.01 USD in row 2"


@pytest.mark.parametrize("kind", ["missing column", "nan reward", "reward above one", "negative cost"])
def test_bad_tables_are_one_line_exit_2(tmp_path, monkeypatch, capsys, kind):
    df, message = _broken(kind)
    ref = run_dir(tmp_path, "ref", df)
    code, out, err = cli(monkeypatch, capsys, "calibrate", ref, "--out", tmp_path / "c.json")
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"error: {message}")
    assert str(ref / "results.parquet") in err
    assert not (tmp_path / "c.json").exists()


def test_calibration_from_another_task_set(tmp_path, monkeypatch, capsys, calibrated):
    df = pd.concat([scored_table(), pd.DataFrame([row("X", "t9", 1.0, 0.1), row("Y", "t9", 1.0, 0.1)])])
    scored = run_dir(tmp_path, "other", df)
    code, _, err = cli(monkeypatch, capsys, "score", scored, "--calibration", calibrated, "--out-dir", tmp_path / "s")
    assert code == 2
    assert err.strip() == ("error: 1 scored task(s) are not in the calibration (e.g. t9) (calibration task set): "
                           "score against a calibration built on a task set that contains them (matchmeter calibrate); "
                           "scoring never recalibrates")
    assert not (tmp_path / "s").exists()


def test_price_table_mismatch(tmp_path, monkeypatch, capsys, calibrated):
    scored = run_dir(tmp_path, "scored", scored_table(), price_table_id="prices-2027-01")
    code, _, err = cli(monkeypatch, capsys, "score", scored, "--calibration", calibrated)
    assert code == 2
    assert "runs were priced with 'prices-2027-01' but the calibration with 'prices-2026-01'" in err


def test_null_cost_configuration_is_reported_not_scored(tmp_path, monkeypatch, capsys, calibrated):
    df = scored_table()
    df.loc[df.configuration_id == "X", "cost_usd"] = None
    df["cost_null_reason"] = np.where(df.configuration_id == "X", "model not in price table", None)
    scored = run_dir(tmp_path, "scored", df)
    code, out, _ = cli(monkeypatch, capsys, "score", scored, "--calibration", calibrated, "--out-dir", tmp_path / "s")
    assert code == 0
    assert "not scored: X: 7 execution(s) with unknown cost (model not in price table)" in out
    assert pd.read_csv(tmp_path / "s" / "scores.csv")["configuration_id"].tolist() == ["Y"]


def test_console_script_bad_calibration_file(tmp_path):
    scored = run_dir(tmp_path, "scored", scored_table())
    bad = tmp_path / "calibration.json"
    bad.write_text('{"schema_version": 1, "tasks": []}')
    proc = run_matchmeter("score", str(scored), "--calibration", str(bad), timeout=120)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("error: invalid calibration file: reference_configuration_ids: Field required")


def test_missing_run_dir(tmp_path, monkeypatch, capsys):
    code, _, err = cli(monkeypatch, capsys, "calibrate", tmp_path / "nope", "--out", tmp_path / "c.json")
    assert code == 2
    assert err.startswith("error: no results table")
