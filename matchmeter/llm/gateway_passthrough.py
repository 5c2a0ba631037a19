"""Gateway pass-through, the transport side: forward a request on the gateway's event loop, meter its reply.

`PassThrough` holds one pooled aiohttp client for every session (keep-alive connections to each upstream)
and runs on the gateway's loop: no litellm, no thread per call. For a request whose upstream speaks the
agent's protocol (llm/passthrough.py `speaks`) it does what `GatewaySession.forward` does, step for step,
with the same helpers so both paths meter alike:
    precheck (admission, a failed endpoint's latch, the deadline) → cache lookup (a hit is served in the
    agent's protocol as today) → the run's spend cap → the request, retried by llm/faults.py's rules
    (`acall_with_retries`: same classification, same messages) → usage, price, spend charge, cache record
    → `settle` (the meter's record; a failure latches the endpoint).
A plain reply is the upstream's JSON with the gateway's `matchmeter` block added. A streamed reply's bytes are
relayed as they arrive, unchanged; the events are read on the way for the usage of the final chunk(s). The
HTTP status is chosen at the first byte: a failure before it is a plain JSON error with its status, a failure
after it (a cut stream, the deadline) an error event in the agent's protocol. Each read is bounded by the
per-call timeout and the session's deadline, so a hung or trickling upstream is cut there.
Only the cache write, and a missing stream usage (counted with litellm's tokenizer, as today), leave the loop.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any, NamedTuple

from matchmeter.errors import AgentTimeout, EndpointError, MatchmeterError
from matchmeter.llm.faults import (
    APIConnectionError,
    Backoff,
    Timeout,
    Where,
    acall_with_retries,
    status_error,
)
from matchmeter.llm.meter import call_meta
from matchmeter.llm.passthrough import (
    ReplyReader,
    cache_extras,
    estimate_stream_usage,
    route,
    speaks,
    upstream_body,
    upstream_model,
)
from matchmeter.llm.protocols import LMReply
from matchmeter.schema import utcnow

if TYPE_CHECKING:
    import aiohttp
    from aiohttp import web

    from matchmeter.llm.gateway_session import GatewaySession, Outcome
    from matchmeter.llm.gateway_wire import Wire, WireRequest

ERROR_BODY_LIMIT = 64 * 1024


class Answer(NamedTuple):
    """An attempt that got a 200: the open response, the attempt's time budget (a stream's read timeout), and
    for a plain reply its reader, parsed body and bytes (read within the attempt, so a malformed one is retried)."""

    response: aiohttp.ClientResponse
    budget_s: float
    reader: ReplyReader | None
    body: dict[str, Any] | None
    raw: bytes = b""


def with_meta(raw: bytes, body: dict[str, Any], meta: dict[str, Any]) -> bytes:
    """The upstream's plain reply with the gateway's `matchmeter` block as its last member: its own bytes with the
    block spliced in before the closing brace (not decoded and encoded again: a large reply costs the loop nothing
    more), or, where that would not be plainly right (the reply has a `matchmeter` member already, is empty or is
    not UTF-8 braces), the parsed body encoded with the block set."""
    head, end = raw.lstrip()[:1], raw.rstrip()
    if head != b"{" or end[-1:] != b"}" or not body or "matchmeter" in body:
        return json.dumps({**body, "matchmeter": meta}).encode()
    return end[:-1] + b', "matchmeter": ' + json.dumps(meta).encode() + b"}"


def eligible(session: GatewaySession, api: str) -> bool:
    up = session.upstream
    return up.passthrough and api in speaks(up.model, up.endpoint.api_base, up.upstream_responses)


class EnvRoute(NamedTuple):
    """What the environment says about reaching one origin: the proxy (HTTP(S)_PROXY, NO_PROXY) with its
    credentials, and the origin's $NETRC / ~/.netrc login."""

    proxy: Any  # yarl.URL | None
    proxy_auth: aiohttp.BasicAuth | None
    netrc_auth: aiohttp.BasicAuth | None


def env_route(url: str) -> EnvRoute:
    """The environment's route to `url`'s origin, read as aiohttp's trust_env reads it (blocking: files)."""
    from aiohttp.helpers import basicauth_from_netrc, get_env_proxy_for_url, netrc_from_env
    from yarl import URL

    target = URL(url)
    try:
        proxy, proxy_auth = get_env_proxy_for_url(target)
    except LookupError:  # no proxy for this scheme, or NO_PROXY names the host
        proxy, proxy_auth = None, None
    try:
        netrc_auth = basicauth_from_netrc(netrc_from_env(), target.host) if target.host else None
    except LookupError:
        netrc_auth = None
    return EnvRoute(proxy, proxy_auth, netrc_auth)


class PassThrough:
    """The pooled upstream client (open/close on the gateway's loop) and the pass-through handler."""

    def __init__(self) -> None:
        self.http: aiohttp.ClientSession | None = None
        self.routes: dict[str, EnvRoute] = {}

    async def open(self) -> None:
        import aiohttp

        # No trust_env: aiohttp would then read the proxy variables and the netrc file in two thread hops on every
        # request; route_for reads them once per origin (as litellm's httpx client reads them once at its start).
        # No cookie jar: the client is shared by every session, and a cookie an upstream set for one execution
        # must not ride along on another's calls.
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
                                          cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False,
                                          skip_auto_headers=("User-Agent",))

    async def route_for(self, url: str) -> EnvRoute:
        """The environment's route to the url's origin: read off the loop the first time, then kept."""
        from yarl import URL

        origin = str(URL(url).origin())
        route = self.routes.get(origin)
        if route is None:
            route = self.routes[origin] = await asyncio.to_thread(env_route, url)
        return route

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()

    async def handle(self, request: web.Request, session: GatewaySession, wire: Wire, parsed: WireRequest,
                     body: dict[str, Any]) -> web.StreamResponse:
        call, t0 = session.begin(wire.name, parsed.model, parsed.stream)
        client, attempts = session.client, [0]
        try:
            failure = session.precheck(parsed.messages)
            if failure is not None:
                return await answer(request, wire, session, session.settle(call, t0, None, failure, 0), parsed.stream)
            key = client.cache_key_for(parsed.messages, {**parsed.sampling, **cache_extras(
                wire.name, body, set(parsed.sampling) | {"messages", "max_completion_tokens"})}) \
                if client.cache is not None else None
            hit = client.cached_reply(key) if key is not None else None
            if hit is not None:
                return await answer(request, wire, session, session.settle(call, t0, hit, None, 0), parsed.stream)
            client.stats.misses += 1
            client.spend.check()
            end = session.upstream.endpoint
            target = route(wire.name, session.upstream.model, end.api_base, end.api_key_env, request.headers)
            payload = upstream_body(wire.name, body, target.model)
            where = Where(session.upstream.model, end.api_base, end.api_key_env)
            backoff = Backoff(end.retry_attempts, end.retry_wait_s, max(end.retry_wait_s * 8, 0.0))

            def counted() -> None:
                client.stats.retries += attempts[0] > 0
                client.stats.http_calls += 1
                attempts[0] += 1

            async def attempt(budget_s: float) -> Answer:
                return await self._post(target.url, target.headers, payload, budget_s, wire.name, parsed.stream)

            answered: Answer = await acall_with_retries(attempt, where, backoff, end.timeout_s, session.deadline,
                                                        counted)
        except MatchmeterError as exc:
            outcome = session.settle(call, t0, None, session.failure_of(exc), attempts[0])
            return await answer(request, wire, session, outcome, parsed.stream)
        if answered.reader is not None:
            return await self._plain(answered, session, call, t0, key, attempts[0])
        return await self._relay(request, answered, where, session, wire, parsed, call, t0, key, attempts[0])

    async def _post(self, url: str, headers: dict[str, str], payload: bytes, budget_s: float, api: str,
                    stream: bool) -> Answer:
        """One attempt: the upstream's 200 response (a plain one read and checked), else the exception the
        retry rules classify."""
        import aiohttp

        assert self.http is not None, "PassThrough.open() runs at the gateway's start"
        env = await self.route_for(url)
        # a netrc login only where the request carries no credentials of its own (aiohttp refuses both at once)
        auth = None if any(k.lower() == "authorization" for k in headers) else env.netrc_auth
        try:
            response = await self.http.post(url, data=payload, headers=headers, allow_redirects=False, auth=auth,
                                            proxy=env.proxy, proxy_auth=env.proxy_auth,
                                            timeout=aiohttp.ClientTimeout(total=None, sock_connect=budget_s,
                                                                          sock_read=budget_s))
            if response.status != 200:
                text = (await response.content.read(ERROR_BODY_LIMIT)).decode("utf-8", "replace")
                response.release()
                raise status_error(response.status, text)
            if stream:
                return Answer(response, budget_s, None, None)
            reader, raw = ReplyReader(api), await response.read()
            return Answer(response, budget_s, reader, reader.read_json(raw), raw)
        except TimeoutError:
            raise Timeout(f"no answer within {budget_s:.1f}s") from None
        except aiohttp.ClientConnectionError as exc:
            raise APIConnectionError(f"Connection error. {type(exc).__name__}: {exc}") from None

    def _reply(self, session: GatewaySession, reader: ReplyReader, t0: float) -> tuple[LMReply, bool]:
        """The metered reply (priced, charged to the run's spend) and whether the upstream reported usage."""
        tokens, reported = reader.tokens()
        cost = session.client.price(tokens, reported)
        session.client.spend.charge(cost.usd)
        # model_construct: every field is already a checked value, and validation is a cost paid on the loop
        return LMReply.model_construct(text="".join(reader.text), model=session.upstream.model,
                                       reported_model=reader.model, tokens=tokens, cost=cost, new_spend_usd=cost.usd,
                                       cache_hit=False, latency_s=time.monotonic() - t0, started_at=utcnow(),
                                       tool_calls=reader.tool_calls), reported

    async def _store(self, session: GatewaySession, key: str | None, reply: LMReply, reported: bool) -> None:
        if key is not None:
            await asyncio.get_running_loop().run_in_executor(
                None, session.client.store, key, reply.text, reply.reported_model, reply.tokens, reported,
                reply.tool_calls)

    async def _plain(self, answered: Answer, session: GatewaySession, call: Any, t0: float, key: str | None,
                     attempts: int) -> web.StreamResponse:
        from aiohttp import web

        reader, body = answered.reader, answered.body
        assert reader is not None
        assert body is not None
        reply, reported = self._reply(session, reader, t0)
        await self._store(session, key, reply, reported)
        outcome = session.settle(call, t0, reply, None, attempts)
        return web.Response(body=with_meta(answered.raw, body, call_meta(outcome.call)), content_type="application/json")

    async def _relay(self, request: web.Request, answered: Answer, where: Where, session: GatewaySession, wire: Wire,
                     parsed: WireRequest, call: Any, t0: float, key: str | None, attempts: int) -> web.StreamResponse:
        from aiohttp import web

        upstream, budget_s = answered.response, answered.budget_s
        reader, response, agent_gone = ReplyReader(wire.name), None, False
        held: list[bytes] = []
        failure: tuple[str, str] | None = None
        try:
            while True:
                chunk = await _read(upstream, budget_s, session.deadline, where)
                if not chunk:
                    break
                for event in reader.feed(chunk):
                    if reader.done:  # the final event waits for the meter: an agent that has it may close the session
                        held.append(event)
                    elif not agent_gone:  # else keep reading: what the upstream still sends is metered all the same
                        try:
                            response = response or await _open_stream(request)
                            await response.write(event)
                        except (ConnectionError, RuntimeError):
                            agent_gone = True
            held += reader.finish()
            if reader.broken is not None:
                raise EndpointError(f"{where}: the stream broke off after {len(reader.text)} deltas: {reader.broken}")
        except MatchmeterError as exc:
            failure = session.failure_of(exc)
        except Exception as exc:  # noqa: BLE001 - a dropped connection mid-stream is the endpoint's fault
            failure = session.failure_of(EndpointError(
                f"{where}: the stream broke off after {len(reader.text)} deltas: {type(exc).__name__}: {exc}"))
        finally:
            upstream.release()
        reply = None
        if failure is None:
            if not reader.tokens()[1] and wire.name != "anthropic":  # litellm counted it: so do we
                reader.usage = await asyncio.get_running_loop().run_in_executor(
                    None, estimate_stream_usage, route_model(session), parsed.messages, "".join(reader.text))
                reader.usage = _as_api_usage(wire.name, reader.usage)
            reply, reported = self._reply(session, reader, t0)
            await self._store(session, key, reply, reported)
        outcome = session.settle(call, t0, reply, failure, attempts)
        if response is None and (failure is not None or not held):
            return await answer(request, wire, session, outcome, True)
        try:
            if not agent_gone:
                response = response or await _open_stream(request)
                await _write(response, held if failure is None else wire.encoder().error(outcome.message, outcome.kind))
                await response.write_eof()
        except (ConnectionError, RuntimeError):
            pass  # the agent left; the call is metered
        return response if response is not None else web.Response(status=499)  # nobody reads it: the agent left


def route_model(session: GatewaySession) -> str:
    return upstream_model(session.upstream.model)


def _as_api_usage(api: str, usage: dict[str, Any]) -> dict[str, Any]:
    if api == "responses":
        return {"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]}
    return usage


async def _read(upstream: aiohttp.ClientResponse, read_s: float, deadline: float | None, where: Where) -> bytes:
    """The next bytes of the stream (b"" at its end), within the read timeout and the session's deadline."""
    wait = read_s if deadline is None else min(read_s, deadline - time.monotonic())
    if wait <= 0:
        raise AgentTimeout(f"the task's agent deadline passed while {where} was streaming its reply")
    try:
        async with asyncio.timeout(wait):
            return await upstream.content.readany()
    except TimeoutError:
        if deadline is not None and time.monotonic() >= deadline - 0.01:
            raise AgentTimeout(f"the task's agent deadline passed while {where} was streaming its reply") from None
        raise EndpointError(f"{where}: the stream stalled: nothing for {read_s:.0f}s") from None


async def _open_stream(request: web.Request) -> web.StreamResponse:
    from aiohttp import web

    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    return response


async def _write(response: web.StreamResponse, events: list[bytes]) -> None:
    for event in events:
        await response.write(event)


async def answer(request: web.Request, wire: Wire, session: GatewaySession, outcome: Outcome,
                 stream: bool) -> web.StreamResponse:
    """A settled call the gateway answers itself, in the agent's protocol: a refusal or failure as a JSON error
    with its status, a cache hit as a reply (streamed: one delta), exactly as the translated path does."""
    from aiohttp import web

    call, reply = outcome.call, outcome.reply
    if reply is None:
        return web.json_response(wire.error(outcome.message, outcome.kind, outcome.status), status=outcome.status)
    model = call.model_answered or call.model_routed
    if not stream:
        return web.json_response(wire.reply(reply.text, model, reply.tokens, call_meta(call), reply.tool_calls))
    encoder, response = wire.encoder(), await _open_stream(request)
    await _write(response, encoder.start(reply.reported_model or session.upstream.model))
    if reply.text:
        await _write(response, encoder.delta(reply.text))
    await _write(response, encoder.finish(model, reply.tokens, call_meta(call), reply.tool_calls))
    await response.write_eof()
    return response

