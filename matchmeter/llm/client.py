"""The one LM client: litellm behind `LMClient.complete`, with cache, retries, usage, cost and a spend cap.

Flow of `complete(messages, **sampling)`: look the request up in the cache (a hit spends nothing new
and is counted in `stats.hits`); otherwise check the spend ledger (SpendCapReached before any HTTP
call), call litellm with tenacity retries on an allow-list (429, timeouts, 500/502/503/504), split
`usage` into token classes, price them with the dated table, store the reply, charge the ledger.

Cache hits and cost: a hit's `LMReply.cost` is the *priced original usage* (the same number the
uncached call reported) so rewards, budgets and cost metrics of an execution do not depend on cache
state; `LMReply.new_spend_usd` is 0.0 on a hit and only new spend reaches the ledger. Reports that
want money actually billed sum `cost` over calls with `cache_hit == False`.

Errors: a malformed reply (body not JSON, no choices) → AgentError, not retried; retryable faults that
persist past the last attempt or a refused connection → InfraError; a rejected key (401/403), an unknown
model (404) or an unknown provider → UserError naming the endpoint (the user must fix it, it is never
the model's fault); any other provider error → AgentError. API keys are read from the named
environment variable at call time and never logged, cached or stored. The cache key includes the
endpoint and the served model identity (llm/cache.py); `preflight` (below) checks each endpoint once.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from matchmeter.errors import AgentError, InfraError, UserError
from matchmeter.llm.cache import ResponseCache, cache_key
from matchmeter.llm.pricing import PriceTable
from matchmeter.llm.protocols import LMReply, RunLedger
from matchmeter.llm.sim import SIM_BEHAVIOUR_VERSION
from matchmeter.llm.spend import SpendLedger
from matchmeter.schema import Cost, TokenUsage, utcnow

log = logging.getLogger("matchmeter.llm")

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
# Phrases litellm puts in the 500 it raises for a 200 whose body it could not parse.
MALFORMED_MARKERS = ("Expecting value", "Received response", "no 'choices'", "JSONDecodeError",
                     "Invalid response object", "Unterminated string")
NO_KEY_PLACEHOLDER = "sk-matchmeter-no-key"  # the OpenAI SDK insists on a key; local servers ignore it


class RetryPolicy(BaseModel):
    """Exponential backoff: wait min(wait_max_s, wait_initial_s * 2**n) between attempts."""

    attempts: int = Field(4, ge=1)
    wait_initial_s: float = Field(0.5, ge=0)
    wait_max_s: float = Field(8.0, ge=0)


@dataclass
class ClientStats:
    hits: int = 0
    misses: int = 0
    http_calls: int = 0
    retries: int = 0


def import_litellm() -> Any:
    """Import litellm quietly and offline (5-9 CPU-s on the 2-core machine: keep it out of `matchmeter --help`).

    The cyclic collector is paused for the import: litellm and the OpenAI SDK build thousands of pydantic
    models at import time, which sets off collections that find almost nothing to free (about a sixth of the
    import's CPU; benchmarks/startup.py measures it). Collection resumes as it was afterwards."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    collecting = gc.isenabled()
    gc.disable()
    try:
        import litellm
    finally:
        if collecting:
            gc.enable()

    litellm.suppress_debug_info = True
    return litellm


def litellm_model_name(model: str, api_base: str | None) -> str:
    """sim/* and stub/* models speak the OpenAI protocol to the stub: route them through litellm's openai/."""
    if model.split("/", 1)[0] in ("sim", "stub"):
        return f"openai/{model}"
    return model


class LMClient:
    """One model endpoint with caching, retries, pricing and the spend cap.

    Args:
        model: litellm model string (`openai/gpt-4o-mini`, `sim/expert`, ...).
        api_base: endpoint URL (the stub's `.../v1`, a local server); None for the provider default.
        api_key_env: name of the environment variable holding the key (read per call, never stored).
        cache_dir: cache root (default MATCHMETER_CACHE_DIR or ~/.cache/matchmeter); `use_cache=False` skips it.
        salt: mixed into every cache key (the runner passes seed/attempt so samples stay independent).
        spend: the run's ledger (a RunLedger); `spend_cap_usd` builds an in-memory one when no ledger is given.
        price_table: defaults to matchmeter/llm/prices.toml.
        timeout_s: per-request timeout; `retry` the backoff policy (tests use tiny waits).
    """

    def __init__(self, model: str, *, api_base: str | None = None, api_key_env: str | None = None,
                 cache_dir: Path | None = None, salt: str = "", spend: RunLedger | None = None,
                 spend_cap_usd: float | None = None, price_table: PriceTable | None = None,
                 timeout_s: float = 120.0, retry: RetryPolicy | None = None, use_cache: bool = True) -> None:
        self.model, self.api_base, self.api_key_env, self.salt = model, api_base, api_key_env, salt
        self.spend: RunLedger = spend or SpendLedger(cap_usd=spend_cap_usd)
        self.prices = price_table or PriceTable.load()
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.cache = ResponseCache(cache_dir) if use_cache else None
        self.stats = ClientStats()
        self.served = self.cache.served_identity(api_base, model) if self.cache is not None else None

    # ------------------------------------------------------------------ public

    def complete(self, messages: list[dict[str, Any]], *, timeout_s: float | None = None, **sampling: Any) -> LMReply:
        """One chat completion. Raises SpendCapReached, AgentError, InfraError, UserError (missing key)."""
        key, hit = self._cached(messages, sampling)
        if hit is not None:
            return hit
        self.stats.misses += 1
        self.spend.check()
        started, t0 = utcnow(), time.monotonic()
        response = self._call_with_retries(messages, sampling, timeout_s or self.timeout_s)
        text, reported, tokens, usage_reported = parse_response(response, self.model)
        tool_calls = message_tool_calls(_get(_get(response, "choices")[0], "message"))
        cost = self._price(tokens, usage_reported)
        self.spend.charge(cost.usd)
        if self.cache is not None:
            self.cache.put(key, {"text": text, "reported_model": reported, "tokens": tokens.model_dump(),
                                 "usage_reported": usage_reported, **({"tool_calls": tool_calls} if tool_calls else {})})
        log.debug("lm call model=%s tokens=%d cost=%s", self.model, tokens.total, cost.usd)
        return LMReply(text=text, model=self.model, reported_model=reported, tokens=tokens, cost=cost,
                       new_spend_usd=cost.usd, cache_hit=False, latency_s=time.monotonic() - t0, started_at=started,
                       tool_calls=tool_calls)

    def _cached(self, messages: list[dict[str, Any]], sampling: dict[str, Any]) -> tuple[str, LMReply | None]:
        """The request's cache key, and the stored reply when the cache holds one (free: no spend, no call)."""
        key = cache_key(self.model, messages, sampling, self.salt + self._behaviour_salt(), self._cache_endpoint(),
                        self.served)
        record = self.cache.get(key) if self.cache is not None else None
        if record is None:
            return key, None
        self.stats.hits += 1
        tokens = TokenUsage(**record["tokens"])
        log.debug("lm cache hit model=%s key=%s", self.model, key[:12])
        return key, LMReply(text=record["text"], model=self.model, reported_model=record.get("reported_model"),
                            tokens=tokens, cost=self._price(tokens, record.get("usage_reported", True)),
                            new_spend_usd=0.0, cache_hit=True, tool_calls=record.get("tool_calls") or [])

    def stream(self, messages: list[dict[str, Any]], on_delta: Callable[[str, str | None], None], *,
               timeout_s: float | None = None, **sampling: Any) -> LMReply:
        """`complete`, streamed: each text delta goes to `on_delta(text, reported_model)` as the upstream sends it.

        Same cache key, spend cap and pricing as `complete` (a streamed and a plain request for the same
        conversation share one cache entry); a hit is delivered as one delta. Usage is read from the final
        chunk (`stream_options.include_usage` is asked upstream). Retries cover opening the stream only:
        once a delta went out, a broken stream raises AgentError and nothing is cached. Tool calls are
        assembled from their fragments and returned whole in `LMReply.tool_calls`.
        """
        key, hit = self._cached(messages, sampling)
        if hit is not None:
            if hit.text:
                on_delta(hit.text, hit.reported_model)
            return hit
        self.stats.misses += 1
        self.spend.check()
        started, t0 = utcnow(), time.monotonic()
        chunks = self._call_with_retries(messages, {**sampling, "stream": True,
                                                    "stream_options": {"include_usage": True}},
                                         timeout_s or self.timeout_s)
        parts: list[str] = []
        calls: dict[int, dict[str, Any]] = {}  # tool calls arrive in fragments, by index
        reported: str | None = None
        usage: Any = None
        try:
            for chunk in chunks:
                reported = reported or (str(_get(chunk, "model")) if _get(chunk, "model") else None)
                usage = _get(chunk, "usage") or usage
                for choice in _get(chunk, "choices") or []:
                    delta = _get(_get(choice, "delta"), "content")
                    if delta:
                        parts.append(delta)
                        on_delta(delta, reported)
                    for fragment in _get(_get(choice, "delta"), "tool_calls") or []:
                        _merge_tool_call(calls, fragment)
        except Exception as exc:
            raise AgentError(f"model {self.model}: the stream broke off after {len(parts)} deltas: "
                             f"{type(exc).__name__}: {_short(exc)}") from None
        text = "".join(parts)
        # litellm stamps its chunks with the requested model; the upstream's own name is kept aside.
        reported = getattr(chunks, "_provider_response_model", None) or reported
        tokens, usage_reported = usage_tokens(usage)
        tool_calls = [calls[i] for i in sorted(calls)]
        cost = self._price(tokens, usage_reported)
        self.spend.charge(cost.usd)
        if self.cache is not None:
            self.cache.put(key, {"text": text, "reported_model": reported, "tokens": tokens.model_dump(),
                                 "usage_reported": usage_reported, **({"tool_calls": tool_calls} if tool_calls else {})})
        return LMReply(text=text, model=self.model, reported_model=reported, tokens=tokens, cost=cost,
                       new_spend_usd=cost.usd, cache_hit=False, latency_s=time.monotonic() - t0, started_at=started,
                       tool_calls=tool_calls)

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()

    # ------------------------------------------------------------------ internals

    def _cache_endpoint(self) -> str | None:
        # sim personas are pure functions of (task, seed, persona, conversation), all in the key already;
        # their endpoint is the stub's ephemeral port, which would defeat the cache across runs.
        return "sim-stub" if self.model.startswith("sim/") else self.api_base

    def _behaviour_salt(self) -> str:
        if self.model.startswith("sim/"):
            return f"|sim-behaviour-{SIM_BEHAVIOUR_VERSION}"
        return ""

    def _price(self, tokens: TokenUsage, usage_reported: bool) -> Cost:
        if not usage_reported:
            return Cost(usd=None, null_reason=f"model {self.model} reported no token usage")
        return self.prices.cost(self.model, tokens, strip_prefix=not self.custom_endpoint)

    @property
    def custom_endpoint(self) -> bool:
        """A user-given server (not a provider default, not the sim stub): no provider-prefix price match."""
        return bool(self.api_base) and self.model.split("/", 1)[0] not in ("sim", "stub")

    def _api_key(self) -> str | None:
        if self.api_key_env:
            value = os.environ.get(self.api_key_env)
            if not value:
                raise UserError(f"environment variable {self.api_key_env} is not set", f"model {self.model}",
                                f"export {self.api_key_env}=<your key>")
            return value
        return NO_KEY_PLACEHOLDER if self.api_base else None

    def _call_with_retries(self, messages: list[dict[str, Any]], sampling: dict[str, Any], timeout_s: float) -> Any:
        import tenacity

        api_key = self._api_key()  # a missing key variable fails before litellm's import (seconds of CPU)
        litellm = import_litellm()
        kwargs: dict[str, Any] = {"model": litellm_model_name(self.model, self.api_base), "messages": messages,
                                  "timeout": timeout_s, "num_retries": 0, "max_retries": 0, **sampling}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if api_key:
            kwargs["api_key"] = api_key

        def attempt() -> Any:
            self.stats.http_calls += 1
            try:
                return litellm.completion(**kwargs)
            except Exception as exc:
                if is_malformed(exc):
                    raise AgentError(f"malformed reply from model {self.model}: {_short(exc)}") from None
                raise

        def before_sleep(state: tenacity.RetryCallState) -> None:
            self.stats.retries += 1
            log.info("lm retry %d for model=%s after %s", state.attempt_number, self.model,
                     type(state.outcome.exception()).__name__ if state.outcome else "?")

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retry.attempts),
            wait=tenacity.wait_exponential(multiplier=self.retry.wait_initial_s, min=self.retry.wait_initial_s,
                                           max=self.retry.wait_max_s),
            retry=tenacity.retry_if_exception(is_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except (AgentError, UserError):
            raise
        except Exception as exc:
            raise classify_error(exc, self.model, self.retry.attempts, self.api_base, self.api_key_env) from None


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _short(exc: BaseException, limit: int = 300) -> str:
    return " ".join(str(exc).split())[:limit]


def is_malformed(exc: BaseException) -> bool:
    chain: BaseException | None = exc
    while chain is not None:
        if isinstance(chain, json.JSONDecodeError):
            return True
        chain = chain.__cause__ or chain.__context__
    return any(marker in str(exc) for marker in MALFORMED_MARKERS)


def is_connection_error(exc: BaseException) -> bool:
    """Nothing listening / connection refused. litellm reports it as a 500 "Connection error." on the
    OpenAI route, so the name, the message and the cause chain are all consulted."""
    chain: BaseException | None = exc
    while chain is not None:
        name = type(chain).__name__
        if "APIConnectionError" in name or "ConnectError" in name or "Connection error" in str(chain):
            return True
        chain = chain.__cause__ or chain.__context__
    return False


def is_retryable(exc: BaseException) -> bool:
    """Allow-list: timeouts and HTTP 429/500/502/503/504. Everything else fails at once."""
    if isinstance(exc, AgentError | UserError):
        return False
    if "Timeout" in type(exc).__name__:
        return True
    return _status(exc) in RETRY_STATUS


def classify_error(exc: Exception, model: str, attempts: int, api_base: str | None = None,
                   api_key_env: str | None = None) -> Exception:
    """Map a provider exception to our hierarchy with a one-line message (never the request headers)."""
    name, status = type(exc).__name__, _status(exc)
    where = f"endpoint {api_base or 'provider default'}, model {model}"
    key = f"${api_key_env}" if api_key_env else "the provider's key variable (or pass --api-key-env)"
    if is_connection_error(exc):
        return InfraError(f"cannot reach {api_base or 'the provider'} for model {model} "
                          f"({attempts} attempts): {_short(exc, 160)}")
    if is_retryable(exc):
        return InfraError(f"model {model}: {name} persisted after {attempts} attempts: {_short(exc)}")
    if status in (401, 403) or "AuthenticationError" in name or "PermissionDenied" in name:
        return UserError(f"the server rejected the API key (HTTP {status or 401})", where, f"check {key}")
    if status == 404 or "NotFoundError" in name:
        return UserError(f"model not found: {_short(exc, 160)}", where,
                         "check the model name against the server's /v1/models (or --api-base)")
    if "LLM Provider NOT provided" in str(exc) or "Provider NOT provided" in str(exc):
        return UserError("unknown provider in the model string", where,
                         "write provider/model (e.g. openai/<served name> for an OpenAI-compatible server)")
    return AgentError(f"model {model} failed: {name}: {_short(exc)}")


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def parse_response(response: Any, model: str) -> tuple[str, str | None, TokenUsage, bool]:
    """(text, reported model, token classes, whether usage was reported). Raises AgentError if malformed."""
    choices = _get(response, "choices")
    if not choices:
        raise AgentError(f"malformed reply from model {model}: no choices in the response")
    message = _get(choices[0], "message")
    text = _get(message, "content")
    if text is not None and not isinstance(text, str):
        raise AgentError(f"malformed reply from model {model}: message content is {type(text).__name__}, not text")
    tokens, usage_reported = usage_tokens(_get(response, "usage"))
    reported = _get(response, "model")
    return text or "", (str(reported) if reported else None), tokens, usage_reported


def _tool_call_dict(call: Any) -> dict[str, Any]:
    function = _get(call, "function")
    return {"id": str(_get(call, "id") or ""), "type": "function",
            "function": {"name": str(_get(function, "name") or ""), "arguments": str(_get(function, "arguments") or "")}}


def message_tool_calls(message: Any) -> list[dict[str, Any]]:
    """The tool calls of a reply message, OpenAI-shaped plain dicts ([] when none)."""
    return [_tool_call_dict(c) for c in _get(message, "tool_calls") or []]


def _merge_tool_call(calls: dict[int, dict[str, Any]], fragment: Any) -> None:
    index = int(_get(fragment, "index") or 0)
    part = _tool_call_dict(fragment)
    if index not in calls:
        calls[index] = part
        return
    call = calls[index]
    call["id"] = call["id"] or part["id"]
    call["function"]["name"] = call["function"]["name"] or part["function"]["name"]
    call["function"]["arguments"] += part["function"]["arguments"]


def usage_tokens(usage: Any) -> tuple[TokenUsage, bool]:
    """An OpenAI-shaped `usage` split into token classes, and whether any usage was reported."""
    prompt = int(_get(usage, "prompt_tokens") or 0)
    completion = int(_get(usage, "completion_tokens") or 0)
    cached = int(_get(_get(usage, "prompt_tokens_details"), "cached_tokens") or 0)
    reasoning = int(_get(_get(usage, "completion_tokens_details"), "reasoning_tokens") or 0)
    tokens = TokenUsage(input=max(prompt - cached, 0), cached_input=min(cached, prompt),
                        output=max(completion - reasoning, 0), reasoning=min(reasoning, completion))
    return tokens, usage is not None and prompt + completion > 0
