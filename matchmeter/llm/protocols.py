"""The two typed seams of model spend, in one place: who answers a chat turn, and who holds the run's cap.

`LMReply` is what a chat turn returns. `LMClientLike` is what every model caller needs (the gate's
judge, the optimizer's rewriters, the built-in bash agent): `llm/client.py` `LMClient` and
`llm/gateway_client.py` `GatewayClient` satisfy it.
`RunLedger` is the run's spend cap (`llm/spend.py` `SpendLedger` satisfies it); it replaces the untyped
`spend_ledger` that was passed between the run, the trial, the gateway and the agents.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from matchmeter.schema import Cost, ModelCall, TokenUsage, utcnow


class LMReply(BaseModel):
    """One chat turn's answer with its metered usage and cost."""

    text: str
    model: str = Field(description="The model as configured.")
    reported_model: str | None = Field(None, description="The model the provider says answered.")
    tokens: TokenUsage
    cost: Cost = Field(description="Priced usage of this reply (the original call's, on a cache hit).")
    new_spend_usd: float | None = Field(description="USD newly spent by this call: 0.0 on a cache hit.")
    cache_hit: bool = False
    latency_s: float = 0.0
    started_at: datetime = Field(default_factory=utcnow)
    tool_calls: list[dict[str, Any]] = Field(default_factory=list,
                                             description="OpenAI-shaped tool calls (when `tools` were sent).")

    def to_model_call(self, index: int) -> ModelCall:
        return ModelCall(index=index, model=self.model, reported_model=self.reported_model, tokens=self.tokens,
                         cost=self.cost, cache_hit=self.cache_hit, started_at=self.started_at,
                         latency_s=self.latency_s)


class LMClientLike(Protocol):
    """One model endpoint answering chat turns with metered usage and cost."""

    model: str

    def complete(self, messages: list[dict[str, Any]], *, timeout_s: float | None = None, **sampling: Any) -> LMReply:
        """One chat completion. Raises SpendCapReached, BudgetExceeded, AgentError, InfraError, UserError."""
        ...

    def close(self) -> None:
        """Release what the client holds."""
        ...


@runtime_checkable
class RunLedger(Protocol):
    """The run's spend cap shared by every execution."""

    def check(self) -> None:
        """Raise SpendCapReached when the run already spent its cap."""
        ...

    def charge(self, usd: float | None) -> None:
        """Add one priced call (None = unpriced: counted, not added)."""
        ...

    @property
    def spent_usd(self) -> float:
        """USD charged so far by priced calls."""
        ...

    @property
    def unpriced_calls(self) -> int:
        """Calls whose price is unknown: the spend is then unknown, never 0."""
        ...
