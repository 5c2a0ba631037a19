"""`matchmeter score`: runs + a frozen calibration → AMS table, rendered and written as CSV and JSON.

Outputs in the chosen directory::

    <out-dir>/
      scores.csv     one row per configuration (columns: `ams.score_columns()`)
      scores.json    {"calibration": {...provenance...}, "scores": [...rows...], "excluded": {cfg: reason},
                    "infra_errors": {cfg: n}, "repriced_with": table id or null}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.calibration import Calibration, read_calibration
from matchmeter.metrics.health import Health, check_health

if TYPE_CHECKING:
    from rich.console import Console


class ScoreReport(NamedTuple):
    scores: ams.Scores
    calibration: Calibration
    calibration_path: Path
    simulated: bool
    health: Health | None = None


def score_runs(run_dirs: Sequence[Path], calibration_path: Path, alpha: float | None = None,
               prices: Path | None = None) -> ScoreReport:
    """Load runs, check them against the calibration (tasks, price table) and score them.

    Raises:
        UserError: bad tables, a task the calibration does not cover, a different price table.
    """
    from matchmeter.metrics.table import load_results

    cal = read_calibration(calibration_path)
    tables = load_results(run_dirs)
    if prices is None and cal.price_table_id and tables.price_table_id and cal.price_table_id != tables.price_table_id:
        raise UserError(
            f"runs were priced with {tables.price_table_id!r} but the calibration with {cal.price_table_id!r}",
            str(calibration_path), "calibrate and score with one price table, or re-price the runs")
    health = check_health(tables.frame, run_dirs, prices)
    frame = health.frame
    simulated = bool("simulated" in frame.columns and frame["simulated"].fillna(False).astype(bool).any())
    scores = ams.score(frame, cal.cuts(), cal.alpha if alpha is None else alpha)
    scores = scores._replace(excluded={**health.excluded, **scores.excluded})
    return ScoreReport(scores, cal, Path(calibration_path), simulated, health)


def write_score_outputs(report: ScoreReport, out_dir: Path) -> list[Path]:
    """Write scores.csv and scores.json (atomically); returns the two paths."""
    from matchmeter.metrics.table import atomic_write_text

    out_dir = Path(out_dir)
    table = report.scores.table
    csv_path, json_path = out_dir / "scores.csv", out_dir / "scores.json"
    atomic_write_text(csv_path, table.to_csv(index=False))
    payload = score_payload(report)
    atomic_write_text(json_path, json.dumps(payload, indent=2) + "\n")
    return [csv_path, json_path]


def score_payload(report: ScoreReport) -> dict:  # type: ignore[type-arg]
    """What scores.json holds (and `score --json` prints): provenance, rows, exclusions, infra counts."""
    cal = report.calibration
    return {
        "calibration": {"path": str(report.calibration_path), "reference_digest": cal.reference_digest,
                        "alpha": cal.alpha, "price_table_id": cal.price_table_id,
                        "reference_configuration_ids": cal.reference_configuration_ids},
        "simulated": report.simulated,
        "scores": json.loads(report.scores.table.to_json(orient="records")),
        "excluded": report.scores.excluded,
        "infra_errors": report.health.infra_errors if report.health else {},
        "repriced_with": report.health.repriced_with if report.health else None,
    }


def render_scores(report: ScoreReport, console: Console) -> None:
    """Rich table: per configuration AMS, TQ AUBQC EFR per stratum and the execution count (n)."""
    from rich.table import Table

    title = "AMS" + (" — SIMULATED" if report.simulated else "")
    table = Table(title=title, caption="per stratum: TQ AUBQC EFR")
    table.add_column("#", justify="right")
    table.add_column("config", overflow="fold")
    table.add_column("AMS", justify="right", no_wrap=True)
    for s in ams.STRATA:
        table.add_column(s, justify="right", no_wrap=True)
    table.add_column("n", justify="right")
    for row in report.scores.table.itertuples(index=False):
        cells = [f"{getattr(row, f'tq_{s}'):.2f} {getattr(row, f'aubqc_{s}'):.2f} {getattr(row, f'efr_{s}'):.2f}"
                 for s in ams.STRATA]
        table.add_row(str(row.rank), row.configuration_id, f"{row.ams:.3f}", *cells, str(row.n_executions))
    console.print(table)
    health = report.health
    if health is not None and health.repriced_with:
        console.print(f"costs re-priced from stored token counts with price table {health.repriced_with}",
                      highlight=False, soft_wrap=True)
    for cfg, n in (health.infra_errors if health else {}).items():
        console.print(f"[yellow]infrastructure failures:[/] {cfg}: {n} of {health.n_executions[cfg]} executions",
                      highlight=False, soft_wrap=True)
    for cfg, reason in report.scores.excluded.items():
        console.print(f"[yellow]not scored:[/] {cfg}: {reason}", highlight=False, soft_wrap=True)
