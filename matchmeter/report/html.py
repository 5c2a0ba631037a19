"""`matchmeter report`: runs + a frozen calibration → one self-contained HTML file (inline CSS, inline
SVG, no script, no external reference of any kind) plus every table as CSV and JSON.

Outputs::

    <out>.html            tables and plots; a SIMULATED banner when any `sim/` model contributed
    <tables-dir>/         <name>.csv + <name>.json per table (default: <out stem>-tables/ beside it)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.metrics.calibration import check_price_table, read_calibration
from matchmeter.metrics.health import check_health
from matchmeter.metrics.table import load_results
from matchmeter.report import registry, svg
from matchmeter.report.inputs import task_context
from matchmeter.report.registry import build_tables
from matchmeter.report.render import format_cell, sim_label, write_tables
from matchmeter.schema import utcnow

if TYPE_CHECKING:
    import pandas as pd

    from matchmeter.metrics.calibration import Calibration
    from matchmeter.metrics.health import Health

CSS = """
body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1240px;color:#1b1b1b;padding:0 16px}
h1{margin:0 0 4px}h2{margin-top:36px;border-bottom:2px solid #ddd;padding-bottom:4px}
.banner{background:#b00020;color:#fff;font-weight:bold;font-size:20px;padding:14px 18px;margin:14px 0;border-radius:4px}
.prov{color:#555;font-size:13px}.note{color:#555;font-size:12px;margin:2px 0}
table{border-collapse:collapse;margin:10px 0 4px;font-size:12.5px}
caption{text-align:left;font-weight:bold;padding:4px 0;font-size:14px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}
th{background:#f1f1f1;white-space:normal;max-width:110px;vertical-align:bottom}td.s{text-align:left}tr.untrusted td{background:#fff2cc}
.tag{display:inline-block;font-size:11px;font-weight:bold;padding:1px 6px;border-radius:3px;margin-left:6px;color:#fff}
.tag.sim{background:#b00020}.tag.untr{background:#b26a00}.tag.part{background:#5a3d99}
.wide{overflow-x:auto}figure{margin:12px 0}figcaption{font-size:12px;color:#555}
"""

class ReportSummary(NamedTuple):
    html_path: Path
    table_paths: list[Path]
    tables: dict[str, pd.DataFrame]
    simulated: bool
    health: Health | None = None


def html_table(df: pd.DataFrame, name: str) -> str:
    """One <table> with caption, SIMULATED / UNTRUSTED tags, untrusted rows highlighted, notes below."""
    from pandas.api.types import is_numeric_dtype

    tags = ""
    if df.attrs.get("simulated"):
        tags += f'<span class="tag sim">{escape(sim_label(df))}</span>'
    if df.attrs.get("untrusted"):
        tags += f'<span class="tag untr">UNTRUSTED: {escape(", ".join(df.attrs["untrusted"]))}</span>'
    if df.attrs.get("partial"):
        tags += f'<span class="tag part">PARTIAL: {escape(", ".join(df.attrs["partial"]))}</span>'
    # <wbr> after underscores lets long column names wrap inside narrow header cells
    head = "".join(f"<th>{escape(str(c)).replace('_', '_<wbr>')}</th>" for c in df.columns)
    numeric = {c: is_numeric_dtype(df[c]) and df[c].dtype != bool for c in df.columns}
    body = []
    for row in df.itertuples(index=False):
        cells = "".join(f'<td{"" if numeric[c] else " class=s"}>{escape(format_cell(v, str(c)))}</td>'
                        for v, c in zip(row, df.columns, strict=True))
        cls = ' class="untrusted"' if "flags" in df.columns and "UNTRUSTED" in str(row[-1]) else ""
        body.append(f"<tr{cls}>{cells}</tr>")
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in df.attrs.get("notes", []))
    return (f'<div class="wide" id="{escape(name)}"><table><caption>{escape(str(df.attrs.get("title", name)))}{tags}'
            f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{notes}</div>")


def plots(tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """Every plot the tables support, keyed as registry.SECTIONS names them."""
    t1 = tables["table1_configurations"]
    colors = {c: svg.color(i) for i, c in enumerate(t1["configuration_id"])}
    out = {"ams_bars": svg.ams_bars(t1, colors), "budget_quality": svg.budget_quality(tables["budget_quality"], colors),
           "frontier": svg.frontier(tables["frontier"], colors), "heatmap": svg.heatmap(tables["per_task_reward"])}
    if "rank_shifts" in tables:
        out["rank_shifts"] = svg.rank_shifts(tables["rank_shifts"], colors)
    return out


CAPTIONS = {
    "ams_bars": "AMS per configuration on Original descriptions, with 95% bootstrap intervals.",
    "budget_quality": "Share of reward earned within budget b, over each stratum's calibrated budget grid; "
                      "the mean over the grid is that stratum's AUBQC.",
    "frontier": "Task-macro mean cost and reward per configuration; dashed: the upper convex hull from (0, 0).",
    "heatmap": "Mean reward per configuration (rows) and task (columns); hover a cell for its value.",
    "rank_shifts": "AMS rank of each configuration under each description condition (1 = best).",
}


def render_html(tables: Mapping[str, pd.DataFrame], calibration: Calibration, run_dirs: Sequence[Path],
                generated_at: datetime | None = None) -> str:
    """The whole page as a string."""
    if stray := sorted(set(tables) - {t.key for t in registry.TABLES}):  # would have no section: refuse, not drop
        raise KeyError(f"report tables not registered in matchmeter/report/registry.py TABLES: {', '.join(stray)}")
    simulated = any(df.attrs.get("simulated") for df in tables.values())
    figures = plots(tables)
    when = (generated_at or utcnow()).strftime("%Y-%m-%d %H:%M UTC")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>matchmeter report{' (SIMULATED)' if simulated else ''}</title><style>{CSS}</style></head><body>",
             "<h1>matchmeter report</h1>"]
    if simulated:
        parts.append('<div class="banner" id="simulated-banner">SIMULATED — results below include executions by '
                     "offline sim/ models; they exercise the pipeline and are not measurements of any real model."
                     "</div>")
    parts.append(f'<p class="prov">runs: {escape(", ".join(str(Path(r).name) for r in run_dirs))} · calibration '
                 f"{escape(calibration.reference_digest[:16])} (α = {calibration.alpha:g}, "
                 f"{len(calibration.tasks)} tasks, price table {escape(calibration.price_table_id or 'unknown')}) · "
                 f"generated {when}</p>")
    for heading, plot_key in registry.SECTIONS:
        present = [t.key for t in registry.TABLES if t.section == heading and t.shown == "table" and t.key in tables]
        figure = figures.get(plot_key or "", "")
        if not present and not figure:
            continue
        parts.append(f"<h2>{escape(heading)}</h2>")
        if figure:
            parts.append(f"<figure class=\"wide\">{figure}<figcaption>{escape(CAPTIONS[plot_key or ''])}</figcaption></figure>")
        parts += [html_table(tables[n], n) for n in present]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(run_dirs: Sequence[Path], calibration_path: Path, out: Path, *, tables_dir: Path | None = None,
                 task_paths: Sequence[Path] = (), n_resamples: int = 1000, seed: int = 0,
                 n_draws: int = 10_000, allow_partial: bool = False, prices: Path | None = None) -> ReportSummary:
    """Load runs, build every table, write the HTML page and the tables (CSV + JSON).

    Raises:
        UserError: bad tables, a calibration that does not cover the tasks, runs priced differently
            from the calibration, incomplete coverage without `allow_partial`, or an output path that is a
            directory.
    """
    out = Path(out)
    if out.is_dir():
        raise UserError("--out is a directory", str(out), "pass a file name such as report.html")
    cal = read_calibration(calibration_path)
    loaded = load_results(run_dirs, prices=prices)  # every run re-priced from its token counts with --prices
    check_price_table(cal, calibration_path, loaded)
    health = check_health(loaded.frame, run_dirs, repriced_with=loaded.repriced_with)  # infra failures set aside
    tasks = task_context(run_dirs, task_paths)
    tables = build_tables(health.frame, cal, reference_paths=tasks.reference_paths, run_dirs=run_dirs,
                          core_task_ids=tasks.core_task_ids, n_resamples=n_resamples, seed=seed, n_draws=n_draws,
                          task_note=tasks.note, allow_partial=allow_partial)
    if tables["table1_configurations"]["ams"].isna().all():
        why = [n for n in tables["table1_configurations"].attrs["notes"] if ": not scored: " in n]
        why += [f"{c}: {r}" for c, r in sorted(health.excluded.items())]
        raise UserError("nothing to score: " + ("; ".join(why) or "no configuration has an AMS"),
                        ", ".join(map(str, run_dirs)), "price the models with --prices FILE (it re-prices the stored "
                        "token counts; calibrate with the same file), or fix what the reasons name")
    atomic_write_text(out, render_html(tables, cal, run_dirs))
    out.chmod(0o644)  # the temp-file write leaves 0600; a report is meant to be opened and shared
    paths = write_tables(tables, tables_dir or out.with_name(f"{out.stem}-tables"))
    return ReportSummary(out, paths, tables, any(df.attrs.get("simulated") for df in tables.values()), health)


def summary_line(summary: ReportSummary) -> str:
    """One line for the terminal: where the report and the tables went."""
    where = summary.table_paths[0].parent if summary.table_paths else "-"
    line = (f"{'SIMULATED ' if summary.simulated else ''}report written: {summary.html_path} "
            f"({len(summary.tables)} tables; CSV and JSON in {where})")
    health = summary.health
    if health is not None and health.repriced_with:
        line += f"\ncosts re-priced from stored token counts with price table {health.repriced_with}"
    for cfg, n in (health.infra_errors if health else {}).items():
        assert health is not None  # infra_errors came from it
        line += f"\ninfrastructure failures: {cfg}: {n} of {health.n_executions[cfg]} executions"
        if cfg in health.excluded:
            line += " (left out of the report: mostly infrastructure failures)"
    return line
