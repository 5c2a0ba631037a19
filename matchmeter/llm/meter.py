"""Metering at the gateway: one record per model request of one execution, and the budgets checked there.

`ExecutionMeter` belongs to one execution's gateway session. Before a request goes out, `admit`
refuses it when it would cross the execution's token or USD budget (tokens already used + the
request's prompt tokens, counted with llm/tokens.py; USD already spent + that prompt priced as
uncached input). A reply that still crosses a budget (its output was larger than what was left) is
recorded, and the crossing is kept as `refusal`, so the next request is refused and the trial ends
`budget_exceeded`. Every request is recorded, refused and failed ones included, so nothing is lost.

The run's spend cap reaches the gateway as a `RunLedger` (llm/protocols.py).
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import BudgetExceeded, MatchmeterError
from matchmeter.llm.pricing import PriceTable
from matchmeter.schema import Cost, ModelCall, TokenUsage, utcnow


class ExecutionBudget(BaseModel):
    """Per-execution limits enforced at the gateway (None = no limit)."""

    tokens: int | None = Field(None, ge=1, description="Most model tokens (all classes) for the execution.")
    usd: float | None = Field(None, gt=0, description="Most model spend in USD for the execution.")


class GatewayCall(BaseModel):
    """One request at the door, as metered by the gateway."""

    index: int
    execution_id: str
    api: Literal["openai", "responses", "anthropic", "gemini"] = Field(description="Which wire protocol the agent spoke.")
    stream: bool = False
    model_asked: str | None = Field(None, description="The model name the agent put in its request.")
    model_routed: str = Field(description="The configured model the gateway forwarded to.")
    model_answered: str | None = Field(None, description="The model the provider says answered.")
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost: Cost = Field(default_factory=lambda: Cost(usd=0.0))
    cache_hit: bool = False
    upstream_attempts: int = Field(0, description="HTTP attempts the LM client made (retries included).")
    latency_s: float = 0.0
    started_at: datetime = Field(default_factory=utcnow)
    status: int = Field(200, description="HTTP status the gateway answered the agent with.")
    error: str | None = Field(None, description="Refusal or upstream failure the agent was shown.")
    error_kind: str | None = Field(None, description="budget_exceeded | spend_cap | agent_error | infra_error | ...")
    step: str | None = Field(None, description="The step of a multi-step task the call was made in.")

    def to_model_call(self, index: int) -> ModelCall:
        return ModelCall(index=index, model=self.model_routed, reported_model=self.model_answered,
                         tokens=self.tokens, cost=self.cost, cache_hit=self.cache_hit, started_at=self.started_at,
                         latency_s=self.latency_s, step=self.step)


class ExecutionMeter:
    """Thread-safe per-execution record of gateway calls plus the budget check."""

    def __init__(self, execution_id: str, model: str, budget: ExecutionBudget | None = None,
                 prices: PriceTable | None = None) -> None:
        self.execution_id, self.model = execution_id, model
        self.budget = budget or ExecutionBudget()
        self.prices = prices or PriceTable.load()
        self.calls: list[GatewayCall] = []
        self.refusal: MatchmeterError | None = None
        self._lock = threading.Lock()
        # Running totals of the answered calls (the same left fold `sum` made): admit and record are O(1), not
        # O(calls so far), on the gateway's event loop.
        self._tokens, self._cost = TokenUsage(), Cost(usd=0.0)

    # ------------------------------------------------------------------ totals

    @property
    def answered(self) -> list[GatewayCall]:
        return [c for c in self.calls if c.status == 200]

    @property
    def tokens(self) -> TokenUsage:
        return self._tokens

    @property
    def cost(self) -> Cost:
        return self._cost

    def calls_of(self, step: str | None) -> list[GatewayCall]:
        """The calls made in one step of a multi-step execution (every call when `step` is None)."""
        with self._lock:
            return [c for c in self.calls if step is None or c.step == step]

    def model_calls(self) -> list[ModelCall]:
        """The answered calls as trajectory ModelCalls (the source of truth for tokens and cost)."""
        return [c.to_model_call(i) for i, c in enumerate(self.answered)]

    # ------------------------------------------------------------------ budgets

    def admit(self, prompt_tokens: int) -> None:
        """Raise BudgetExceeded when this request would cross a budget (checked before it goes out)."""
        with self._lock:
            if self.refusal is not None:
                raise self.refusal
            used = self.tokens.total
            if self.budget.tokens is not None and used + prompt_tokens > self.budget.tokens:
                self.refusal = BudgetExceeded("tokens", used + prompt_tokens, self.budget.tokens)
                raise self.refusal
            spent = self.cost.usd
            if self.budget.usd is not None and spent is not None:
                prompt_usd = self.prices.cost(self.model, TokenUsage(input=prompt_tokens)).usd or 0.0
                if spent + prompt_usd > self.budget.usd:
                    self.refusal = BudgetExceeded("usd", spent + prompt_usd, self.budget.usd)
                    raise self.refusal

    def record(self, call: GatewayCall) -> GatewayCall:
        """Keep one call (index assigned here); a reply that crossed a budget sets `refusal`."""
        with self._lock:
            call = call.model_copy(update={"index": len(self.calls)})
            self.calls.append(call)
            if call.status == 200:
                self._tokens, self._cost = self._tokens + call.tokens, self._cost + call.cost
            if call.status != 200 or self.refusal is not None:
                return call
            used, spent = self.tokens.total, self.cost.usd
            if self.budget.tokens is not None and used > self.budget.tokens:
                self.refusal = BudgetExceeded("tokens", used, self.budget.tokens)
            elif self.budget.usd is not None and spent is not None and spent > self.budget.usd:
                self.refusal = BudgetExceeded("usd", spent, self.budget.usd)
            return call

    def refuse(self, error: MatchmeterError) -> None:
        """Keep a refusal decided elsewhere (the run's spend cap) so the trial can end on it."""
        with self._lock:
            self.refusal = self.refusal or error

    # ------------------------------------------------------------------ storage

    def write_jsonl(self, path: Path) -> None:
        """All calls, one JSON object per line, written atomically (temp file, fsync, rename)."""
        with self._lock:
            lines = [json.dumps(call.model_dump(mode="json"), sort_keys=True) + "\n" for call in self.calls]
        atomic_write_text(path, "".join(lines))


def call_meta(call: GatewayCall) -> dict[str, Any]:
    """The metered view returned to the agent beside the usage (the bash agent reads it)."""
    return {"call_index": call.index, "model_answered": call.model_answered, "cost_usd": call.cost.usd,
            "cost_null_reason": call.cost.null_reason, "cache_hit": call.cache_hit, "latency_s": call.latency_s}
