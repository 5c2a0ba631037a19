"""Cost of a model call: token classes × a dated price table kept in the repo (`prices.toml`).

Every entry names its source and date; `sim/*` and `stub/*` prices are invented and marked
`simulated`. A model that matches no entry gets `Cost(usd=None, null_reason=...)`, never 0. Prices
are read as decimals, so a call's cost is the float nearest to the exact decimal amount.

Users price their own models with `--prices FILE` (same format, `table_id` optional): its entries are
put before the shipped ones, so they win. `PriceTable.digest` covers every entry, so an edited table
never passes for the one a run was priced with (manifests store it beside `table_id`).
"""

from __future__ import annotations

import fnmatch
import tomllib
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from matchmeter.errors import UserError
from matchmeter.schema import Cost, TokenUsage, canonical_json, sha256_text

DEFAULT_PRICE_FILE = Path(__file__).with_name("prices.toml")
PER_TOKENS = 1_000_000


class PriceEntry(BaseModel):
    pattern: str = Field(description="fnmatch pattern over the model name (provider prefix optional).")
    input: float = Field(ge=0, description="USD per 1M uncached input tokens.")
    cached_input: float = Field(ge=0, description="USD per 1M cached (cache-read) input tokens.")
    output: float = Field(ge=0, description="USD per 1M visible output tokens.")
    reasoning: float = Field(ge=0, description="USD per 1M reasoning tokens.")
    source: str = "user-supplied (--prices)"
    date: str = ""
    simulated: bool = False


class PriceTable(BaseModel):
    table_id: str = Field(description="Dated id written to run manifests, e.g. 2026-11-01.")
    price: list[PriceEntry]

    @classmethod
    def load(cls, path: Path | None = None, overrides: Path | str | None = None) -> PriceTable:
        """The shipped table (or `path`), with the entries of `overrides` (a user's --prices file) first."""
        base = _load(Path(path or DEFAULT_PRICE_FILE), _mtime(path or DEFAULT_PRICE_FILE))
        if not overrides:
            return base
        extra = _load(Path(overrides), _mtime(overrides), needs_id=False)
        return PriceTable(table_id=f"{base.table_id}+{extra.table_id or Path(overrides).name}",
                          price=[*extra.price, *base.price])

    @property
    def digest(self) -> str:
        """sha256 over every entry: changes with any edit, unlike the hand-written table_id."""
        return sha256_text(canonical_json(self.model_dump(mode="json")))

    def lookup(self, model: str, strip_prefix: bool = True) -> PriceEntry | None:
        """First entry matching the model, or (strip_prefix) its name without a provider prefix
        (openai/gpt-4o → gpt-4o). Callers pass strip_prefix=False for a custom endpoint: `openai/<local
        name>` served locally is not the hosted model of that name."""
        candidates = [model]
        head, sep, tail = model.partition("/")
        if sep and head not in ("sim", "stub") and strip_prefix:
            candidates.append(tail)
        for name in candidates:
            for entry in self.price:
                if fnmatch.fnmatchcase(name, entry.pattern):
                    return entry
        return None

    def cost(self, model: str, tokens: TokenUsage, strip_prefix: bool = True) -> Cost:
        entry = self.lookup(model, strip_prefix)
        if entry is None:
            return Cost(usd=None, null_reason=f"no price for model {model} in price table {self.table_id}"
                        + ("" if strip_prefix else " (custom endpoint: add an exact entry with --prices FILE)"))
        amount = sum(
            (Decimal(count) * Decimal(str(rate))
             for count, rate in ((tokens.input, entry.input), (tokens.cached_input, entry.cached_input),
                                 (tokens.output, entry.output), (tokens.reasoning, entry.reasoning))),
            Decimal(0),
        )
        return Cost(usd=float(amount / PER_TOKENS))


def _mtime(path: Path | str) -> int:
    """Part of the load cache key, so a table edited while the process runs is read again."""
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        return 0


@lru_cache(maxsize=8)
def _load(path: Path, mtime_ns: int, needs_id: bool = True) -> PriceTable:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if not needs_id:
            data.setdefault("table_id", "")
        return PriceTable.model_validate(data)
    except (OSError, tomllib.TOMLDecodeError, ValueError) as exc:
        raise UserError(f"unreadable price table: {exc}", str(path), "fix the file: TOML with [[price]] entries like matchmeter/llm/prices.toml") from exc
