"""Report tables: equal to `matchmeter score` on real runs, hand-computed Table 1 numbers, labels, files."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.calibration import calibrate, read_calibration
from matchmeter.metrics.scoring import score_runs
from matchmeter.metrics.table import load_results, validate_results
from matchmeter.report.inputs import task_context
from matchmeter.report.registry import build_tables
from matchmeter.report.render import write_tables
from tests.helpers.cli_inprocess import cli
from tests.metrics.fixtures import reference_table, row, scored_table


def real_tables(real_runs, **kw):
    frame = load_results(real_runs.runs).frame
    tc = task_context(real_runs.runs)
    return frame, build_tables(frame, read_calibration(real_runs.calibration), reference_paths=tc.reference_paths,
                               run_dirs=real_runs.runs, n_resamples=200, **kw)


# ------------------------------------------------------------------ real runs


def test_table1_equals_matchmeter_score_on_real_runs(real_runs, tmp_path, monkeypatch, capsys):
    code, _, err = cli(monkeypatch, capsys, "score", *real_runs.runs, "--calibration", real_runs.calibration,
                       "--out-dir", tmp_path / "scores")
    assert (code, err) == (0, "")
    code, _, err = cli(monkeypatch, capsys, "report", *real_runs.runs, "--calibration", real_runs.calibration,
                       "--out", tmp_path / "r.html", "--bootstrap", "200", "--quiet")
    assert (code, err) == (0, "")
    scores = pd.read_csv(tmp_path / "scores" / "scores.csv").set_index("configuration_id")
    t1 = pd.read_csv(tmp_path / "r-tables" / "table1_configurations.csv").set_index("configuration_id")
    assert sorted(t1.index) == sorted(scores.index) == ["sim/expert+bash", "sim/quitter+bash", "sim/sloppy+bash"]
    assert list(t1.index) == list(scores.index)  # same order: AMS descending
    np.testing.assert_allclose(t1["ams"], scores["ams"], rtol=0, atol=1e-12)
    assert list(t1["rank"]) == list(scores["rank"])
    assert list(t1["n_executions"]) == list(scores["n_executions"]) == [6, 6, 6]
    # and against the library call score_runs uses
    lib = score_runs(real_runs.runs, real_runs.calibration).scores.table.set_index("configuration_id")
    np.testing.assert_allclose(t1["ams"], lib["ams"], rtol=0, atol=1e-12)


def test_table1_counts_from_the_results_table(real_runs):
    frame, tables = real_tables(real_runs)
    t1 = tables["table1_configurations"].set_index("configuration_id")
    for cfg, rows in frame.groupby("configuration_id"):
        passes = int((rows["reward"] >= 1).sum())
        assert t1.loc[cfg, "passes"] == passes
        assert t1.loc[cfg, "mean_reward"] == pytest.approx(rows.groupby("task_id")["reward"].mean().mean())
        if passes:
            assert t1.loc[cfg, "cost_per_pass_usd"] == pytest.approx(rows["cost_usd"].sum() / passes)
            assert t1.loc[cfg, "tokens_per_pass"] == pytest.approx(rows["tokens_total"].sum() / passes)
        else:
            assert math.isinf(t1.loc[cfg, "cost_per_pass_usd"])
    ci = ams.bootstrap_ams_ci(frame, read_calibration(real_runs.calibration).cuts(), n_resamples=200)
    ci = ci.set_index("configuration_id")
    np.testing.assert_allclose(t1.loc[ci.index, "ams_ci_low"], ci["ci_low"])
    np.testing.assert_allclose(t1.loc[ci.index, "ams_ci_high"], ci["ci_high"])
    assert t1.loc["sim/expert+bash", "passes"] == 6  # the expert follows the reference path


def test_budget_curve_means_are_aubqc_and_efficiency_of_expert(real_runs):
    frame, tables = real_tables(real_runs)
    cal = read_calibration(real_runs.calibration)
    scores = ams.score(frame, cal.cuts(), cal.alpha).table.set_index("configuration_id")
    bq = tables["budget_quality"]
    means = bq.groupby(["configuration_id", "stratum"])["reward_share"].mean()
    assert len(means) == 3 * 3
    for (cfg, s), value in means.items():
        assert value == pytest.approx(scores.loc[cfg, f"aubqc_{s}"], abs=1e-12)
    assert set(bq.groupby("stratum").size() / 3) == {float(len(cal.strata[s].budget_grid)) for s in ams.STRATA}
    eff = tables["efficiency"].set_index("configuration_id")
    assert eff["n_executions"].to_dict() == {"sim/expert+bash": 6, "sim/quitter+bash": 6, "sim/sloppy+bash": 6}
    # the reference path is one `cp`: the expert runs exactly it, so E = 1 and Q·E = 100
    assert eff.loc["sim/expert+bash", ["n_agent", "n_ref", "invalid", "distance", "efficiency", "composite"]].tolist() == \
        [1.0, 1.0, 0.0, 0.0, 1.0, 100.0]
    assert eff.loc["sim/quitter+bash", "composite"] < 100


def test_every_real_table_is_labelled_simulated(real_runs, tmp_path):
    _, tables = real_tables(real_runs)
    assert {"table1_configurations", "table1_leaders", "table2_ablations", "spearman_ams_pass_rate", "budget_quality",
            "frontier", "per_task_reward", "efficiency", "fairness"} <= set(tables)
    assert "transport" not in tables
    assert "table3_conditions" not in tables
    for name, df in tables.items():
        assert df.attrs["simulated"], name
        assert set(df["flags"]) == {"SIMULATED"}, name
    write_tables(tables, tmp_path)
    for name in tables:
        payload = json.loads((tmp_path / f"{name}.json").read_text())
        assert payload["label"] == "SIMULATED"
        assert len(payload["rows"]) == len(tables[name])
        assert pd.read_csv(tmp_path / f"{name}.csv")["flags"].eq("SIMULATED").all()


# ------------------------------------------------------------------ hand-computed


def hand_frame(untrusted=(), simulated=()):
    df = scored_table()
    df["trusted"] = ~df["configuration_id"].isin(untrusted)
    df["simulated"] = df["configuration_id"].isin(simulated)
    return validate_results(df)


def test_table1_and_leaders_hand_computed():
    cal = calibrate(validate_results(reference_table()))
    tables = build_tables(hand_frame(), cal, n_resamples=50)
    t1 = tables["table1_configurations"].set_index("configuration_id")
    # X rewards 1 .5 | 0 | 1 | 0 0 | .5 ; costs .12 .28 .35 .45 .5 .6 5.0 (tests/metrics/fixtures.py)
    assert t1.loc["X", "passes"] == 2
    assert t1.loc["X", "mean_reward"] == pytest.approx((0.75 + 0 + 1 + 0 + 0.5) / 5)
    assert t1.loc["X", "pass_rate"] == pytest.approx((0.5 + 0 + 1 + 0 + 0) / 5)
    assert t1.loc["X", "cost_per_pass_usd"] == pytest.approx(7.3 / 2)
    assert t1.loc["X", "tokens_per_pass"] == pytest.approx(700 / 2)
    assert t1.loc["X", "ams"] == pytest.approx(0.95 / 3)  # tests/metrics/test_cli_metrics.py
    assert t1.loc["Y", ["passes", "pass_rate", "cost_per_pass_usd", "ams"]].tolist() == pytest.approx([5, 1.0, 0.05, 1.0])
    assert list(t1.index) == ["Y", "X"]
    leaders = tables["table1_leaders"].set_index("criterion")
    assert leaders["leader"].tolist() == ["Y", "Y", "Y"]
    assert leaders["value"].tolist() == pytest.approx([1.0, 0.05, 1.0])
    assert not any(df.attrs["simulated"] for df in tables.values())
    assert all(set(df["flags"]) <= {""} for name, df in tables.items() if name != "table1_configurations")
    assert t1["flags"].tolist() == ["1-SEED", ""]  # Y ran each task once; X twice on t1 and t4


def test_untrusted_configuration_is_marked_in_every_table_it_appears_in():
    cal = calibrate(validate_results(reference_table()))
    tables = build_tables(hand_frame(untrusted=("X",), simulated=("Y",)), cal, n_resamples=50)
    for name, df in tables.items():
        named = df.drop(columns="flags").isin(["X"]).any().any() or name == "spearman_ams_pass_rate"
        assert df.attrs["untrusted"] == (["X"] if named else []), name
        assert ("UNTRUSTED" in " ".join(df["flags"])) == named, name
    assert {"table1_configurations", "frontier", "per_task_reward", "fairness", "budget_quality"} <= {
        n for n, df in tables.items() if df.attrs["untrusted"] == ["X"]}
    t1 = tables["table1_configurations"].set_index("configuration_id")
    assert t1.loc["X", "flags"] == "UNTRUSTED"
    assert t1.loc["Y", "flags"] == "SIMULATED 1-SEED"  # one execution per task
    assert t1.loc["X", "trust"] == "UNTRUSTED"
    assert t1.loc["Y", "trust"] == "not probed"  # no probe ran: passing per-trial checks are no claim of trust
    # summary rows computed over every configuration carry both labels
    assert tables["spearman_ams_pass_rate"]["flags"].tolist() == ["SIMULATED UNTRUSTED"]
    # a leader row is flagged by the configuration it names
    assert set(tables["table1_leaders"]["flags"]) == {"SIMULATED"}


def test_trust_has_three_states_in_tables_and_json(tmp_path):
    cal = calibrate(validate_results(reference_table()))
    df = scored_table()
    df["trusted"] = df["configuration_id"] != "X"
    probes = pd.DataFrame([row("Y", "probe-decoy-peek", 1.0, 0.01, trusted=True),
                           row("X", "probe-hidden-format", 0.0, 0.01, trusted=False)])
    z = scored_table().query("configuration_id == 'Y'").assign(configuration_id="Z", trusted=True)
    tables = build_tables(validate_results(pd.concat([df, probes, z], ignore_index=True)), cal, n_resamples=50)
    t1 = tables["table1_configurations"].set_index("configuration_id")
    assert t1["trust"].to_dict() == {"Y": "trusted", "Z": "not probed", "X": "UNTRUSTED"}
    assert t1.loc["Y", "n_executions"] == 5  # the probe execution is not scored
    write_tables(tables, tmp_path)
    payload = json.loads((tmp_path / "table1_configurations.json").read_text())
    assert payload["trust"] == {"X": "UNTRUSTED", "Y": "trusted", "Z": "not probed"}
    assert [r["trust"] for r in payload["rows"]] == ["trusted", "not probed", "UNTRUSTED"]


def test_partial_coverage_refused_then_marked_everywhere(tmp_path):
    cal = calibrate(validate_results(reference_table()))
    df = scored_table()
    df = validate_results(df.loc[~((df["configuration_id"] == "X") & (df["task_id"] == "t5"))])
    with pytest.raises(UserError, match=r"configuration 'X' lacks 1 of 5 calibrated tasks: t5 \(hard\); no hard task ran"):
        build_tables(df, cal, n_resamples=50)
    tables = build_tables(df, cal, n_resamples=50, allow_partial=True)
    t1 = tables["table1_configurations"].set_index("configuration_id")
    assert t1.loc["X", "coverage"] == "PARTIAL"
    assert t1.loc["Y", "coverage"] == "full"
    assert t1.loc["X", "ams"] == pytest.approx((0.15 + 0.3) / 2)  # easy and medium of test_ams' X; no hard stratum
    for name, table in tables.items():
        named = table.drop(columns="flags").isin(["X"]).any().any() or name == "spearman_ams_pass_rate"
        assert ("PARTIAL" in " ".join(table["flags"])) == named, name
        assert table.attrs["partial"] == (["X"] if named else []), name
    write_tables(tables, tmp_path)
    assert pd.read_csv(tmp_path / "table1_configurations.csv").set_index("configuration_id").loc["X", "flags"] == "PARTIAL"
    assert json.loads((tmp_path / "table1_configurations.json").read_text())["partial"] == ["X"]


def test_null_cost_configuration_is_listed_not_scored():
    cal = calibrate(validate_results(reference_table()))
    df = scored_table()
    df.loc[df["configuration_id"] == "X", "cost_usd"] = None
    tables = build_tables(validate_results(df), cal, n_resamples=50)
    t1 = tables["table1_configurations"].set_index("configuration_id")
    assert list(t1.index) == ["Y", "X"]
    assert pd.isna(t1.loc["X", "ams"])
    assert pd.isna(t1.loc["X", "cost_per_pass_usd"])
    assert any(n.startswith("X: not scored: 7 execution(s) with unknown cost") for n in tables["table1_configurations"].attrs["notes"])
    assert "table2_ablations" not in tables  # one scored configuration: no ranking to compare


def test_transport_and_core_tables_appear_only_when_the_data_has_them():
    ref = validate_results(reference_table())
    cal = calibrate(ref)
    plain = build_tables(ref, cal, n_resamples=20, core_task_ids=["t1", "t2", "t3"])
    assert "transport" not in plain
    fid = plain["core_fidelity"].iloc[0]
    assert (fid["n_core_tasks"], fid["n_full_tasks"]) == (3, 5)
    assert "core_fidelity" not in build_tables(ref, cal, n_resamples=20, core_task_ids=["t1", "t2", "t3", "t4", "t5"])
    rows = []
    for cfg, contract, transport, rewards in (("m+raw", "raw", "raw", [1, 1, 1, 1, 0]),
                                              ("m+nested", "raw", "nested", [1, 0, 0, 1, 0]),
                                              ("m+disclosed", "disclosed", "nested", [1, 1, 0, 1, 0])):
        for t, r in zip(("t1", "t2", "t3", "t4", "t5"), rewards, strict=True):
            rows.append({"configuration_id": cfg, "model": "m", "contract": contract, "transport": transport,
                         "task_id": t, "reward": float(r), "cost_usd": 0.1, "tokens_total": 100, "n_steps": 2})
    tr = build_tables(validate_results(pd.DataFrame(rows)), cal, n_resamples=20)["transport"].iloc[0]
    assert (tr["rr"], tr["rn"], tr["nn"]) == pytest.approx((0.8, 0.4, 0.6))
    assert (tr["damage"], tr["compensation"], tr["matched_gap"]) == pytest.approx((-0.4, 0.2, -0.2))
    assert tr["configurations"] == "m+disclosed, m+nested, m+raw"


def test_infinite_cost_per_pass_survives_json(tmp_path):
    cal = calibrate(validate_results(reference_table()))
    df = scored_table()
    df.loc[df["configuration_id"] == "X", "reward"] = 0.0
    tables = build_tables(validate_results(df), cal, n_resamples=20)
    write_tables({"table1_configurations": tables["table1_configurations"]}, tmp_path)
    rows = {r["configuration_id"]: r for r in json.loads((tmp_path / "table1_configurations.json").read_text())["rows"]}
    assert rows["X"]["cost_per_pass_usd"] == "Infinity"
    assert rows["X"]["tokens_per_pass"] == "Infinity"
    assert rows["Y"]["cost_per_pass_usd"] == pytest.approx(0.05)
