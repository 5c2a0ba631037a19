"""`matchmeter score`: runs + a frozen calibration → one AMS table per description condition, rendered
and written as CSV and JSON.

Outputs in the chosen directory (one condition: `scores.*`; several: `scores-<condition>.*` each)::

    <out-dir>/
      scores.csv     one row per configuration (columns: `ams.score_columns()` + `trust`)
      scores.json    {"condition", "calibration": {...provenance...}, "simulated", "scores": [...rows...],
                      "partial": {cfg: missing task ids}, "trust": {cfg: state}, "excluded": {cfg: reason},
                      "infra_errors": {cfg: n}, "repriced_with": table id or null}

An evaluation directory (it holds conditions.parquet) is scored one condition at a time (`--condition`,
default original): rows of different conditions are never averaged into one AMS. Probe executions
(`metrics.trust`) decide the trust column and are not scored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.calibration import Calibration, check_price_table, read_calibration
from matchmeter.metrics.conditions import select_condition, unit_column
from matchmeter.metrics.coverage import coverage_gaps
from matchmeter.metrics.health import Health, check_health
from matchmeter.metrics.table import load_results
from matchmeter.metrics.trust import split_probes, trust_states

if TYPE_CHECKING:
    from rich.console import Console


class ScoreReport(NamedTuple):
    scores: ams.Scores
    calibration: Calibration
    calibration_path: Path
    simulated: bool
    condition: str = "original"
    trust: dict[str, str] = {}
    partial: dict[str, list[str]] = {}
    health: Health | None = None


def score_runs(run_dirs: Sequence[Path], calibration_path: Path, alpha: float | None = None,
               condition: str = "original", allow_partial: bool = False, prices: Path | None = None) -> ScoreReport:
    """Load runs, check them against the calibration (tasks, price table) and score one condition.

    Raises:
        UserError: bad tables, a task the calibration does not cover, a different price table, a
            condition the runs do not hold, or (without `allow_partial`) incomplete coverage.
    """
    cal = read_calibration(calibration_path)
    tables = load_results(run_dirs, prices=prices)
    check_price_table(cal, calibration_path, tables)
    health = check_health(tables.frame, run_dirs, repriced_with=tables.repriced_with)
    trust = trust_states(health.frame)
    frame = select_condition(split_probes(health.frame)[0], condition)
    if frame.empty:
        raise UserError(f"no executions under condition {condition!r}", ", ".join(map(str, run_dirs)),
                        "pick a condition these runs hold (matchmeter evaluate --conditions)")
    simulated = bool("simulated" in frame.columns and frame["simulated"].fillna(False).astype(bool).any())
    cuts = cal.cuts()
    scores = ams.score(frame, cuts, cal.alpha if alpha is None else alpha, unit_col=unit_column(condition),
                       allow_partial=allow_partial)
    scores = scores._replace(excluded={**health.excluded, **scores.excluded})
    if scores.table.empty:
        raise UserError(f"nothing to score under condition {condition!r}: "
                        + "; ".join(f"{c}: {why}" for c, why in sorted(scores.excluded.items())),
                        ", ".join(map(str, run_dirs)), "price the models with --prices FILE (it re-prices the "
                        "stored token counts; calibrate with the same file), or fix what the reasons name")
    scores.table["trust"] = [trust.get(c, "not probed") for c in scores.table["configuration_id"]]
    scored = set(scores.table["configuration_id"])
    partial = {c: m for c, m in coverage_gaps(frame, cuts.task_strata).items() if c in scored}
    return ScoreReport(scores, cal, Path(calibration_path), simulated, condition,
                       {c: trust.get(c, "not probed") for c in sorted(scored)}, partial, health)


def write_score_outputs(report: ScoreReport, out_dir: Path, stem: str = "scores") -> list[Path]:
    """Write <stem>.csv and <stem>.json (atomically); returns the two paths."""
    out_dir = Path(out_dir)
    table = report.scores.table
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.json"
    atomic_write_text(csv_path, table.to_csv(index=False))
    payload = score_payload(report)
    atomic_write_text(json_path, json.dumps(payload, indent=2) + "\n")
    return [csv_path, json_path]


def score_payload(report: ScoreReport) -> dict[str, Any]:
    """What scores.json holds (and `score --json` prints): provenance, rows, exclusions, infra counts."""
    cal = report.calibration
    return {
        "condition": report.condition,
        "calibration": {"path": str(report.calibration_path), "reference_digest": cal.reference_digest,
                        "alpha": cal.alpha, "price_table_id": cal.price_table_id,
                        "reference_configuration_ids": cal.reference_configuration_ids},
        "simulated": report.simulated,
        "scores": json.loads(report.scores.table.to_json(orient="records")),
        "partial": report.partial,
        "trust": report.trust,
        "excluded": report.scores.excluded,
        "infra_errors": report.health.infra_errors if report.health else {},
        "repriced_with": report.health.repriced_with if report.health else None,
    }


def render_scores(report: ScoreReport, console: Console) -> None:
    """Rich table: per configuration AMS, TQ AUBQC EFR per stratum, execution count, coverage and trust."""
    from rich.table import Table

    title = f"AMS — condition {report.condition}" + (" — SIMULATED" if report.simulated else "")
    table = Table(title=title, caption="per stratum: TQ AUBQC EFR")
    table.add_column("#", justify="right")
    table.add_column("config", overflow="fold")
    table.add_column("AMS", justify="right", no_wrap=True)
    for s in ams.STRATA:
        table.add_column(s, justify="right", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("coverage")
    table.add_column("trust")
    row: Any  # a row namedtuple of the scores table
    for row in report.scores.table.itertuples(index=False):
        cells = [f"{getattr(row, f'tq_{s}'):.2f} {getattr(row, f'aubqc_{s}'):.2f} {getattr(row, f'efr_{s}'):.2f}"
                 for s in ams.STRATA]
        table.add_row(str(row.rank), row.configuration_id, f"{row.ams:.3f}", *cells, str(row.n_executions),
                      row.coverage, row.trust)
    console.print(table)
    for cfg, missing in report.partial.items():
        console.print(f"[yellow]PARTIAL:[/] {cfg}: no execution on {len(missing)} calibrated task(s): "
                      f"{', '.join(missing)}", highlight=False, soft_wrap=True)
    health = report.health
    if health is not None and health.repriced_with:
        console.print(f"costs re-priced from stored token counts with price table {health.repriced_with}",
                      highlight=False, soft_wrap=True)
    for cfg, n in (health.infra_errors if health else {}).items():
        assert health is not None  # infra_errors came from it
        console.print(f"[yellow]infrastructure failures:[/] {cfg}: {n} of {health.n_executions[cfg]} executions",
                      highlight=False, soft_wrap=True)
    for cfg, reason in report.scores.excluded.items():
        console.print(f"[yellow]not scored:[/] {cfg}: {reason}", highlight=False, soft_wrap=True)
