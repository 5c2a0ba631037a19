"""The report's tables are one registry (report/registry.py): every table has a title and an HTML section, and a
new metric is one builder plus one registry entry (docs/contributing.md, "Add a report metric")."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from matchmeter.metrics.synthetic import synthetic_conditions
from matchmeter.report import registry
from matchmeter.report.inputs import TableInputs
from matchmeter.report.labels import finish
from matchmeter.report.registry import HEADINGS, TABLES, TableEntry, check_registry
from tests.metrics.fixtures import reference_table, scored_table
from tests.report.test_html import calibrated, cli, run_dir


def tasks_per_configuration(inputs: TableInputs, built, key: str) -> pd.DataFrame:
    """The throwaway metric: how many tasks each configuration ran on Original descriptions."""
    counts = inputs.ctx.original.groupby("configuration_id")["task_id"].nunique()
    return finish(counts.rename("n_tasks").reset_index(), inputs.ctx, key)


def test_every_registered_table_has_a_title_a_section_and_one_key():
    assert [t for t in TABLES if not t.title.strip() or t.section not in HEADINGS] == []
    check_registry()
    with pytest.raises(ValueError, match="'lonely' has no title"):
        TableEntry("lonely", " ", "Transport", tasks_per_configuration)
    with pytest.raises(ValueError, match="section 'Nowhere' is not one of SECTIONS"):
        TableEntry("lonely", "A title", "Nowhere", tasks_per_configuration)
    with pytest.raises(ValueError, match="registered twice: fairness"):
        check_registry([*TABLES, TableEntry("fairness", "Again", "Transport", tasks_per_configuration)])


def test_every_table_a_report_builds_is_titled_and_in_its_html_section(tmp_path, monkeypatch, capsys):
    """A conditions report builds every table but efficiency, core_fidelity and transport: each one gets its registered
    title, and each one shown as a table is in the HTML under its section's heading (none drops out)."""
    df = synthetic_conditions(n_targets=3, n_tasks=9, n_sources=3, seed=5)
    df["simulated"] = False
    df["rewards"] = [json.dumps({"reward": r, "speed": 0.5}) for r in df["reward"]]  # a Harbor verifier's keys
    _, cal = calibrated(tmp_path, monkeypatch, capsys, df.loc[df["condition"] == "original"])
    out = tmp_path / "cond.html"
    code, _, err = cli(monkeypatch, capsys, "report", run_dir(tmp_path, "eval", df), "--calibration", cal,
                       "--out", out, "--bootstrap", "20", "--draws", "200", "--tables-dir", tmp_path / "t")
    assert (code, err) == (0, "")
    html = out.read_text(encoding="utf-8")
    written = {p.stem for p in (tmp_path / "t").glob("*.json")}
    assert written == {t.key for t in TABLES} - {"efficiency", "core_fidelity", "transport"}
    for table in TABLES:
        if table.key not in written:
            continue
        assert json.loads((tmp_path / "t" / f"{table.key}.json").read_text())["title"] == table.title
        if table.shown == "table":
            at = html.index(f'id="{table.key}"')
            assert html.rfind("<h2>", 0, at) == html.index(f"<h2>{table.section.replace('&', '&amp;')}</h2>")


def test_a_metric_added_by_one_registry_entry_is_in_the_files_the_terminal_and_the_html(tmp_path, monkeypatch,
                                                                                          capsys):
    entry = TableEntry("tasks_per_configuration", "Tasks per configuration on Original", "Transport",
                       tasks_per_configuration)
    unsupported = TableEntry("never_supported", "Never supported by the data", "Transport", lambda *_: None)
    monkeypatch.setattr(registry, "TABLES", [*TABLES, entry, unsupported])  # the one registry line (each)
    _, cal = calibrated(tmp_path, monkeypatch, capsys, reference_table())
    df = scored_table()
    out = tmp_path / "report.html"
    code, stdout, err = cli(monkeypatch, capsys, "report", run_dir(tmp_path, "scored", df), "--calibration", cal,
                            "--out", out, "--bootstrap", "20", "--tables-dir", tmp_path / "t")
    assert (code, err) == (0, "")
    expected = df.groupby("configuration_id")["task_id"].nunique().to_dict()
    payload = json.loads((tmp_path / "t" / "tasks_per_configuration.json").read_text())
    assert payload["title"] == "Tasks per configuration on Original"
    assert {r["configuration_id"]: r["n_tasks"] for r in payload["rows"]} == expected
    assert "Tasks per configuration on Original" in stdout
    html = out.read_text(encoding="utf-8")
    table = html[html.index('<div class="wide" id="tasks_per_configuration">'):]
    table = table[:table.index("</table>")]
    assert "<caption>Tasks per configuration on Original" in table
    for cfg, n in expected.items():
        assert f"<td class=s>{cfg}</td><td>{n}</td>" in table
    assert html.rfind("<h2>", 0, html.index('id="tasks_per_configuration"')) == html.index("<h2>Transport</h2>")
    # a builder that returns None (the data does not support its table) leaves it out of every output
    assert not list((tmp_path / "t").glob("never_supported.*"))
    assert "Never supported by the data" not in stdout + html


def test_a_table_that_is_not_registered_is_refused_not_dropped():
    from matchmeter.report.html import render_html

    with pytest.raises(KeyError, match="not registered in matchmeter/report/registry.py TABLES: stray"):
        render_html({"stray": pd.DataFrame({"a": [1]})}, None, [])  # type: ignore[arg-type]
