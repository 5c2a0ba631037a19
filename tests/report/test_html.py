"""`matchmeter report`: one self-contained HTML file (no external reference), SIMULATED banner, plots,
escaping, bad input, and rendering in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from matchmeter.metrics.synthetic import synthetic_conditions
from tests.helpers.cli_inprocess import cli
from tests.helpers.warm_cli import run_matchmeter
from tests.metrics.fixtures import reference_table, scored_table

EXTERNAL = re.compile(r"https?:|//[a-z0-9.-]+\.[a-z]{2,}|\bsrc\s*=|\bhref\s*=|url\(|@import|xmlns|<script|<link|<iframe",
                      re.IGNORECASE)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def run_dir(root, name, df):
    path = root / "runs" / name
    path.mkdir(parents=True)
    df.to_parquet(path / "results.parquet", index=False)
    (path / "manifest.json").write_text(json.dumps({"run_id": name, "price_table_id": "prices-test"}))
    return path


def calibrated(tmp_path, monkeypatch, capsys, df):
    ref = run_dir(tmp_path, "ref", df)
    cal = tmp_path / "calibration.json"
    assert cli(monkeypatch, capsys, "calibrate", ref, "--out", cal)[0] == 0
    return ref, cal


@pytest.fixture(scope="module")
def real_report(real_runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    proc = run_matchmeter("report", *map(str, real_runs.runs), "--calibration",
                           str(real_runs.calibration), "--out", str(out), "--bootstrap", "200", timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def test_real_report_is_self_contained_and_labelled(real_report):
    out, stdout = real_report
    html = out.read_text(encoding="utf-8")
    assert EXTERNAL.findall(html) == []
    assert html.count('id="simulated-banner"') == 1
    assert html.count("<svg ") == 4  # AMS bars, budget curves, frontier, heat map (no conditions here)
    for name in ("table1_configurations", "table1_leaders", "table2_ablations", "budget_quality", "frontier",
                 "efficiency", "fairness"):
        assert f"{name}.csv" in {p.name for p in (out.parent / "report-tables").iterdir()}
    for name in ("table1_configurations", "table1_leaders", "pass_k", "table2_ablations", "efficiency", "fairness"):
        assert f'id="{name}"' in html
    # two attempts per task: pass@1, pass^1, pass@2, pass^2 columns; trust in three states, never "trusted: yes"
    assert "pass_<wbr>at_<wbr>2" in html
    assert "pass_<wbr>hat_<wbr>2" in html
    assert html.count("<td class=s>not probed</td>") == 3
    assert "not probed = no probe ran" in html
    assert "sim/expert+bash" in html
    assert html.count('<span class="tag sim">SIMULATED</span>') >= 7
    # the terminal shows the tables and where the files went
    assert "Table 1 — configurations on Original descriptions — SIMULATED" in stdout
    assert f"SIMULATED report written: {out}" in " ".join(stdout.split())


def test_plain_report_has_no_banner_and_escapes_names(tmp_path, monkeypatch, capsys):
    ref, cal = calibrated(tmp_path, monkeypatch, capsys, reference_table())
    df = scored_table()
    df["configuration_id"] = df["configuration_id"].map({"X": "<b>x&y</b>", "Y": "Y"})
    df["trusted"] = df["configuration_id"] != "Y"
    scored = run_dir(tmp_path, "scored", df)
    out = tmp_path / "plain.html"
    code, stdout, err = cli(monkeypatch, capsys, "report", scored, "--calibration", cal, "--out", out, "--bootstrap", "50",
                            "--quiet", "--tables-dir", tmp_path / "t")
    assert (code, err) == (0, "")
    assert "SIMULATED" not in stdout
    html = out.read_text(encoding="utf-8")
    assert "simulated-banner" not in html
    assert "SIMULATED" not in html
    assert "<b>x&y</b>" not in html
    assert "&lt;b&gt;x&amp;y&lt;/b&gt;" in html
    assert '<tr class="untrusted"><td class=s>Y</td>' in html
    assert '<span class="tag untr">UNTRUSTED: Y</span>' in html
    assert EXTERNAL.findall(html) == []
    assert (tmp_path / "t" / "table1_configurations.json").is_file()


def test_conditions_report_has_rank_shift_plot(tmp_path, monkeypatch, capsys):
    df = synthetic_conditions(n_targets=3, n_tasks=9, n_sources=3, seed=5)
    df["simulated"] = False
    ref, cal = calibrated(tmp_path, monkeypatch, capsys, df.loc[df["condition"] == "original"])
    evaluated = run_dir(tmp_path, "eval", df)
    out = tmp_path / "cond.html"
    code, stdout, err = cli(monkeypatch, capsys, "report", evaluated, "--calibration", cal, "--out", out,
                            "--bootstrap", "20", "--draws", "200")
    assert (code, err) == (0, "")
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg ") == 5
    assert 'aria-label="rank shifts between conditions"' in html
    for name in ("table3_conditions", "table3_adapted1", "rank_shifts", "table4_original_generic_self",
                 "cross_only_improvements"):
        assert f'id="{name}"' in html
    # Adapted-1 shows each target's mean reward, cost and AMS over the draws with their 95% draw intervals
    adapted = html[html.index('id="table3_adapted1"'):]
    adapted = adapted[:adapted.index("</table>")]
    for col in ("mean_<wbr>reward_<wbr>low", "mean_<wbr>cost_<wbr>usd_<wbr>high", "ams_<wbr>low", "ams_<wbr>high",
                "first_<wbr>share"):
        assert col in adapted, col
    assert "Table 3 — macro AMS and leader per description condition" in stdout


def test_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    ref, cal = calibrated(tmp_path, monkeypatch, capsys, reference_table())
    code, _, err = cli(monkeypatch, capsys, "report", ref, "--calibration", tmp_path / "nope.json", "--out", tmp_path / "r.html")
    assert code == 2
    assert err.strip() == (f"error: no calibration file ({tmp_path / 'nope.json'}): create one with "
                           "`matchmeter calibrate RUN... --out FILE`")
    code, _, err = cli(monkeypatch, capsys, "report", ref, "--calibration", cal, "--out", tmp_path)
    assert code == 2
    assert err.strip() == f"error: --out is a directory ({tmp_path}): pass a file name such as report.html"
    df = reference_table()
    df.loc[0, "task_id"] = "t9"
    odd = run_dir(tmp_path, "odd", df)
    code, _, err = cli(monkeypatch, capsys, "report", odd, "--calibration", cal, "--out", tmp_path / "r.html")
    assert code == 2
    assert err.startswith("error: 1 scored task(s) are not in the calibration (e.g. t9)")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); "
                                             "the headless rendering check needs it")
def test_report_renders_in_headless_chromium(real_report, tmp_path):
    out, _ = real_report
    shot = tmp_path / "shot.png"
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    proc = subprocess.run([*base, f"--screenshot={shot}", "--window-size=1280,2000", out.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (1280, 2000)
    assert len(data) > 50_000  # a blank 1280x2000 page compresses to a few KB
    dom = subprocess.run([*base, "--dump-dom", out.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    for header in ("configuration_id", "ams_ci_low", "cost_per_pass_usd", "criterion", "composite", "cb_hdr"):
        assert f"<th>{header.replace('_', '_<wbr>')}</th>" in text
    assert "SIMULATED — results below include executions by offline sim/ models" in text
    assert text.count("<svg") == 4
