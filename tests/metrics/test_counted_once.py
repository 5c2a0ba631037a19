"""One execution key is one execution, whichever directories a command reads it through (issue 31, item 1).

An evaluation directory that adopted a run's executions (`evaluate --reuse`) holds them under the same keys;
`score`, `report` and `calibrate` given the run and the evaluation directory must count each once.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from matchmeter.metrics.table import load_results
from tests.helpers.cli_inprocess import cli
from tests.metrics.fixtures import reference_table


def keyed_reference() -> pd.DataFrame:
    df = reference_table()
    df["execution_key"] = [f"{i:024x}" for i in range(len(df))]
    return df


def write_dir(root, name, results: pd.DataFrame, conditions: pd.DataFrame | None = None):
    path = root / name
    path.mkdir(parents=True)
    results.to_parquet(path / "results.parquet", index=False)
    if conditions is not None:
        conditions.to_parquet(path / "conditions.parquet", index=False)
    (path / "manifest.json").write_text(json.dumps({"run_id": name, "price_table_id": "prices-test"}))
    return path


@pytest.fixture
def run_and_eval(tmp_path):
    """A run of A and B on t1..t5, and an evaluation dir that adopted all of it as its Original condition
    (plus Generic rows of its own, under new keys)."""
    ref = keyed_reference()
    run = write_dir(tmp_path, "run", ref)
    generic = ref.assign(description_origin="generic", condition="generic", source=None,
                         execution_key=[f"{i + 100:024x}" for i in range(len(ref))])
    adopted = ref.assign(condition="original", source=None)
    both = pd.concat([adopted, generic], ignore_index=True)
    ev = write_dir(tmp_path, "eval", both.drop(columns=["condition", "source"]), both)
    return run, ev


def test_the_same_execution_through_two_dirs_counts_once(tmp_path, monkeypatch, capsys, run_and_eval):
    """Fails on the old code: score and report counted A's 10 and B's 5 executions twice (n 20 and 10) and
    report's pass@k went to k = 2 from B's single execution per task seen twice."""
    run, ev = run_and_eval
    assert len(load_results([run, ev]).frame) == len(load_results([ev]).frame) == 30  # 15 original + 15 generic

    cal = tmp_path / "cal.json"
    code, _, err = cli(monkeypatch, capsys, "calibrate", run, ev, "--out", cal)
    assert (code, err) == (0, "")
    assert json.loads(cal.read_text())["n_reference_executions"] == 15

    code, _, err = cli(monkeypatch, capsys, "score", run, ev, "--calibration", cal, "--out-dir", tmp_path / "s", "--json")
    assert (code, err) == (0, "")
    n = pd.read_csv(tmp_path / "s" / "scores.csv").set_index("configuration_id")["n_executions"]
    assert n.to_dict() == {"A": 10, "B": 5}
    alone = tmp_path / "alone"
    assert cli(monkeypatch, capsys, "score", run, "--calibration", cal, "--out-dir", alone, "--json")[0] == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "s" / "scores.csv"), pd.read_csv(alone / "scores.csv"))

    tables = tmp_path / "tables"
    code, _, err = cli(monkeypatch, capsys, "report", run, ev, "--calibration", cal, "--out", tmp_path / "r.html",
                       "--tables-dir", tables, "--bootstrap", "20", "--draws", "10", "--quiet")
    assert code == 0, err
    t1 = pd.read_csv(tables / "table1_configurations.csv").set_index("configuration_id")
    assert t1["n_executions"].to_dict() == {"A": 10, "B": 5}
    assert t1.loc["B", "passes"] == 3  # t1, t2 and t4
    pass_k = pd.read_csv(tables / "pass_k.csv")
    assert [c for c in pass_k.columns if c.startswith("pass_at_")] == ["pass_at_1"]  # B ran each task once
    per_pair = pd.read_csv(tables / "conditions_per_pair.csv")
    assert set(per_pair["condition"]) == {"original", "generic"}


def test_a_fallback_execution_serving_two_units_of_one_evaluation_is_kept_per_unit():
    """Inside one evaluation table a key appears once per unit it serves (Original, and a pooled unit whose
    description fell back to Original): reading it, alone or beside the run, keeps one row per unit."""
    from matchmeter.metrics.table import once_per_execution

    ref = keyed_reference()
    rows = pd.concat([ref.assign(condition="original", source=None),
                      ref.assign(condition="pooled", source="A"),
                      ref.assign(condition="pooled", source="B")], ignore_index=True)
    assert len(once_per_execution(rows)) == 45
    assert len(once_per_execution(pd.concat([ref, rows], ignore_index=True))) == 45
    assert len(once_per_execution(pd.concat([rows, rows], ignore_index=True))) == 45
