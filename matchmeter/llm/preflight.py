"""Preflight: one cheap, uncached call per distinct (model, endpoint, key variable) before anything runs.

A missing key variable, nothing listening, a rejected key, a model name the server does not know, an
unknown provider or a server that does not speak the OpenAI protocol each fail here with one line
naming the endpoint and what to do, instead of failing every execution of a run one by one. The call
asks for one output token; its reply is never cached (a cached reply would hide a dead server). The
model the server reports serving is recorded in the response cache as that name's served identity
(llm/cache.py), so the cache never mixes replies of two different served models.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from matchmeter.errors import AgentError, InfraError, UserError
from matchmeter.llm.cache import ResponseCache
from matchmeter.llm.client import LMClient, RetryPolicy
from matchmeter.llm.faults import is_malformed

PING = [{"role": "user", "content": "Reply with the single word OK."}]


class Endpoint(NamedTuple):
    """Where one model is called: the model string, its base URL (None = provider default), its key variable."""

    model: str
    api_base: str | None = None
    api_key_env: str | None = None

    def label(self) -> str:
        return f"model {self.model} at {self.api_base or 'the provider default endpoint'}"


class PreflightResult(NamedTuple):
    endpoint: Endpoint
    served: str | None  # the model the server says answered (None when it reports none)


def preflight_endpoints(endpoints: Iterable[Endpoint], *, cache_dir: Path | None = None, use_cache: bool = True,
                        timeout_s: float = 30.0) -> list[PreflightResult]:
    """Ping each distinct endpoint once (sim/ models are skipped: the built-in stub serves them).

    Raises:
        UserError: the first endpoint that cannot be used, as `what (where): fix`.
    """
    results = []
    for endpoint in dict.fromkeys(e for e in endpoints if not e.model.startswith("sim/")):
        client = LMClient(endpoint.model, api_base=endpoint.api_base, api_key_env=endpoint.api_key_env,
                          use_cache=False, timeout_s=timeout_s,
                          retry=RetryPolicy(attempts=2, wait_initial_s=0.2, wait_max_s=0.5))
        try:
            reply = client.complete(PING, max_tokens=1)
        except UserError as exc:
            raise UserError(f"preflight failed: {exc.what}", exc.where or endpoint.label(), exc.fix) from None
        except InfraError as exc:
            if is_malformed(exc):
                raise UserError(f"preflight failed: the server's reply is not an OpenAI chat completion: {exc}",
                                endpoint.label(), "point --api-base at an OpenAI-compatible /v1 endpoint") from None
            raise UserError(f"preflight failed: {exc}", endpoint.label(),
                            "start the server, or fix --api-base (it usually ends in /v1)") from None
        except AgentError as exc:
            raise UserError(f"preflight failed: the server's reply is not an OpenAI chat completion: {exc}",
                            endpoint.label(), "point --api-base at an OpenAI-compatible /v1 endpoint") from None
        if use_cache and reply.reported_model:
            cache = ResponseCache(cache_dir)
            try:
                cache.record_served(endpoint.api_base, endpoint.model, reply.reported_model)
            finally:
                cache.close()
        results.append(PreflightResult(endpoint, reply.reported_model))
    return results
