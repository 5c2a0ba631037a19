"""Read and validate results tables: the only input every metric accepts.

A run directory is laid out as::

    runs/<run-id>/
      manifest.json      (optional here: its `price_table_id` is read when present)
      results.parquet    one row per execution, `ExecutionResult.to_row()`

Metrics never import the runner: they read these files (or a DataFrame built the same way) and
check them here once, so every formula can assume clean numbers. A bad table is a `UserError`
naming the file, the column and the fix, never a NaN that leaks into a score.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.errors import UserError
from matchmeter.metrics.repricing import describe_table, reprice_with_table
from matchmeter.metrics.stored import check_against_stored

if TYPE_CHECKING:
    import pandas as pd

# Columns every AMS computation needs; other metrics check their own extras with `require_columns`.
AMS_COLUMNS = ("configuration_id", "task_id", "reward", "cost_usd", "tokens_total", "n_steps")


class RunTables(NamedTuple):
    """Executions of one or more runs plus the price table they were costed with."""

    frame: pd.DataFrame
    price_table_id: str
    run_ids: list[str]
    price_table_digest: str = ""  # sha256 of every price entry, when the manifests (or the re-pricing) say
    repriced_with: str | None = None  # "<table id> (digest <12 hex>)" when `prices` re-priced every row


def require_columns(df: pd.DataFrame, columns: Iterable[str], where: str) -> None:
    """Raise a UserError naming the first missing column."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise UserError(
            f"results table lacks column {missing[0]!r}" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
            where,
            "rebuild it from the run's result.json files (ExecutionResult.to_row) or add the column",
        )


def validate_results(df: pd.DataFrame, where: str = "results table", columns: Sequence[str] = AMS_COLUMNS) -> pd.DataFrame:
    """Check a results table and return it with numeric dtypes.

    Rewards must be present and in [0, 1]; costs may be null (unknown price, kept as NaN and handled
    by each metric explicitly) but never negative. Raises UserError on the first problem found.
    """
    import numpy as np
    import pandas as pd

    require_columns(df, columns, where)
    if df.empty:
        raise UserError("results table has no executions", where, "run some executions first (matchmeter run)")
    out = df.copy()
    for col in ("reward", "cost_usd", "tokens_total", "n_steps"):
        if col in out.columns:
            out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    reward = out["reward"].to_numpy()
    if np.isnan(reward).any():
        row = int(np.flatnonzero(np.isnan(reward))[0])
        raise UserError(f"reward is missing (NaN) in row {row}", f"{where}, column 'reward'",
                        "every execution needs a reward in [0, 1]; rebuild the table from result.json files")
    bad = (reward < 0) | (reward > 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise UserError(f"reward {reward[row]:g} outside [0, 1] in row {row}", f"{where}, column 'reward'",
                        "rewards are graded fractions; fix the verifier output or the table")
    if "cost_usd" in out.columns:
        cost = out["cost_usd"].to_numpy()
        neg = ~np.isnan(cost) & (cost < 0)
        if neg.any():
            row = int(np.flatnonzero(neg)[0])
            raise UserError(f"negative cost {cost[row]:g} USD in row {row}", f"{where}, column 'cost_usd'",
                            "costs are billable spend >= 0; fix the price table and rebuild the table")
    for col in ("configuration_id", "task_id"):
        if out[col].isna().any():
            raise UserError(f"{col} is missing in some rows", f"{where}, column {col!r}", "every row needs one")
        out[col] = out[col].astype(str)
    return out


def load_results(run_dirs: Sequence[Path | str], columns: Sequence[str] = AMS_COLUMNS,
                 prices: Path | None = None) -> RunTables:
    """Read and validate the results of each run directory; concatenate them.

    An evaluation directory (`matchmeter evaluate`) also holds `conditions.parquet`: its rows are the
    results joined to the condition units they serve (columns `condition` and `source`), and that table
    is read instead, so conditions reach every metric. An execution key read through several directories
    (a run and the evaluation directory that adopted its executions) counts once (`once_per_execution`).

    `prices` (a --prices file): every row is re-priced from its stored token counts with the shipped
    table + that file (`metrics.health.reprice`), so runs costed with different tables are read as one.

    Raises:
        UserError: a directory without results.parquet, an unreadable or invalid table, a table that
            disagrees with the run's stored result.json files (`metrics.stored`), or runs costed with
            different price tables.
    """
    import pandas as pd

    if not run_dirs:
        raise UserError("no run directories given", "", "pass one or more runs/<run-id> directories")
    frames, price_ids, digests, run_ids = [], set(), set(), []
    for run_dir in map(Path, run_dirs):
        path = run_dir / "conditions.parquet"
        if not path.is_file():
            path = run_dir / "results.parquet"
        if not path.is_file():
            raise UserError("no results table", str(path), "pass a run directory (runs/<run-id>) whose run has finished")
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - any parquet failure is a bad input file
            raise UserError(f"unreadable results table: {str(exc).splitlines()[0]}", str(path),
                            "rebuild it from the run's result.json files") from exc
        check_against_stored(frame, run_dir, str(path), complete=path.name == "results.parquet")
        frames.append(validate_results(frame, str(path), columns))
        run_ids.append(run_dir.name)
        price_id, digest = _manifest_price_table(run_dir)
        if price_id:
            price_ids.add(price_id)
        if digest:
            digests.add(digest)
    frame = once_per_execution(pd.concat(frames, ignore_index=True))
    if prices is not None:
        frame, table = reprice_with_table(frame, [Path(r) for r in run_dirs], prices)
        return RunTables(frame, table.table_id, run_ids, table.digest, describe_table(table))
    if len(price_ids) > 1 or len(digests) > 1:
        tables = sorted(price_ids) if len(price_ids) > 1 else [f"{i} (digest {d[:12]})" for i in price_ids for d in sorted(digests)]
        raise UserError(f"runs were costed with different price tables {tables}", ", ".join(map(str, run_dirs)),
                        "re-price them all from their stored token counts with --prices FILE (the file that prices "
                        "your models; calibrate with the same file)")
    digest = digests.pop() if len(digests) == 1 else ""
    return RunTables(frame, price_ids.pop() if price_ids else "", run_ids, digest)


def once_per_execution(frame: pd.DataFrame) -> pd.DataFrame:
    """Each execution key once per condition unit, whichever directories it was read through.

    An evaluation directory adopts a run's executions (`evaluate --reuse`) under the same keys, so
    `report RUN EVAL` reads every adopted execution twice; one key is one execution. A key may still
    appear several times inside one evaluation table, once per (condition, source) unit it serves (a
    pooled description that fell back to Original is the Original execution): those rows are kept.
    A row without a condition counts as Original when its description is the Original one, as
    `metrics.conditions.select_condition` reads it.
    """
    if "execution_key" not in frame.columns:
        return frame
    import pandas as pd

    no_cond = pd.Series(None, index=frame.index, dtype=object)
    cond = frame["condition"].astype(object) if "condition" in frame.columns else no_cond
    if "description_origin" in frame.columns:
        is_orig = frame["description_origin"].fillna("original") == "original"
        cond = cond.where(cond.notna() | ~is_orig, "original")
    source = frame["source"].astype(object) if "source" in frame.columns else no_cond
    unit = pd.DataFrame({"key": frame["execution_key"], "cond": cond.fillna(""), "source": source.fillna("")})
    repeated = unit.duplicated() & frame["execution_key"].notna()
    return frame.loc[~repeated].reset_index(drop=True)


def _manifest_price_table(run_dir: Path) -> tuple[str, str]:
    """(price table id, digest) from the run's manifest; empty strings where it says nothing."""
    path = run_dir / "manifest.json"
    if not path.is_file():
        return "", ""
    try:
        manifest = json.loads(path.read_text())
        return str(manifest.get("price_table_id", "") or ""), str(manifest.get("price_table_digest", "") or "")
    except (OSError, ValueError) as exc:
        raise UserError(f"unreadable manifest: {exc}", str(path), "restore manifest.json or remove it") from exc
