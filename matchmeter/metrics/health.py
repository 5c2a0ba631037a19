"""Before scoring: count infrastructure failures per configuration, set aside configurations made mostly of
them, and optionally re-price stored token counts with another price table (`metrics.repricing`).

An execution that failed for infrastructure reasons (`infra_error`, `sandbox_error`: nothing listening,
a rejected key, a sandbox that did not start) measured nothing about the configuration; a configuration
whose executions are mostly such failures would rank on zeros. Such configurations are left out of the
scores with the reason, never scored as if the model had failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.metrics.repricing import reprice as reprice  # re-exported for callers of health

if TYPE_CHECKING:
    import pandas as pd

INFRA_MODES = ("infra_error", "sandbox_error")
MOSTLY_INFRA = 0.5  # more than half the executions are infra failures → not scored


class Health(NamedTuple):
    frame: pd.DataFrame  # rows of the configurations that remain scorable
    infra_errors: dict[str, int]  # configuration id → infra failures (every configuration with any)
    n_executions: dict[str, int]
    excluded: dict[str, str]  # configuration id → why it is not scored
    repriced_with: str | None  # "<table id> (digest <12 hex>)" when re-priced


def check_health(frame: pd.DataFrame, run_dirs: Sequence[Path], prices: Path | None = None,
                 repriced_with: str | None = None) -> Health:
    """Infra counts and exclusions; re-priced costs when `prices` (a --prices file) is given, or
    `repriced_with` naming the table `metrics.table.load_results` already re-priced `frame` with."""
    if prices is not None:
        frame, repriced_with = reprice(frame, run_dirs, prices)
    if "failure_mode" not in frame.columns:
        return Health(frame, {}, {}, {}, repriced_with)
    infra = frame["failure_mode"].isin(INFRA_MODES).groupby(frame["configuration_id"]).agg(["sum", "count"])
    counts = {str(c): int(n) for c, n in infra["sum"].items() if n}
    totals = {str(c): int(n) for c, n in infra["count"].items()}
    excluded = {c: (f"{n} of {totals[c]} executions are infrastructure failures ({'/'.join(INFRA_MODES)}); "
                    "fix the endpoint or sandbox, then `matchmeter run --resume --retry-failed infra_error`")
                for c, n in counts.items() if n / totals[c] > MOSTLY_INFRA}
    kept = frame.loc[~frame["configuration_id"].isin(list(excluded))].reset_index(drop=True)
    return Health(kept, counts, totals, excluded, repriced_with)
