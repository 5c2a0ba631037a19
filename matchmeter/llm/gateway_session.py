"""One execution's side of the gateway (llm/gateway.py): its token, upstream, meter and the metered steps of a call.

A module of its own so the pass-through (llm/gateway_passthrough.py) and the server share these types without an
import loop.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, Field

from matchmeter.errors import (
    AgentError,
    AgentTimeout,
    BudgetExceeded,
    InfraError,
    MatchmeterError,
    SpendCapReached,
    UserError,
)
from matchmeter.llm.client import LMClient, RetryPolicy
from matchmeter.llm.meter import ExecutionMeter, GatewayCall
from matchmeter.llm.pricing import PriceTable
from matchmeter.llm.protocols import RunLedger
from matchmeter.llm.tokens import count_prompt_tokens
from matchmeter.schema import ModelEndpoint, utcnow

if TYPE_CHECKING:
    from matchmeter.llm.protocols import LMReply

TOKEN_PREFIX = "mmgw-"


class Upstream(BaseModel):
    """Where one execution's calls go, and how: the configured model at the configuration's endpoint."""

    model: str = Field(description="The configured litellm model string.")
    endpoint: ModelEndpoint = Field(default_factory=ModelEndpoint, description="Base URL, key variable, prices, "
                                    "cache use, timeout and retries (the configuration's, as the CLI made it).")
    salt: str = Field("", description="Cache salt of the execution (task, seed, attempt, the endpoint's cache salt).")
    cache_dir: Path | None = None
    passthrough: bool = Field(True, description="Forward a request as it is when the upstream speaks the agent's "
                              "protocol (llm/passthrough.py); False: always translate through litellm.")
    upstream_responses: bool | None = Field(None, description="The OpenAI-compatible endpoint serves /responses "
                                            "too (None: only OpenAI's own endpoint is assumed to).")


class Outcome(NamedTuple):
    status: int
    kind: str  # "ok" or the error type shown to the agent
    message: str
    reply: LMReply | None
    call: GatewayCall


class Delta(NamedTuple):
    text: str
    model: str | None  # the model the upstream says is answering, when it said so


ERROR_STATUS: dict[str, int] = {"budget_exceeded": 402, "spend_cap_reached": 402, "agent_deadline": 402,
                                "upstream_error": 502, "upstream_unavailable": 503, "gateway_misconfigured": 500}
ENDPOINT_FAILED = ("upstream_unavailable", "gateway_misconfigured")  # the endpoint's fault, not the agent's
LATCHED_STATUS = 424  # a later call of a session whose endpoint failed: not retried by SDKs


class GatewaySession:
    """One execution at the door: its token, its upstream client, its meter."""

    def __init__(self, execution_id: str, upstream: Upstream, meter: ExecutionMeter, ledger: RunLedger | None) -> None:
        self.execution_id, self.upstream, self.meter = execution_id, upstream, meter
        self.token = TOKEN_PREFIX + secrets.token_urlsafe(24)
        self.client = self._make_client(ledger)
        self.deadline: float | None = None  # time.monotonic() of the task's agent deadline (set by the trial)
        self.endpoint_failure: tuple[str, str] | None = None  # (kind, message) of the endpoint's first failure
        self.step: str | None = None  # the step of a multi-step task now running (set by the trial): stamped on calls

    def _make_client(self, ledger: RunLedger | None) -> LMClient:
        up, end = self.upstream, self.upstream.endpoint
        return LMClient(up.model, api_base=end.api_base, api_key_env=end.api_key_env, salt=up.salt,
                        price_table=PriceTable.load(overrides=end.prices),
                        spend=ledger, timeout_s=end.timeout_s, use_cache=end.use_cache, cache_dir=up.cache_dir,
                        retry=RetryPolicy(attempts=end.retry_attempts, wait_initial_s=end.retry_wait_s,
                                          wait_max_s=max(end.retry_wait_s * 8, 0.0)))

    def forward(self, api: str, model_asked: str | None, messages: list[dict[str, Any]], sampling: dict[str, Any],
                on_delta: Callable[[str, str | None], None] | None = None) -> Outcome:
        """Admit, call upstream (streamed to `on_delta` when given), meter. Never raises for a model or
        budget failure: it becomes the Outcome. A streamed reply that crosses a budget is metered when
        it ends, like a plain one: the crossing is kept and later calls are refused."""
        call, t0 = self.begin(api, model_asked, on_delta is not None)
        attempts_before = self.client.stats.http_calls
        reply, failure = None, None
        try:
            failure = self.precheck(messages)
            if failure is None:
                reply = self.client.complete(messages, deadline=self.deadline, **sampling) if on_delta is None \
                    else self.client.stream(messages, on_delta, deadline=self.deadline, **sampling)
        except MatchmeterError as exc:
            failure = self.failure_of(exc)
        return self.settle(call, t0, reply, failure, self.client.stats.http_calls - attempts_before)

    # The steps of `forward`, shared with the pass-through (llm/gateway_passthrough.py) so both meter alike.

    def begin(self, api: str, model_asked: str | None, stream: bool) -> tuple[GatewayCall, float]:
        return GatewayCall(index=0, execution_id=self.execution_id, api=api, stream=stream, model_asked=model_asked,
                           model_routed=self.upstream.model, started_at=utcnow(), step=self.step), time.monotonic()

    def precheck(self, messages: list[dict[str, Any]]) -> tuple[str, str] | None:
        """Admission (raises BudgetExceeded), then what refuses a call before it goes out: (kind, message)."""
        self.meter.admit(count_prompt_tokens(messages))
        if self.endpoint_failure is not None:  # one retry layer: the client's, already spent on this endpoint
            kind, message = self.endpoint_failure
            return kind, f"not sent: this execution's model endpoint already failed: {message}"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "agent_deadline", "matchmeter gateway refused the call: the task's agent deadline passed"
        return None

    def failure_of(self, exc: MatchmeterError) -> tuple[str, str]:
        """(kind, message) the agent is shown for a failed call; re-raises what is not a call's failure."""
        if isinstance(exc, BudgetExceeded):
            return "budget_exceeded", f"matchmeter gateway refused the call: {exc}"
        if isinstance(exc, SpendCapReached):
            self.meter.refuse(exc)
            return "spend_cap_reached", f"matchmeter gateway refused the call: {exc}"
        if isinstance(exc, AgentTimeout):
            return "agent_deadline", str(exc)
        if isinstance(exc, AgentError):
            return "upstream_error", str(exc)
        if isinstance(exc, InfraError):
            return "upstream_unavailable", str(exc)
        if isinstance(exc, UserError):
            return "gateway_misconfigured", exc.line()
        raise exc

    def settle(self, call: GatewayCall, t0: float, reply: LMReply | None, failure: tuple[str, str] | None,
               attempts: int) -> Outcome:
        """Record the call (a failure latches the endpoint's first failure) and make its Outcome."""
        kind, message = failure or ("ok", "")
        update: dict[str, Any] = {"latency_s": time.monotonic() - t0, "upstream_attempts": attempts}
        if reply is not None:
            update.update(model_answered=reply.reported_model, tokens=reply.tokens, cost=reply.cost,
                          cache_hit=reply.cache_hit)
        else:
            latched = kind in ENDPOINT_FAILED and self.endpoint_failure is not None
            if kind in ENDPOINT_FAILED and self.endpoint_failure is None:
                self.endpoint_failure = (kind, message)
            update.update(status=LATCHED_STATUS if latched else ERROR_STATUS[kind], error=message, error_kind=kind)
        recorded = self.meter.record(call.model_copy(update=update))
        return Outcome(recorded.status, kind, message, reply, recorded)

    def close(self) -> None:
        self.client.close()
