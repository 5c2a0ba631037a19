"""Coverage of the calibrated task set (SPEC §2: AMS averages all three strata over the calibrated tasks).

A configuration that lacks a calibrated task, or a whole stratum, would otherwise get an AMS over what it
has, and be ranked beside configurations that ran everything as if the two were comparable. Scoring
therefore refuses incomplete coverage by default, with one line naming the configuration and what is
missing; `allow_partial` scores it anyway, over what it ran, and every output marks the row PARTIAL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from matchmeter.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

STRATA = ("easy", "medium", "hard")  # effort strata, in order; AMS is their mean
FULL, PARTIAL = "full", "PARTIAL"
SHOWN = 8  # missing tasks named in the error line before "…"


def coverage_gaps(df: pd.DataFrame, task_strata: Mapping[str, str]) -> dict[str, list[str]]:
    """Per configuration with a gap: the calibrated task ids it has no execution on (sorted)."""
    calibrated = set(task_strata)
    ran = {str(cfg): set(ids.astype(str)) for cfg, ids in df.groupby("configuration_id")["task_id"]}
    return {cfg: sorted(calibrated - tasks) for cfg, tasks in ran.items() if calibrated - tasks}


def describe_gap(cfg: str, missing: list[str], task_strata: Mapping[str, str]) -> str:
    """'configuration 'X' lacks 2 of 5 calibrated tasks: t4 (medium), t5 (hard); no hard task ran'."""
    named = ", ".join(f"{t} ({task_strata[t]})" for t in missing[:SHOWN]) + (", …" if len(missing) > SHOWN else "")
    have = {task_strata[t] for t in set(task_strata) - set(missing)}
    empty = [s for s in STRATA if s not in have and s in set(task_strata.values())]
    tail = f"; no {'/'.join(empty)} task ran" if empty else ""
    return f"configuration {cfg!r} lacks {len(missing)} of {len(task_strata)} calibrated tasks: {named}{tail}"


def require_full_coverage(df: pd.DataFrame, task_strata: Mapping[str, str], allow_partial: bool,
                          where: str = "results table") -> dict[str, list[str]]:
    """Return the gaps; raise on the first one unless `allow_partial`.

    Raises:
        UserError: a configuration misses a calibrated task and `allow_partial` is False.
    """
    gaps = coverage_gaps(df, task_strata)
    if gaps and not allow_partial:
        cfg = sorted(gaps)[0]
        more = f" (and {len(gaps) - 1} more configuration(s))" if len(gaps) > 1 else ""
        raise UserError(describe_gap(cfg, gaps[cfg], task_strata) + more, where,
                        "run the missing executions, or pass --allow-partial to score it marked PARTIAL")
    return gaps
