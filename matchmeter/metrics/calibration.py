"""Frozen AMS calibration (SPEC §1–2): built once from reference runs, stored as versioned JSON.

The file holds everything scoring needs and everything needed to tell whether it still applies:
the reference configurations, every reference task with its effort and stratum, the budget grids and
expensive-failure thresholds, α, the quantile levels and method, the price table id and a sha256
digest of the reference rows. Scoring reads it unchanged; a scored task outside it is an error.
Only executions on Original descriptions (`description_origin == "original"`, when the column
exists) calibrate; on an evaluation directory only the Original condition does, and each execution counts
once (a pooled unit whose selection fell back to Original shares the Original execution, and
conditions.parquet holds that execution once per unit it serves). Probe tasks never calibrate.
Reference executions with an unknown cost make calibration fail: a grid built
on partial costs would silently move every score.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.table import RunTables, load_results
from matchmeter.metrics.trust import split_probes
from matchmeter.schema import canonical_json, sha256_text, utcnow

if TYPE_CHECKING:
    import pandas as pd

CALIBRATION_VERSION = 1
DIGEST_COLUMNS = ("configuration_id", "task_id", "description_sha256", "seed", "attempt", "reward", "cost_usd",
                  "tokens_total", "n_steps")


class CalibratedTask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_id: str
    stratum: str = Field(description="easy, medium or hard.")
    effort: float = Field(description="e(i) = mean of the three mid-rank percentiles.")
    m_tok: float = Field(description="Median over reference configurations of attempt-mean tokens.")
    m_step: float = Field(description="Median over reference configurations of attempt-mean steps.")
    z: float = Field(description="Share of reference configurations whose attempt-mean reward is 0.")


class StratumCalibration(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="constants")
    budget_grid: list[float] = Field(description="Deduplicated quantiles of rewarded reference costs; [Infinity] when none.")
    eta: float = Field(description="Expensive-failure threshold η_s in USD.")
    n_tasks: int
    n_rewarded: int = Field(description="|C⁺_s|: reference executions with reward > 0.")
    n_zero: int = Field(description="|C⁰_s|: reference executions with reward 0.")


class Calibration(BaseModel):
    """A frozen calibration file; field order is frozen (append only)."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="constants")
    schema_version: int = CALIBRATION_VERSION
    created_at: datetime = Field(default_factory=utcnow)
    alpha: float = Field(ams.DEFAULT_ALPHA, ge=0, le=1, description="Weight of TQ against AUBQC.")
    quantile_levels: list[float] = Field(default_factory=lambda: list(ams.QUANTILE_LEVELS))
    efr_quantile: float = ams.EFR_QUANTILE
    quantile_method: str = Field(ams.QUANTILE_METHOD, description="numpy.quantile method for grids and η.")
    price_table_id: str = ""
    reference_configuration_ids: list[str]
    run_ids: list[str] = Field(default_factory=list)
    tasks: list[CalibratedTask]
    strata: dict[str, StratumCalibration]
    reference_digest: str = Field(description="sha256 of the canonical reference rows (DIGEST_COLUMNS).")
    n_reference_executions: int = 0
    price_table_digest: str = Field("", description="sha256 of the price table's entries ('' when unknown).")

    def cuts(self) -> ams.StrataCuts:
        return ams.StrataCuts(
            task_strata={t.task_id: t.stratum for t in self.tasks},
            grids={s: c.budget_grid for s, c in self.strata.items()},
            etas={s: c.eta for s, c in self.strata.items()},
        )


def reference_digest(ref: pd.DataFrame) -> str:
    """sha256 over the reference rows, order-independent (rows sorted on every digest column)."""
    cols = [c for c in DIGEST_COLUMNS if c in ref.columns]
    rows = ref[cols].astype(object).where(ref[cols].notna(), None).sort_values(cols, key=lambda s: s.astype(str))
    return sha256_text(canonical_json(rows.to_dict("records")))


def calibrate(df: pd.DataFrame, reference_config_ids: Sequence[str] = (), alpha: float = ams.DEFAULT_ALPHA,
              price_table_id: str = "", run_ids: Sequence[str] = (), price_table_digest: str = "") -> Calibration:
    """Build a calibration from a validated results table.

    Raises:
        UserError: unknown reference configuration, no Original executions, null reference costs,
            fewer than three tasks, or a reference configuration missing a task.
    """
    ref = split_probes(df)[0]
    if "description_origin" in ref.columns:
        ref = ref.loc[ref["description_origin"].fillna("original") == "original"]
    if "condition" in ref.columns:
        ref = ref.loc[ref["condition"].isna() | (ref["condition"] == "original")]
    if "execution_key" in ref.columns:
        ref = ref.loc[ref["execution_key"].isna() | ~ref["execution_key"].duplicated()]
    present = sorted(ref["configuration_id"].unique())
    chosen = list(reference_config_ids) or present
    unknown = sorted(set(chosen) - set(present))
    if unknown:
        raise UserError(f"reference configuration {unknown[0]!r} has no Original execution in these runs",
                        "--reference-config", f"choose among: {', '.join(present) or 'none'}")
    ref = ref.loc[ref["configuration_id"].isin(chosen)]
    if ref.empty:
        raise UserError("no executions on Original descriptions", "calibration runs", "calibrate on an Original run")
    if ref["cost_usd"].isna().any():
        bad = ref.loc[ref["cost_usd"].isna(), "configuration_id"].iloc[0]
        raise UserError(f"reference configuration {bad!r} has executions with unknown cost", "column 'cost_usd'",
                        "price its model in the price table, or leave it out with --reference-config")
    ams.check_coverage(ref, dict.fromkeys(ref["task_id"].unique(), ""))
    effort = ams.effort_index(ref)
    strata = ams.assign_strata(effort["effort"])
    stratum_of = ref["task_id"].map(strata).to_numpy()
    cost, reward = ref["cost_usd"].to_numpy(float), ref["reward"].to_numpy(float)
    per_stratum = {}
    for s in ams.STRATA:
        mask = stratum_of == s
        rewarded, zero = cost[mask & (reward > 0)], cost[mask & (reward == 0)]
        per_stratum[s] = StratumCalibration(
            budget_grid=ams.budget_grid(rewarded), eta=ams.expensive_failure_threshold(zero, cost[mask]),
            n_tasks=int(sum(1 for v in strata.values() if v == s)), n_rewarded=int(rewarded.size),
            n_zero=int(zero.size))
    tasks = [CalibratedTask(task_id=str(t), stratum=strata[str(t)], effort=float(r.effort), m_tok=float(r.m_tok),
                            m_step=float(r.m_step), z=float(r.z)) for t, r in effort.iterrows()]
    return Calibration(alpha=alpha, price_table_id=price_table_id, reference_configuration_ids=chosen,
                       run_ids=list(run_ids), tasks=tasks, strata=per_stratum, reference_digest=reference_digest(ref),
                       n_reference_executions=len(ref), price_table_digest=price_table_digest)


def check_price_table(cal: Calibration, calibration_path: Path, tables: RunTables) -> None:
    """The runs must be costed with the calibration's price table: its budget grids and thresholds are in
    that table's dollars. A digest is compared where both sides have one (an edited table keeps its id).

    Raises:
        UserError: the runs (as stored, or as re-priced with --prices) use another price table.
    """
    if not (cal.price_table_id and tables.price_table_id):
        return
    same = cal.price_table_id == tables.price_table_id and not (
        cal.price_table_digest and tables.price_table_digest and cal.price_table_digest != tables.price_table_digest)
    if same:
        return
    if tables.repriced_with:
        raise UserError(f"runs re-priced with {tables.repriced_with} but the calibration was priced with "
                        f"{cal.price_table_id!r}", str(calibration_path),
                        "calibrate with the same --prices FILE (matchmeter calibrate RUN... --prices FILE)")
    raise UserError(f"runs were priced with {tables.price_table_id!r} but the calibration with {cal.price_table_id!r}",
                    str(calibration_path), "re-price both with one table: pass the same --prices FILE to calibrate "
                    "and to this command")


def write_calibration(cal: Calibration, path: Path) -> None:
    """Write the calibration as indented JSON, atomically."""
    atomic_write_text(Path(path), cal.model_dump_json(indent=2) + "\n")


def read_calibration(path: Path) -> Calibration:
    """Read a calibration file; a missing, malformed or newer-version file is a UserError."""
    path = Path(path)
    if not path.is_file():
        raise UserError("no calibration file", str(path), "create one with `matchmeter calibrate RUN... --out FILE`")
    try:
        cal = Calibration.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(map(str, err["loc"])) or "file"
        raise UserError(f"invalid calibration file: {field}: {err['msg']}", str(path),
                        "recreate it with `matchmeter calibrate`") from exc
    if cal.schema_version != CALIBRATION_VERSION:
        raise UserError(f"calibration schema_version {cal.schema_version} is not {CALIBRATION_VERSION}", str(path),
                        "recreate it with this matchmeter version")
    return cal


def calibrate_runs(run_dirs: Sequence[Path], out: Path, alpha: float = ams.DEFAULT_ALPHA,
                   reference_config_ids: Sequence[str] = (), prices: Path | None = None) -> Calibration:
    """`matchmeter calibrate`: load runs (re-priced with `prices` when given), calibrate, write the file."""
    tables = load_results(run_dirs, prices=prices)
    cal = calibrate(tables.frame, reference_config_ids, alpha, tables.price_table_id, tables.run_ids,
                    tables.price_table_digest)
    write_calibration(cal, out)
    return cal
