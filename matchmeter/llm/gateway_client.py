"""The harness-side client of the gateway: what the built-in bash agent calls instead of a provider.

It posts an OpenAI chat request with the execution's token and turns the answer into an `LMReply`
whose tokens, cost, cache flag and answering model are the gateway's metered values (the `matchmeter`
field of the reply), so the bash agent's per-step view and the gateway's record are the same numbers.
A refusal becomes the error the trial ends on (BudgetExceeded, SpendCapReached, AgentTimeout at the
task's deadline); the endpoint's failure becomes EndpointError (with the gateway's message, which names
the endpoint), a refused request AgentError, as they would from `LMClient`.
"""

from __future__ import annotations

import re
from typing import Any

from matchmeter.errors import (
    AgentError,
    AgentTimeout,
    BudgetExceeded,
    EndpointError,
    InfraError,
    SpendCapReached,
)
from matchmeter.llm.protocols import LMReply
from matchmeter.llm.usage import openai_usage
from matchmeter.schema import Cost, utcnow

BUDGET_RE = re.compile(r"(\w+) budget exceeded: used ([-+.\deE]+) of ([-+.\deE]+)")


class GatewayClient:
    """Chat completions through the gateway for one execution (base_url without /v1)."""

    def __init__(self, base_url: str, token: str, model: str, *, timeout_s: float = 120.0) -> None:
        self.base_url, self.token, self.model, self.timeout_s = base_url.rstrip("/"), token, model, timeout_s

    def complete(self, messages: list[dict[str, Any]], *, timeout_s: float | None = None, **sampling: Any) -> LMReply:
        """One call. Raises BudgetExceeded, SpendCapReached, AgentTimeout, AgentError, EndpointError, InfraError."""
        import httpx

        started = utcnow()
        try:
            response = httpx.post(f"{self.base_url}/v1/chat/completions",
                                  json={"model": self.model, "messages": messages, **sampling},
                                  headers={"Authorization": f"Bearer {self.token}"},
                                  timeout=(timeout_s or self.timeout_s) + 5.0)
        except httpx.HTTPError as exc:
            raise InfraError(f"matchmeter's model gateway ({self.base_url}) did not answer: {type(exc).__name__}: "
                             f"{exc}") from None
        if response.status_code != 200:
            raise _error(response)
        body = response.json()
        meta = body.get("matchmeter") or {}
        tokens = openai_usage(body.get("usage"))
        cost = Cost(usd=meta.get("cost_usd"), null_reason=meta.get("cost_null_reason"))
        text = body["choices"][0]["message"].get("content") or ""
        return LMReply(text=text, model=self.model, reported_model=meta.get("model_answered"), tokens=tokens,
                       cost=cost, new_spend_usd=0.0 if meta.get("cache_hit") else cost.usd,
                       cache_hit=bool(meta.get("cache_hit")), latency_s=float(meta.get("latency_s") or 0.0),
                       started_at=started)

    def close(self) -> None:
        """Nothing to release (one short-lived HTTP request per call); the agent protocol calls it."""


def _error(response: Any) -> Exception:
    try:
        error = response.json().get("error") or {}
    except ValueError:
        error = {}
    kind, message = error.get("type", ""), error.get("message") or response.text[:300]
    if kind == "spend_cap_reached":
        return SpendCapReached(message)
    if kind == "budget_exceeded":
        return _budget_error(message)
    if kind == "agent_deadline":
        return AgentTimeout(message)
    if kind in ("upstream_unavailable", "gateway_misconfigured"):
        return EndpointError(message)
    if response.status_code == 401:
        return InfraError(f"matchmeter's model gateway refused this execution's token: {message}")
    return AgentError(message)


def _budget_error(message: str) -> BudgetExceeded:
    """Rebuild BudgetExceeded from the gateway's message ("<budget> budget exceeded: used U of L")."""
    found = BUDGET_RE.search(message)
    if found is None:
        return BudgetExceeded("gateway", 0.0, 0.0)
    return BudgetExceeded(found[1], float(found[2]), float(found[3]))
