"""`matchmeter score`: runs + a frozen calibration → one AMS table per description condition, written as
CSV and JSON (and rendered by `report.terminal.render_scores`).

Outputs in the chosen directory (one condition: `scores.*`; several: `scores-<condition>.*` each)::

    <out-dir>/
      scores.csv     one row per configuration (columns: `ams.score_columns()` + `trust`)
      scores.json    {"condition", "calibration": {...provenance...}, "simulated", "scores": [...rows...],
                      "partial": {cfg: missing task ids}, "trust": {cfg: state}, "excluded": {cfg: reason},
                      "infra_errors": {cfg: n}, "repriced_with": table id or null,
                      "reward_keys": {cfg: {key: mean}} (Harbor's per-key means; {} without several keys)}

An evaluation directory (it holds conditions.parquet) is scored one condition at a time (`--condition`,
default original): rows of different conditions are never averaged into one AMS. Probe executions
(`metrics.trust`) decide the trust column and are not scored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.calibration import Calibration, check_price_table, read_calibration
from matchmeter.metrics.conditions import select_condition, unit_column
from matchmeter.metrics.coverage import coverage_gaps
from matchmeter.metrics.health import Health, check_health
from matchmeter.metrics.reward_keys import per_key_payload
from matchmeter.metrics.table import load_results
from matchmeter.metrics.trust import split_probes, trust_states


class ScoreReport(NamedTuple):
    scores: ams.Scores
    calibration: Calibration
    calibration_path: Path
    simulated: bool
    condition: str = "original"
    trust: dict[str, str] = {}
    partial: dict[str, list[str]] = {}
    health: Health | None = None
    simulated_configs: frozenset[str] = frozenset()  # configurations with any sim/ execution (their rows say so)
    reward_keys: dict[str, dict[str, float]] = {}  # configuration -> Harbor reward key -> mean (metrics.reward_keys)


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
    sim_rows = frame["simulated"].fillna(False).astype(bool) if "simulated" in frame.columns else None
    sim_configs = frozenset() if sim_rows is None else frozenset(frame.loc[sim_rows, "configuration_id"].astype(str))
    simulated = bool(sim_configs)
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
                       {c: trust.get(c, "not probed") for c in sorted(scored)}, partial, health, sim_configs,
                       per_key_payload(frame))


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
        "reward_keys": report.reward_keys,
    }
