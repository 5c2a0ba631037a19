"""Cost of a model call: token classes × a dated price table kept in the repo (`prices.toml`).

Every entry names its source and date; `sim/*` and `stub/*` prices are invented and marked
`simulated`. A model that matches no entry gets `Cost(usd=None, null_reason=...)`, never 0. Prices
are read as decimals, so a call's cost is the float nearest to the exact decimal amount.
"""

from __future__ import annotations

import fnmatch
import tomllib
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from matchmeter.errors import UserError
from matchmeter.schema import Cost, TokenUsage

DEFAULT_PRICE_FILE = Path(__file__).with_name("prices.toml")
PER_TOKENS = 1_000_000


class PriceEntry(BaseModel):
    pattern: str = Field(description="fnmatch pattern over the model name (provider prefix optional).")
    input: float = Field(ge=0, description="USD per 1M uncached input tokens.")
    cached_input: float = Field(ge=0, description="USD per 1M cached (cache-read) input tokens.")
    output: float = Field(ge=0, description="USD per 1M visible output tokens.")
    reasoning: float = Field(ge=0, description="USD per 1M reasoning tokens.")
    source: str
    date: str
    simulated: bool = False


class PriceTable(BaseModel):
    table_id: str = Field(description="Dated id written to run manifests, e.g. 2026-11-01.")
    price: list[PriceEntry]

    @classmethod
    def load(cls, path: Path | None = None) -> PriceTable:
        return _load(Path(path or DEFAULT_PRICE_FILE))

    def lookup(self, model: str) -> PriceEntry | None:
        """First entry matching the model, or its name without a provider prefix (openai/gpt-4o → gpt-4o)."""
        candidates = [model]
        head, sep, tail = model.partition("/")
        if sep and head not in ("sim", "stub"):
            candidates.append(tail)
        for name in candidates:
            for entry in self.price:
                if fnmatch.fnmatchcase(name, entry.pattern):
                    return entry
        return None

    def cost(self, model: str, tokens: TokenUsage) -> Cost:
        entry = self.lookup(model)
        if entry is None:
            return Cost(usd=None, null_reason=f"no price for model {model} in price table {self.table_id}")
        amount = sum(
            (Decimal(count) * Decimal(str(rate))
             for count, rate in ((tokens.input, entry.input), (tokens.cached_input, entry.cached_input),
                                 (tokens.output, entry.output), (tokens.reasoning, entry.reasoning))),
            Decimal(0),
        )
        return Cost(usd=float(amount / PER_TOKENS))


@lru_cache(maxsize=8)
def _load(path: Path) -> PriceTable:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return PriceTable.model_validate(data)
    except (OSError, tomllib.TOMLDecodeError, ValueError) as exc:
        raise UserError(f"unreadable price table: {exc}", str(path), "fix the TOML (see matchmeter/llm/prices.toml)") from exc
