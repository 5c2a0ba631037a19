"""Pricing composes (issue 31, item 6): `--prices FILE` re-prices every run a command reads from the stored
token counts (score, report, calibrate, evaluate's tables), so a user's model priced with its own file is
scored beside the sim references, a stored run is re-priced without re-running it, and a table with nothing
scorable is refused with the reason instead of printed empty."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from matchmeter.llm.pricing import PriceTable
from tests.helpers.cli_inprocess import cli
from tests.metrics.fixtures import reference_table

MINE = 'table_id = "mine"\n[[price]]\npattern = "mine-model"\ninput = 2.0\ncached_input = 0.0\noutput = 2.0\nreasoning = 2.0\n'


def priced(df: pd.DataFrame, models: dict[str, str], usd_per_m: float | None) -> pd.DataFrame:
    """Token classes (all input) for every row and the cost one price table gives them (None: unpriced)."""
    out = df.copy()
    out["model"] = out["configuration_id"].map(models)
    out["tokens_input"] = out["tokens_total"]
    out["tokens_cached_input"] = out["tokens_output"] = out["tokens_reasoning"] = 0
    out["cost_usd"] = None if usd_per_m is None else out["tokens_input"] * usd_per_m / 1e6
    out["cost_null_reason"] = "no price for model mine-model in price table 2026-11-01" if usd_per_m is None else None
    out["execution_key"] = [f"{models[c][:3]}{i:021x}" for i, c in enumerate(out["configuration_id"])]
    return out


def run_dir(root, name, df, prices_file=None):
    path = root / name
    path.mkdir()
    df.to_parquet(path / "results.parquet", index=False)
    table = PriceTable.load(overrides=prices_file)
    (path / "manifest.json").write_text(json.dumps({"run_id": name, "price_table_id": table.table_id,
                                                    "price_table_digest": table.digest}))
    return path


@pytest.fixture
def runs(tmp_path):
    """Sim references A and B (shipped table: sim/* at $1 per M tokens) and a user's model U priced with
    its own file ($2 per M), stored once priced (run with --prices) and once unpriced (run without)."""
    mine = tmp_path / "mine.toml"
    mine.write_text(MINE)
    ref = run_dir(tmp_path, "ref", priced(reference_table(), {"A": "sim/a", "B": "sim/b"}, 1.0))
    user_rows = reference_table().loc[lambda d: d["configuration_id"] == "B"].assign(configuration_id="U")
    user = run_dir(tmp_path, "user", priced(user_rows, {"U": "mine-model"}, 2.0), mine)
    unpriced = run_dir(tmp_path, "user-unpriced", priced(user_rows, {"U": "mine-model"}, None))
    return mine, ref, user, unpriced


def test_a_user_model_priced_with_its_file_is_scored_beside_the_sim_references(tmp_path, monkeypatch, capsys, runs):
    """Fails on the old code: calibrate had no --prices, and score refused "runs were costed with different
    price tables" even when --prices was given to re-price them."""
    mine, ref, user, unpriced = runs
    cal = tmp_path / "cal.json"
    code, _, err = cli(monkeypatch, capsys, "calibrate", ref, "--out", cal, "--prices", mine)
    assert (code, err) == (0, "")
    written = json.loads(cal.read_text())
    assert written["price_table_id"] == "2026-11-01+mine"
    assert written["price_table_digest"] == PriceTable.load(overrides=mine).digest

    code, _, err = cli(monkeypatch, capsys, "score", ref, user, "--calibration", cal, "--prices", mine,
                       "--out-dir", tmp_path / "s", "--json")
    assert (code, err) == (0, "")
    with_user = pd.read_csv(tmp_path / "s" / "scores.csv").set_index("configuration_id")
    assert set(with_user.index) == {"A", "B", "U"}
    # a stored run re-priced without re-running it: the unpriced copy of U scores as the priced one
    code, _, err = cli(monkeypatch, capsys, "score", ref, unpriced, "--calibration", cal, "--prices", mine,
                       "--out-dir", tmp_path / "t", "--json")
    assert (code, err) == (0, "")
    repriced = pd.read_csv(tmp_path / "t" / "scores.csv").set_index("configuration_id")
    pd.testing.assert_frame_equal(repriced, with_user)
    assert json.loads((tmp_path / "t" / "scores.json").read_text())["repriced_with"].startswith("2026-11-01+mine")
    # U costs twice B per token on the same executions: same reward, AMS no higher
    assert with_user.loc["U", "ams"] <= with_user.loc["B", "ams"]

    code, _, err = cli(monkeypatch, capsys, "report", ref, unpriced, "--calibration", cal, "--prices", mine,
                       "--out", tmp_path / "r.html", "--tables-dir", tmp_path / "rt", "--quiet", "--bootstrap", "10")
    assert code == 0, err
    t1 = pd.read_csv(tmp_path / "rt" / "table1_configurations.csv").set_index("configuration_id")
    assert t1.loc["U", "ams"] == pytest.approx(with_user.loc["U", "ams"])
    assert t1.loc["U", "mean_cost_usd"] == pytest.approx(t1.loc["B", "mean_cost_usd"] * 2)


def test_prices_that_differ_from_the_calibration_are_refused(tmp_path, monkeypatch, capsys, runs):
    mine, ref, user, _ = runs
    shipped_cal = tmp_path / "shipped.json"
    assert cli(monkeypatch, capsys, "calibrate", ref, "--out", shipped_cal)[0] == 0
    code, _, err = cli(monkeypatch, capsys, "score", ref, user, "--calibration", shipped_cal, "--prices", mine)
    assert code == 2
    assert err.startswith("error: runs re-priced with 2026-11-01+mine (digest ")
    assert "but the calibration was priced with '2026-11-01'" in err
    assert "calibrate with the same --prices FILE" in err
    code, _, err = cli(monkeypatch, capsys, "score", ref, user, "--calibration", shipped_cal)
    assert code == 2
    assert "runs were costed with different price tables ['2026-11-01', '2026-11-01+mine']" in err
    assert "--prices FILE" in err


def test_nothing_scorable_exits_non_zero_with_the_reason(tmp_path, monkeypatch, capsys, runs):
    """Fails on the old code: score printed an empty table and exited 0 (report too)."""
    _, ref, _, unpriced = runs
    cal = tmp_path / "cal.json"
    assert cli(monkeypatch, capsys, "calibrate", ref, "--out", cal)[0] == 0
    code, out, err = cli(monkeypatch, capsys, "score", unpriced, "--calibration", cal, "--out-dir", tmp_path / "s")
    assert code == 2
    assert err.startswith("error: nothing to score under condition 'original': U: 5 execution(s) with unknown cost "
                          "(no price for model mine-model in price table 2026-11-01)")
    assert "--prices FILE" in err
    assert not (tmp_path / "s").exists()
    code, _, err = cli(monkeypatch, capsys, "report", unpriced, "--calibration", cal, "--out", tmp_path / "r.html",
                       "--quiet", "--bootstrap", "10")
    assert code == 2
    assert err.startswith("error: nothing to score: U: not scored: 5 execution(s) with unknown cost")
    assert not (tmp_path / "r.html").exists()


def test_evaluate_tables_re_price_adopted_executions(tmp_path, runs):
    """An evaluation that adopted U's unpriced Original executions and ran Generic priced with --prices: its
    condition tables re-price both with the file, so U is compared under both conditions (old code: U left
    out of Original, kept in Generic)."""
    from matchmeter.metrics.calibration import calibrate_runs
    from matchmeter.report.registry import write_run_tables

    mine, ref, user, unpriced = runs
    cal = tmp_path / "cal.json"
    calibrate_runs([ref], cal, prices=mine)
    orig = pd.read_parquet(unpriced / "results.parquet").assign(condition="original", source=None)
    generic = pd.read_parquet(user / "results.parquet").assign(
        condition="generic", source=None, description_origin="generic",
        execution_key=lambda d: [f"gen{i:021x}" for i in range(len(d))])
    ev = tmp_path / "eval"
    ev.mkdir()
    pd.concat([orig, generic], ignore_index=True).to_parquet(ev / "conditions.parquet", index=False)
    table = PriceTable.load(overrides=mine)
    (ev / "manifest.json").write_text(json.dumps({"run_id": "eval", "price_table_id": table.table_id,
                                                  "price_table_digest": table.digest}))
    tables = write_run_tables(ev / "conditions.parquet", cal, tmp_path / "tables", n_draws=10, prices=mine)
    per_pair = tables["conditions_per_pair"].set_index("condition")
    assert per_pair.loc["original", "configuration_id"] == "U"
    assert per_pair.loc["original", "ams"] == pytest.approx(per_pair.loc["generic", "ams"])
