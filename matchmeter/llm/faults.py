"""Endpoint faults: which provider errors are retried, what each one becomes, and the one retry loop.

The loop here is the only retry layer between matchmeter and a model server: the client library's own
retries are switched off (`num_retries=0` for litellm, `max_retries=0` for the OpenAI SDK under it), the
gateway answers a session whose endpoint already failed without calling it again (llm/gateway.py), and
the executor does not rerun a trial that ended on an EndpointError. So "after N attempts" in a message is
the number of requests the server received for that call.

What a fault becomes (the server's faults are never the model's):
    timeout, 429, 500/502/503/504, malformed body   retried; persisting → EndpointError (infra_error)
    connection refused                               retried; persisting → EndpointError
    401/403, 404 (unknown model), unknown provider   UserError naming the endpoint (preflight's one line;
                                                     mid-run the gateway stores it as infra_error)
    any other provider error (400: context too long) AgentError: the request the agent built was refused
The task's deadline bounds the loop: no attempt outlives it and none starts after it. A call cut at the
deadline is AgentTimeout when the endpoint had not failed yet (a slow model used up the agent's time),
EndpointError when earlier attempts of the call had already failed (the endpoint is down).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from matchmeter.errors import AgentError, AgentTimeout, EndpointError, UserError

log = logging.getLogger("matchmeter.llm")

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
# Phrases litellm puts in the 500 it raises for a 200 whose body it could not parse.
MALFORMED_MARKERS = ("Expecting value", "Received response", "no 'choices'", "JSONDecodeError",
                     "Invalid response object", "Unterminated string", "malformed reply from")


class MalformedReply(Exception):
    """The server answered 200 with a body that is not a chat completion (retried like a 5xx)."""


@dataclass(frozen=True)
class Where:
    """The endpoint a call goes to, for messages (never the key's value)."""

    model: str
    api_base: str | None = None
    api_key_env: str | None = None

    def __str__(self) -> str:
        return f"model {self.model} at {self.api_base or 'the provider default endpoint'}"


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def short(exc: BaseException, limit: int = 300) -> str:
    return " ".join(str(exc).split())[:limit]


def _chain(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    chain: BaseException | None = exc
    while chain is not None and len(found) < 20:
        found.append(chain)
        chain = chain.__cause__ or chain.__context__
    return found


def is_malformed(exc: BaseException) -> bool:
    if isinstance(exc, MalformedReply) or any(isinstance(e, json.JSONDecodeError) for e in _chain(exc)):
        return True
    return any(marker in str(exc) for marker in MALFORMED_MARKERS)


def is_connection_error(exc: BaseException) -> bool:
    """Nothing listening / connection refused. litellm reports it as a 500 "Connection error." on the
    OpenAI route, so the name, the message and the cause chain are all consulted."""
    return any("APIConnectionError" in type(e).__name__ or "ConnectError" in type(e).__name__
               or "Connection error" in str(e) for e in _chain(exc))


def is_timeout(exc: BaseException) -> bool:
    return "Timeout" in type(exc).__name__


def is_retryable(exc: BaseException) -> bool:
    """Allow-list: timeouts, HTTP 429/500/502/503/504 and malformed bodies. Everything else fails at once."""
    if isinstance(exc, AgentError | UserError):
        return False
    return is_timeout(exc) or is_malformed(exc) or _status(exc) in RETRY_STATUS


def classify_error(exc: Exception, where: Where, attempts: int) -> Exception:
    """Map a provider exception to our hierarchy with a one-line message (never the request headers)."""
    name, status = type(exc).__name__, _status(exc)
    label = f"endpoint {where.api_base or 'provider default'}, model {where.model}"
    key = f"${where.api_key_env}" if where.api_key_env else "the provider's key variable (or pass --api-key-env)"
    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    if is_connection_error(exc):
        return EndpointError(f"cannot reach {where.api_base or 'the provider'} for model {where.model} "
                             f"({tries}): {short(exc, 160)}")
    if is_malformed(exc):
        return EndpointError(f"malformed reply from {where} (not an OpenAI chat completion, {tries}): "
                             f"{short(exc, 200)}")
    if is_retryable(exc):
        return EndpointError(f"{where}: {name} persisted after {tries}: {short(exc)}")
    if status in (401, 403) or "AuthenticationError" in name or "PermissionDenied" in name:
        return UserError(f"the server rejected the API key (HTTP {status or 401})", label, f"check {key}")
    if status == 404 or "NotFoundError" in name:
        return UserError(f"model not found: {short(exc, 160)}", label,
                         "check the model name against the server's /v1/models (or --api-base)")
    if "LLM Provider NOT provided" in str(exc) or "Provider NOT provided" in str(exc):
        return UserError("unknown provider in the model string", label,
                         "write provider/model (e.g. openai/<served name> for an OpenAI-compatible server)")
    return AgentError(f"model {where.model} failed: {name}: {short(exc)}")


@dataclass(frozen=True)
class Backoff:
    attempts: int
    wait_initial_s: float
    wait_max_s: float

    def wait(self, failed: int) -> float:
        """Seconds before attempt `failed + 1`: min(max, initial * 2**(failed-1))."""
        return float(min(self.wait_max_s, self.wait_initial_s * 2.0 ** (failed - 1)))


class _Retries:
    """The one retry policy both loops follow: each attempt's timeout, and after a failure either the pause
    before the next attempt or the error to raise (so the sync and async loops cannot drift apart)."""

    def __init__(self, where: Where, backoff: Backoff, timeout_s: float, deadline: float | None) -> None:
        self.where, self.backoff, self.timeout_s, self.deadline = where, backoff, timeout_s, deadline
        self.failures: list[str] = []
        self.t0 = time.monotonic()

    def budget(self) -> float:
        """This attempt's timeout, bounded by the deadline; raises when the deadline already passed."""
        budget = self.timeout_s if self.deadline is None else min(self.timeout_s, self.deadline - time.monotonic())
        if budget <= 0:
            raise _deadline_error(self.where, self.failures, time.monotonic() - self.t0)
        return budget

    def pause_after(self, exc: Exception, n: int, budget: float) -> float:
        """Seconds to wait before attempt n + 1 after `exc` ended attempt n; raises what the caller sees instead."""
        if not is_retryable(exc):
            raise classify_error(exc, self.where, n) from None
        if budget < self.timeout_s and is_timeout(exc):  # cut by the deadline, not by the per-call timeout
            raise _deadline_error(self.where, self.failures, time.monotonic() - self.t0) from None
        self.failures.append(type(exc).__name__)
        if n == self.backoff.attempts:
            raise classify_error(exc, self.where, n) from None
        pause = self.backoff.wait(n)
        if self.deadline is not None and time.monotonic() + pause >= self.deadline:
            raise _deadline_error(self.where, self.failures, time.monotonic() - self.t0) from None
        log.info("lm retry %d for %s after %s", n, self.where, type(exc).__name__)
        return pause


def call_with_retries(attempt: Callable[[float], Any], where: Where, backoff: Backoff, timeout_s: float,
                      deadline: float | None = None, on_attempt: Callable[[], None] = lambda: None) -> Any:
    """Call `attempt(timeout_s)` until it returns, retrying retryable faults; `deadline` (time.monotonic())
    bounds every attempt's timeout and the waits. `on_attempt` runs before each request (the counters).

    Raises:
        EndpointError, UserError, AgentError: see the module docstring.
        AgentTimeout: the deadline passed before the endpoint had failed once.
    """
    retries = _Retries(where, backoff, timeout_s, deadline)
    for n in range(1, backoff.attempts + 1):
        budget = retries.budget()
        on_attempt()
        try:
            return attempt(budget)
        except Exception as exc:  # noqa: BLE001 - every provider error is classified by _Retries
            time.sleep(retries.pause_after(exc, n, budget))
    raise AssertionError("unreachable: the loop returns or raises")


def _deadline_error(where: Where, failures: list[str], waited_s: float) -> Exception:
    if failures:
        return EndpointError(f"{where} did not answer before the task's agent deadline: {len(failures)} "
                             f"failed attempt(s) ({', '.join(dict.fromkeys(failures))}) in {waited_s:.0f}s")
    return AgentTimeout(f"the task's agent deadline passed while waiting {waited_s:.0f}s for {where}")


async def acall_with_retries(attempt: Callable[[float], Awaitable[Any]], where: Where, backoff: Backoff,
                             timeout_s: float, deadline: float | None = None,
                             on_attempt: Callable[[], None] = lambda: None) -> Any:
    """`call_with_retries` for a coroutine attempt (the gateway's pass-through): the same policy (_Retries);
    waits are `asyncio.sleep`, so no thread is held."""
    retries = _Retries(where, backoff, timeout_s, deadline)
    for n in range(1, backoff.attempts + 1):
        budget = retries.budget()
        on_attempt()
        try:
            return await attempt(budget)
        except Exception as exc:  # noqa: BLE001 - every provider error is classified by _Retries
            await asyncio.sleep(retries.pause_after(exc, n, budget))
    raise AssertionError("unreachable: the loop returns or raises")


class UpstreamStatusError(Exception):
    """An HTTP error status from the upstream, named as litellm names it (the names are in messages)."""

    status_code = 0


def _status_class(name: str, status: int) -> type[UpstreamStatusError]:
    return type(name, (UpstreamStatusError,), {"status_code": status})


STATUS_ERRORS = {status: _status_class(name, status) for status, name in (
    (400, "BadRequestError"), (401, "AuthenticationError"), (403, "PermissionDeniedError"), (404, "NotFoundError"),
    (422, "UnprocessableEntityError"), (429, "RateLimitError"), (500, "InternalServerError"),
    (502, "BadGatewayError"), (503, "ServiceUnavailableError"), (504, "InternalServerError"))}


def status_error(status: int, body: str) -> UpstreamStatusError:
    """The exception for an upstream's HTTP error status (its body, shortened, as the message)."""
    cls = STATUS_ERRORS.get(status) or _status_class("APIError", status)
    return cls(f"HTTP {status} from the upstream: {' '.join(body.split())[:300]}")


class Timeout(Exception):  # noqa: N818 - litellm's name, which is_timeout and the messages rely on
    """No answer within the attempt's time budget."""


class APIConnectionError(Exception):
    """Nothing listening, the connection refused or reset before a reply."""
