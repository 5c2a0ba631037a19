"""The one LM client: litellm behind `LMClient.complete`, with cache, retries, usage, cost and a spend cap.

Flow of `complete(messages, **sampling)`: look the request up in the cache (a hit spends nothing new
and is counted in `stats.hits`); otherwise check the spend ledger (SpendCapReached before any HTTP
call), call litellm through the one retry loop of llm/faults.py (429, timeouts, 5xx, malformed), split
`usage` into token classes, price them with the dated table, store the reply, charge the ledger.

Cache hits and cost: a hit's `LMReply.cost` is the *priced original usage* (the same number the
uncached call reported) so rewards, budgets and cost metrics of an execution do not depend on cache
state; `LMReply.new_spend_usd` is 0.0 on a hit and only new spend reaches the ledger. Reports that
want money actually billed sum `cost` over calls with `cache_hit == False`.

Errors (llm/faults.py): the endpoint's faults — a malformed reply (body not JSON, no choices), timeouts,
429/5xx or a refused connection that persist past the last attempt, a stream cut short — → EndpointError
(infra_error); a rejected key (401/403), an unknown model (404) or an unknown provider → UserError
naming the endpoint (the user must fix it, it is never the model's fault); any other provider error
(a 400: the request the agent built) → AgentError. A `deadline` bounds every attempt and the waits. API keys are read from the named
environment variable at call time and never logged, cached or stored. The cache key includes the
endpoint and the served model identity (llm/cache.py); `preflight` (below) checks each endpoint once.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from matchmeter.errors import AgentTimeout, EndpointError, UserError
from matchmeter.llm.cache import ResponseCache, cache_key
from matchmeter.llm.faults import Backoff, MalformedReply, Where, call_with_retries, short
from matchmeter.llm.pricing import PriceTable
from matchmeter.llm.protocols import LMReply, RunLedger
from matchmeter.llm.sim import SIM_BEHAVIOUR_VERSION
from matchmeter.llm.spend import SpendLedger
from matchmeter.llm.usage import field as _get
from matchmeter.llm.usage import read_openai_usage
from matchmeter.schema import Cost, TokenUsage, utcnow

log = logging.getLogger("matchmeter.llm")

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

    def complete(self, messages: list[dict[str, Any]], *, timeout_s: float | None = None,
                 deadline: float | None = None, **sampling: Any) -> LMReply:
        """One chat completion, cut at `deadline` (time.monotonic()) if given. Raises SpendCapReached,
        AgentError, EndpointError, AgentTimeout, UserError (missing key)."""
        key, hit = self._cached(messages, sampling)
        if hit is not None:
            return hit
        self.stats.misses += 1
        self.spend.check()
        started, t0 = utcnow(), time.monotonic()
        response = self._call_with_retries(messages, sampling, timeout_s or self.timeout_s, deadline)
        text, reported, tokens, usage_reported = parse_response(response, self.model)
        tool_calls = message_tool_calls(_get(_get(response, "choices")[0], "message"))
        cost = self._price(tokens, usage_reported)
        self.spend.charge(cost.usd)
        self.store(key, text, reported, tokens, usage_reported, tool_calls)
        log.debug("lm call model=%s tokens=%d cost=%s", self.model, tokens.total, cost.usd)
        return LMReply(text=text, model=self.model, reported_model=reported, tokens=tokens, cost=cost,
                       new_spend_usd=cost.usd, cache_hit=False, latency_s=time.monotonic() - t0, started_at=started,
                       tool_calls=tool_calls)

    def _cached(self, messages: list[dict[str, Any]], sampling: dict[str, Any]) -> tuple[str, LMReply | None]:
        """The request's cache key, and the stored reply when the cache holds one (free: no spend, no call)."""
        key = self.cache_key_for(messages, sampling)
        return key, self.cached_reply(key)

    def cache_key_for(self, messages: list[dict[str, Any]], sampling: dict[str, Any]) -> str:
        return cache_key(self.model, messages, sampling, self.salt + self._behaviour_salt(), self._cache_endpoint(),
                         self.served)

    def cached_reply(self, key: str) -> LMReply | None:
        """The stored reply under `key` (counted in `stats.hits`), or None (also when the cache is off)."""
        record = self.cache.get(key) if self.cache is not None else None
        if record is None:
            return None
        self.stats.hits += 1
        tokens = TokenUsage(**record["tokens"])
        log.debug("lm cache hit model=%s key=%s", self.model, key[:12])
        return LMReply(text=record["text"], model=self.model, reported_model=record.get("reported_model"),
                       tokens=tokens, cost=self._price(tokens, record.get("usage_reported", True)),
                       new_spend_usd=0.0, cache_hit=True, tool_calls=record.get("tool_calls") or [])

    def store(self, key: str, text: str, reported: str | None, tokens: TokenUsage, usage_reported: bool,
              tool_calls: list[dict[str, Any]]) -> None:
        """Keep a successful reply (no-op with the cache off)."""
        if self.cache is not None:
            self.cache.put(key, {"text": text, "reported_model": reported, "tokens": tokens.model_dump(),
                                 "usage_reported": usage_reported, **({"tool_calls": tool_calls} if tool_calls else {})})

    def price(self, tokens: TokenUsage, usage_reported: bool) -> Cost:
        """The cost of a reply's usage (unknown, never 0, when the endpoint reported none)."""
        return self._price(tokens, usage_reported)

    def stream(self, messages: list[dict[str, Any]], on_delta: Callable[[str, str | None], None], *,
               timeout_s: float | None = None, deadline: float | None = None, **sampling: Any) -> LMReply:
        """`complete`, streamed: each text delta goes to `on_delta(text, reported_model)` as the upstream sends it.

        Same cache key, spend cap and pricing as `complete` (a streamed and a plain request for the same
        conversation share one cache entry); a hit is delivered as one delta. Usage is read from the final
        chunk (`stream_options.include_usage` is asked upstream). Retries cover opening the stream only:
        once a delta went out, a broken stream raises EndpointError and nothing is cached. Tool calls are
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
                                         timeout_s or self.timeout_s, deadline)
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
                if deadline is not None and time.monotonic() >= deadline:  # a trickle resets every read timeout
                    raise AgentTimeout(f"the task's agent deadline passed while model {self.model} at "
                                       f"{self.api_base or 'the provider default endpoint'} was streaming its reply")
        except AgentTimeout:
            raise
        except Exception as exc:
            raise EndpointError(f"model {self.model} at {self.api_base or 'the provider default endpoint'}: the "
                                f"stream broke off after {len(parts)} deltas: {type(exc).__name__}: {short(exc)}") from None
        text = "".join(parts)
        # litellm stamps its chunks with the requested model; the upstream's own name is kept aside.
        reported = getattr(chunks, "_provider_response_model", None) or reported
        tokens, usage_reported = read_openai_usage(usage)
        tool_calls = [calls[i] for i in sorted(calls)]
        cost = self._price(tokens, usage_reported)
        self.spend.charge(cost.usd)
        self.store(key, text, reported, tokens, usage_reported, tool_calls)
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

    def _call_with_retries(self, messages: list[dict[str, Any]], sampling: dict[str, Any], timeout_s: float,
                           deadline: float | None = None) -> Any:
        """One request, retried by llm/faults.py (the only retry layer: litellm's and the SDK's are off)."""
        api_key = self._api_key()  # a missing key variable fails before litellm's import (seconds of CPU)
        litellm = import_litellm()
        kwargs: dict[str, Any] = {"model": litellm_model_name(self.model, self.api_base), "messages": messages,
                                  "num_retries": 0, "max_retries": 0, **sampling}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if api_key:
            kwargs["api_key"] = api_key
        streamed = bool(sampling.get("stream"))

        def attempt(budget_s: float) -> Any:
            response = litellm.completion(**kwargs, timeout=budget_s)
            if not streamed and not _get(response, "choices"):
                raise MalformedReply("no choices in the response")
            return response

        sent = [0]

        def counted() -> None:
            self.stats.retries += sent[0] > 0
            self.stats.http_calls += 1
            sent[0] += 1

        return call_with_retries(attempt, Where(self.model, self.api_base, self.api_key_env),
                                 Backoff(self.retry.attempts, self.retry.wait_initial_s, self.retry.wait_max_s),
                                 timeout_s, deadline, counted)


def parse_response(response: Any, model: str) -> tuple[str, str | None, TokenUsage, bool]:
    """(text, reported model, token classes, whether usage was reported). Raises EndpointError if malformed."""
    choices = _get(response, "choices")
    if not choices:
        raise EndpointError(f"malformed reply from model {model}: no choices in the response")
    message = _get(choices[0], "message")
    text = _get(message, "content")
    if text is not None and not isinstance(text, str):
        raise EndpointError(f"malformed reply from model {model}: message content is {type(text).__name__}, not text")
    tokens, usage_reported = read_openai_usage(_get(response, "usage"))
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
