"""Before scoring: count infrastructure failures per configuration, set aside configurations made mostly of
them, and optionally re-price stored token counts with another price table.

An execution that failed for infrastructure reasons (`infra_error`, `sandbox_error`: nothing listening,
a rejected key, a sandbox that did not start) measured nothing about the configuration; a configuration
whose executions are mostly such failures would rank on zeros. Such configurations are left out of the
scores with the reason, never scored as if the model had failed.

Re-pricing: cost = token classes × the table's rates, linear in the counts, so pricing an execution's
token totals equals summing its priced calls (each execution calls one model). A model on a custom
endpoint (its configuration had `api_base`) is looked up without stripping the provider prefix.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from matchmeter.errors import UserError
from matchmeter.llm.pricing import PriceTable
from matchmeter.schema import TokenUsage

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


def check_health(frame: pd.DataFrame, run_dirs: Sequence[Path], prices: Path | None = None) -> Health:
    """Infra counts and exclusions; re-priced costs when `prices` (a --prices file) is given."""
    repriced_with = None
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


def reprice(frame: pd.DataFrame, run_dirs: Sequence[Path], prices: Path) -> tuple[pd.DataFrame, str]:
    """`cost_usd` recomputed from the stored token classes with the shipped table + `prices` merged over it."""
    import pandas as pd

    if not Path(prices).is_file():
        raise UserError("price file not found", str(prices), "pass a TOML file with [[price]] entries")
    table = PriceTable.load(overrides=prices)
    custom = _custom_endpoint_configs(run_dirs)
    out = frame.copy()
    usd: list[float | None] = []
    reasons: list[str | None] = []
    row: Any  # a row namedtuple of the executions table
    for row in out.itertuples(index=False):
        tokens = TokenUsage(input=int(row.tokens_input), cached_input=int(row.tokens_cached_input),
                            output=int(row.tokens_output), reasoning=int(row.tokens_reasoning))
        if not (isinstance(row.model, str) and row.model):  # a model-free agent: nothing to price
            usd.append(row.cost_usd)
            reasons.append(row.cost_null_reason)
            continue
        cost = table.cost(row.model, tokens, strip_prefix=row.configuration_id not in custom)
        usd.append(cost.usd)
        reasons.append(cost.null_reason)
    out["cost_usd"] = pd.Series(usd, dtype="float64")
    out["cost_null_reason"] = reasons
    return out, f"{table.table_id} (digest {table.digest[:12]})"


def _custom_endpoint_configs(run_dirs: Sequence[Path]) -> set[str]:
    found: set[str] = set()
    for run_dir in run_dirs:
        path = Path(run_dir) / "manifest.json"
        if path.is_file():
            for c in json.loads(path.read_text()).get("configurations", []):
                if (c.get("agent") or {}).get("options", {}).get("api_base"):
                    found.add(c["id"])
    return found
