"""What the user reads (issue 31, item 10): tables readable at 80 columns when piped, a one-seed bootstrap
interval flagged (never printed zero-width as if certain), SIMULATED on the rows of a mixed table rather
than on the whole table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.helpers.cli_inprocess import cli
from tests.metrics.fixtures import reference_table, scored_table

NAMES = {"A": "openai/gpt-4o-mini+bash", "B": "sim/expert+bash", "X": "claude-sonnet-4+claude-code",
         "Y": "sim/sloppy+bash"}


def run_dir(root, name, df):
    path = root / name
    path.mkdir()
    df = df.assign(configuration_id=df["configuration_id"].map(NAMES),
                   simulated=df["configuration_id"].isin(["B", "Y"]))
    df.to_parquet(path / "results.parquet", index=False)
    (path / "manifest.json").write_text(json.dumps({"run_id": name, "price_table_id": "prices-test"}))
    return path


@pytest.fixture
def mixed(tmp_path, monkeypatch, capsys):
    """Real-looking A and X (A: two attempts per task), simulated B and Y (one execution per task)."""
    ref, scored = run_dir(tmp_path, "ref", reference_table()), run_dir(tmp_path, "scored", scored_table())
    cal = tmp_path / "cal.json"
    assert cli(monkeypatch, capsys, "calibrate", ref, "--out", cal)[0] == 0
    return ref, scored, cal


def table_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith("  note:") and "written" not in line]


def test_tables_are_readable_at_80_columns_when_piped(tmp_path, monkeypatch, capsys, mixed):
    """Fails on the old code: Table 1 and the score table folded into 3-character columns, so a configuration
    id was spread over many lines ('cl', 'au', 'de', …) and no line named it whole."""
    ref, scored, cal = mixed
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = cli(monkeypatch, capsys, "report", ref, scored, "--calibration", cal, "--out",
                         tmp_path / "r.html", "--bootstrap", "20")
    assert code == 0, err
    code, scored_out, err = cli(monkeypatch, capsys, "score", ref, scored, "--calibration", cal, "--out-dir",
                                tmp_path / "s")
    assert code == 0, err
    for text in (out, scored_out):
        lines = table_lines(text)
        too_wide = [line for line in lines if len(line) > 80]
        assert too_wide == [] or all(line.startswith(("Table", "pass@k", "Rank", "Harness", "Reward", "AMS"))
                                     for line in too_wide), too_wide  # only titles may run on (soft-wrapped)
        for name in NAMES.values():
            assert any(name in line for line in lines), name
    # Table 1 stacked: the row's label line, then its values as `column value` pairs
    at = out.splitlines().index("claude-sonnet-4+claude-code")
    assert out.splitlines()[at + 1].strip().startswith("rank 4 · n_executions 7 · passes 2 · pass_rate 0.300")
    # a table that fits stays a grid
    assert "┃ criterion              ┃ leader" in out


def test_a_one_seed_interval_is_flagged_not_shown_zero_width(tmp_path, monkeypatch, capsys, mixed):
    """Fails on the old code: Y (one execution per task, every task passed cheaply) had AMS 1.000 with the
    interval [1.000, 1.000], read as certainty, and no row or note said it came from one seed."""
    ref, scored, cal = mixed
    code, _, err = cli(monkeypatch, capsys, "report", ref, scored, "--calibration", cal, "--out", tmp_path / "r.html",
                       "--tables-dir", tmp_path / "t", "--bootstrap", "50", "--quiet")
    assert code == 0, err
    t1 = pd.read_csv(tmp_path / "t" / "table1_configurations.csv", keep_default_na=False,
                     na_values=[""]).set_index("configuration_id")
    assert t1.loc["sim/sloppy+bash", "flags"] == "SIMULATED 1-SEED"
    assert np.isnan(t1.loc["sim/sloppy+bash", "ams_ci_low"])
    assert np.isnan(t1.loc["sim/sloppy+bash", "ams_ci_high"])
    assert t1.loc["sim/expert+bash", "flags"] == "SIMULATED 1-SEED"  # one seed, but its interval is kept
    assert t1.loc["sim/expert+bash", "ams_ci_low"] < t1.loc["sim/expert+bash", "ams_ci_high"]
    assert pd.isna(t1.loc["openai/gpt-4o-mini+bash", "flags"])  # two attempts per task
    notes = json.loads((tmp_path / "t" / "table1_configurations.json").read_text())["notes"]
    assert ("1-SEED: sim/expert+bash, sim/sloppy+bash: one execution per task (one seed, one attempt), so the AMS "
            "interval resamples tasks only") in " ".join(notes)
    assert any("not shown for sim/sloppy+bash: nothing varied under resampling" in n for n in notes)


def test_simulated_marks_rows_of_a_mixed_table_not_the_whole_table(tmp_path, monkeypatch, capsys, mixed):
    """Fails on the old code: every table with any sim/ row was titled and labelled SIMULATED as a whole."""
    ref, scored, cal = mixed
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = cli(monkeypatch, capsys, "report", ref, scored, "--calibration", cal, "--out", tmp_path / "r.html",
                         "--tables-dir", tmp_path / "t", "--bootstrap", "20")
    assert code == 0, err
    t1 = json.loads((tmp_path / "t" / "table1_configurations.json").read_text())
    assert t1["label"] == "SIMULATED rows flagged"
    assert {r["configuration_id"]: "SIMULATED" in (r["flags"] or "") for r in t1["rows"]} == {
        "sim/sloppy+bash": True, "openai/gpt-4o-mini+bash": False, "sim/expert+bash": True,
        "claude-sonnet-4+claude-code": False}
    assert "Table 1 — configurations on Original descriptions — SIMULATED rows flagged" in out
    leaders = json.loads((tmp_path / "t" / "table1_leaders.json").read_text())
    assert leaders["label"] == "SIMULATED"  # every leader is a sim/ configuration
    html = (tmp_path / "r.html").read_text()
    assert '<span class="tag sim">SIMULATED rows flagged</span>' in html
    code, out, err = cli(monkeypatch, capsys, "score", ref, scored, "--calibration", cal, "--out-dir", tmp_path / "s")
    assert code == 0, err
    assert "AMS — condition original — SIMULATED rows flagged" in out
    grid = [line for line in out.splitlines() if "claude-sonnet-4+claude-code" in line or "sim/sloppy+bash" in line]
    assert any("sim/sloppy+bash" in line and line.rstrip(" │").endswith("SIMULATED") for line in grid)
    assert any("claude-sonnet-4+claude-code" in line and "SIMULATED" not in line for line in grid)
