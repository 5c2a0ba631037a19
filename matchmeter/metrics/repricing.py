"""Re-price stored executions from their token counts with the shipped price table + a --prices file.

Stored token counts are the source of truth for cost: cost = token classes × the table's rates, linear in
the counts, so pricing an execution's token totals equals summing its priced calls (each execution calls
one model). A stored run is re-priced without re-running it. A model on a custom endpoint (its
configuration had `api_base`) is looked up without stripping the provider prefix.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter.errors import UserError
from matchmeter.llm.pricing import PriceTable
from matchmeter.schema import Configuration, TokenUsage

if TYPE_CHECKING:
    import pandas as pd

TOKEN_COLUMNS = ("tokens_input", "tokens_cached_input", "tokens_output", "tokens_reasoning")


def reprice(frame: pd.DataFrame, run_dirs: Sequence[Path], prices: Path) -> tuple[pd.DataFrame, str]:
    """`cost_usd` recomputed from the stored token classes with the shipped table + `prices` merged over it."""
    out, table = reprice_with_table(frame, run_dirs, prices)
    return out, describe_table(table)


def describe_table(table: PriceTable) -> str:
    return f"{table.table_id} (digest {table.digest[:12]})"


def reprice_with_table(frame: pd.DataFrame, run_dirs: Sequence[Path], prices: Path) -> tuple[pd.DataFrame, PriceTable]:
    """As `reprice`, returning the price table itself (its id and digest go where the costs go)."""
    import pandas as pd

    if not Path(prices).is_file():
        raise UserError("price file not found", str(prices), "pass a TOML file with [[price]] entries")
    missing = [c for c in ("model", "cost_null_reason", *TOKEN_COLUMNS) if c not in frame.columns]
    if missing:
        raise UserError(f"results table lacks column {missing[0]!r}, which re-pricing reads", "results table",
                        "rebuild it from the run's result.json files (ExecutionResult.to_row)")
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
    out["cost_usd"] = pd.Series(usd, index=out.index, dtype="float64")
    out["cost_null_reason"] = reasons
    return out, table


def _custom_endpoint_configs(run_dirs: Sequence[Path]) -> set[str]:
    found: set[str] = set()
    for run_dir in run_dirs:
        path = Path(run_dir) / "manifest.json"
        if path.is_file():
            for c in json.loads(path.read_text()).get("configurations", []):
                configuration = Configuration.model_validate(c)  # reads a run stored before `endpoint` existed too
                if configuration.endpoint.api_base:
                    found.add(configuration.id)
    return found
