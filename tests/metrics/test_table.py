"""Results-table reader: one clear error per bad input; vectorised AMS equals the plain loop."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.synthetic import synthetic_results
from matchmeter.metrics.table import load_results, validate_results
from tests.metrics.test_ams_properties import cuts, tables


def _write(root: Path, name: str, df: pd.DataFrame, price: str | None) -> Path:
    path = root / name
    path.mkdir()
    df.to_parquet(path / "results.parquet")
    if price is not None:
        (path / "manifest.json").write_text(json.dumps({"price_table_id": price}))
    return path


def test_load_results_concatenates_and_reads_price_table(tmp_path):
    a = _write(tmp_path, "r1", synthetic_results(2, 3, 1, seed=1), "p1")
    b = _write(tmp_path, "r2", synthetic_results(2, 3, 1, seed=2), None)
    out = load_results([a, b])
    assert (len(out.frame), out.price_table_id, out.run_ids) == (12, "p1", ["r1", "r2"])


def test_mixed_price_tables_rejected(tmp_path):
    a = _write(tmp_path, "r1", synthetic_results(2, 3, 1), "p1")
    b = _write(tmp_path, "r2", synthetic_results(2, 3, 1), "p2")
    with pytest.raises(UserError, match=r"runs were costed with different price tables \['p1', 'p2'\]"):
        load_results([a, b])


def test_unreadable_parquet(tmp_path):
    path = tmp_path / "r"
    path.mkdir()
    (path / "results.parquet").write_text("not parquet")
    with pytest.raises(UserError, match="unreadable results table"):
        load_results([path])


def test_validate_messages():
    df = synthetic_results(1, 3, 1)
    with pytest.raises(UserError) as exc:
        validate_results(df.drop(columns=["reward", "n_steps"]), "x.parquet")
    assert exc.value.line() == ("results table lacks column 'reward' (and 1 more) (x.parquet): rebuild it from the "
                                "run's result.json files (ExecutionResult.to_row) or add the column")
    with pytest.raises(UserError, match="results table has no executions"):
        validate_results(df.iloc[:0])
    nulls = df.assign(cost_usd=np.nan)
    assert validate_results(nulls)["cost_usd"].isna().all()  # unknown costs are allowed here, handled per metric


def test_exact_budget_counts_as_within():
    # grid (.1, .2, .3), C = .2 -> budgets .2 and .3 hold it: R * 2/3
    cut = ams.StrataCuts({}, {"easy": [0.1, 0.2, 0.3], "medium": [1.0], "hard": [1.0]}, dict.fromkeys(ams.STRATA, 0.5))
    terms = ams.execution_terms(np.array([0.9, 0.0]), np.array([0.2, 0.6]), np.array([0, 0]), cut)
    assert terms.ravel().tolist() == pytest.approx([0.9, 0.6, 0.0, 0.0, 0.0, 1.0])


def _bench():
    spec = importlib.util.spec_from_file_location("bench_metrics", Path(__file__).parents[2] / "benchmarks" / "metrics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@settings(max_examples=40, deadline=None)
@given(tables(), cuts())
def test_vectorised_ams_equals_loop(df, cut):
    vec = ams.score(df, cut).table.set_index("configuration_id")["ams"].to_dict()
    assert vec == pytest.approx(_bench().ams_loop(df, cut), abs=1e-12)
