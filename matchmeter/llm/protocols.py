"""The two typed seams of model spend, in one place: who answers a chat turn, and who holds the run's cap.

`LMClientLike` is what every model caller needs (the gate's judge, the optimizer's rewriters, the
built-in bash agent): `llm/client.py` `LMClient` and `llm/gateway_client.py` `GatewayClient` satisfy it.
`RunLedger` is the run's spend cap (`llm/spend.py` `SpendLedger` satisfies it); it replaces the untyped
`spend_ledger` that was passed between the run, the trial, the gateway and the agents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from matchmeter.llm.client import LMReply


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
