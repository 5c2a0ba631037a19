"""The model gateway: one metered door between every agent and its model.

An aiohttp server in the harness speaks the OpenAI chat API (`POST /v1/chat/completions`, JSON or
SSE) and the Anthropic messages API (`POST /v1/messages`, JSON or SSE) on a Unix socket (bind-mounted
into sandboxes, reached there through runner/sandbox/egress_forwarder.py) and, optionally, on a
loopback TCP port (the harness-side bash agent, tests, benchmarks).

Each execution gets a `GatewaySession`: a random token (what the sandbox holds instead of a provider
key), the upstream it is routed to (the configured model and api_base; the provider key is read by
`LMClient` from the host environment on the way out), an `ExecutionMeter` with its budgets, and the
run's spend ledger. A request carrying no known token is answered 401 and reaches no model.

Answers the agent sees when a call does not go through (every one is recorded in the meter):
    402 budget_exceeded / spend_cap_reached   refused before any upstream call; the trial ends on it
    502 upstream_error                        malformed reply or a provider error (after retries)
    503 upstream_unavailable                  retryable faults persisted, or the endpoint is unreachable
402 is used for refusals because OpenAI and Anthropic SDKs do not retry it (they retry 408/409/429/5xx).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, Field

from matchmeter.errors import AgentError, BudgetExceeded, InfraError, SpendCapReached, UserError
from matchmeter.llm import gateway_wire as wire
from matchmeter.llm.meter import ExecutionBudget, ExecutionMeter, GatewayCall, RunLedger
from matchmeter.llm.tokens import count_prompt_tokens
from matchmeter.schema import utcnow

if TYPE_CHECKING:
    from aiohttp import web

    from matchmeter.llm.client import LMClient, LMReply

TOKEN_PREFIX = "mmgw-"


class Upstream(BaseModel):
    """Where one execution's calls go, and how (the LMClient options)."""

    model: str = Field(description="The configured litellm model string.")
    api_base: str | None = Field(None, description="Endpoint URL; None for the provider default.")
    api_key_env: str | None = Field(None, description="Host env var holding the provider key (read per call).")
    salt: str = Field("", description="Cache salt (task, seed, attempt), as the bash agent uses.")
    timeout_s: float = Field(120.0, gt=0)
    retry_attempts: int = Field(4, ge=1)
    retry_wait_s: float = Field(0.5, ge=0)
    use_cache: bool = True
    cache_dir: Path | None = None
    prices: str | None = Field(None, description="A --prices file merged over the shipped price table.")


class Outcome(NamedTuple):
    status: int
    kind: str  # "ok" or the error type shown to the agent
    message: str
    reply: LMReply | None
    call: GatewayCall


ERROR_STATUS: dict[str, int] = {"budget_exceeded": 402, "spend_cap_reached": 402, "upstream_error": 502,
                                "upstream_unavailable": 503, "gateway_misconfigured": 500}


class GatewaySession:
    """One execution at the door: its token, its upstream client, its meter."""

    def __init__(self, execution_id: str, upstream: Upstream, meter: ExecutionMeter, ledger: RunLedger | None) -> None:
        self.execution_id, self.upstream, self.meter = execution_id, upstream, meter
        self.token = TOKEN_PREFIX + secrets.token_urlsafe(24)
        self.client = self._make_client(ledger)

    def _make_client(self, ledger: RunLedger | None) -> LMClient:
        from matchmeter.llm.client import LMClient, RetryPolicy
        from matchmeter.llm.pricing import PriceTable

        up = self.upstream
        return LMClient(up.model, api_base=up.api_base, api_key_env=up.api_key_env, salt=up.salt,
                        price_table=PriceTable.load(overrides=up.prices),
                        spend=ledger, timeout_s=up.timeout_s, use_cache=up.use_cache, cache_dir=up.cache_dir,  # type: ignore[arg-type]
                        retry=RetryPolicy(attempts=up.retry_attempts, wait_initial_s=up.retry_wait_s,
                                          wait_max_s=max(up.retry_wait_s * 8, 0.0)))

    def forward(self, api: str, model_asked: str | None, messages: list[dict[str, Any]], sampling: dict[str, Any],
                stream: bool) -> Outcome:
        """Admit, call upstream, meter. Never raises for a model or budget failure: it becomes the Outcome."""
        started, t0 = utcnow(), time.monotonic()
        call = GatewayCall(index=0, execution_id=self.execution_id, api=api, stream=stream,  # type: ignore[arg-type]
                           model_asked=model_asked, model_routed=self.upstream.model, started_at=started)
        attempts_before = self.client.stats.http_calls
        kind, message, reply = "ok", "", None
        try:
            self.meter.admit(count_prompt_tokens(messages))
            reply = self.client.complete(messages, **sampling)
        except BudgetExceeded as exc:
            kind, message = "budget_exceeded", f"matchmeter gateway refused the call: {exc}"
        except SpendCapReached as exc:
            self.meter.refuse(exc)
            kind, message = "spend_cap_reached", f"matchmeter gateway refused the call: {exc}"
        except AgentError as exc:
            kind, message = "upstream_error", str(exc)
        except InfraError as exc:
            kind, message = "upstream_unavailable", str(exc)
        except UserError as exc:
            kind, message = "gateway_misconfigured", exc.line()
        update: dict[str, Any] = {"latency_s": time.monotonic() - t0,
                                  "upstream_attempts": self.client.stats.http_calls - attempts_before}
        if reply is not None:
            update.update(model_answered=reply.reported_model, tokens=reply.tokens, cost=reply.cost,
                          cache_hit=reply.cache_hit)
        else:
            update.update(status=ERROR_STATUS[kind], error=message, error_kind=kind)
        recorded = self.meter.record(call.model_copy(update=update))
        return Outcome(recorded.status, kind, message, reply, recorded)

    def close(self) -> None:
        self.client.close()


def call_meta(call: GatewayCall) -> dict[str, Any]:
    """The metered view returned to the agent beside the usage (the bash agent reads it)."""
    return {"call_index": call.index, "model_answered": call.model_answered, "cost_usd": call.cost.usd,
            "cost_null_reason": call.cost.null_reason, "cache_hit": call.cache_hit, "latency_s": call.latency_s}


class Gateway:
    """The server. `with Gateway(socket_path=...) as gw: s = gw.open_session(...)`; the loop runs in a thread.

    Args:
        socket_path: Unix socket to listen on (made 0666: the token, not the file mode, is the access check,
            and a container's user differs from ours); keep the path under ~100 bytes (AF_UNIX limit).
        tcp: also listen on 127.0.0.1:<ephemeral port> (`url`).
        ledger: the run's spend ledger (`--spend-cap`), shared by every session.
        workers: threads for upstream calls (one blocking LMClient call each).
    """

    def __init__(self, *, socket_path: Path | None = None, tcp: bool = True, ledger: RunLedger | None = None,
                 workers: int = 32) -> None:
        if socket_path is None and not tcp:
            raise UserError("the gateway needs a Unix socket or TCP", "Gateway()", "pass socket_path or tcp=True")
        self.socket_path, self.tcp, self.ledger = socket_path, tcp, ledger
        self.port: int | None = None
        self._sessions: dict[str, GatewaySession] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mm-gateway")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._startup_error: BaseException | None = None

    # ------------------------------------------------------------------ sessions

    @property
    def url(self) -> str:
        """Loopback TCP base URL (no /v1): OpenAI clients append /v1, Anthropic clients use it as is."""
        if self.port is None:
            raise RuntimeError("the gateway has no TCP listener (tcp=False or not started)")
        return f"http://127.0.0.1:{self.port}"

    def open_session(self, execution_id: str, upstream: Upstream, budget: ExecutionBudget | None = None) -> GatewaySession:
        session = GatewaySession(execution_id, upstream, ExecutionMeter(execution_id, upstream.model, budget),
                                 self.ledger)
        with self._lock:
            self._sessions[session.token] = session
        return session

    def close_session(self, session: GatewaySession) -> ExecutionMeter:
        """Revoke the token (later requests get 401) and return the session's meter."""
        with self._lock:
            self._sessions.pop(session.token, None)
        session.close()
        return session.meter

    def _session_for(self, request: web.Request) -> GatewaySession | None:
        auth = request.headers.get("Authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else request.headers.get("x-api-key", "")
        with self._lock:
            return self._sessions.get(token)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Gateway:
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, args=(ready,), name="matchmeter-gateway", daemon=True)
        self._thread.start()
        ready.wait(30)
        if self._startup_error is not None:
            raise InfraError(f"the model gateway did not start: {self._startup_error}")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)
        self._pool.shutdown(wait=False, cancel_futures=True)
        for session in list(self._sessions.values()):
            session.close()
        if self.socket_path is not None:
            with_suppressed_unlink(self.socket_path)

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self, ready: threading.Event) -> None:
        from aiohttp import web

        assert self._loop is not None
        asyncio.set_event_loop(self._loop)
        runner = web.AppRunner(self._app(), access_log=None)  # no access log: headers carry tokens
        try:
            self._loop.run_until_complete(self._start_sites(runner))
        except BaseException as exc:  # noqa: BLE001 - reported to start() in the caller's thread
            self._startup_error = exc
            ready.set()
            return
        ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.run_until_complete(runner.cleanup())
            self._loop.close()

    async def _start_sites(self, runner: web.AppRunner) -> None:
        from aiohttp import web

        await runner.setup()
        if self.socket_path is not None:
            with_suppressed_unlink(self.socket_path)
            await web.UnixSite(runner, str(self.socket_path)).start()
            self.socket_path.chmod(0o666)
        if self.tcp:
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            server = site._server  # aiohttp exposes the bound port only through the asyncio server
            self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    # ------------------------------------------------------------------ HTTP

    def _app(self) -> web.Application:
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.add_routes([web.post("/v1/chat/completions", self._openai), web.post("/chat/completions", self._openai),
                        web.post("/v1/messages", self._anthropic), web.get("/v1/models", self._models),
                        web.get("/models", self._models)])
        return app

    async def _read(self, request: web.Request, anthropic: bool) -> tuple[GatewaySession, dict[str, Any]] | web.Response:
        from aiohttp import web

        error = wire.anthropic_error if anthropic else wire.openai_error
        session = self._session_for(request)
        if session is None:
            return web.json_response(error("unknown or revoked matchmeter gateway token", "authentication_error"),
                                     status=401)
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return web.json_response(error("request body must be a JSON object with a `messages` list",
                                           "invalid_request_error"), status=400)
        return session, body

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        read = await self._read(request, anthropic=False)
        if not isinstance(read, tuple):
            return read
        session, body = read
        stream = bool(body.get("stream"))
        outcome = await self._forward(session, "openai", body.get("model"), body["messages"],
                                      wire.openai_sampling(body), stream)
        return await self._answer(request, outcome, stream, anthropic=False)

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        read = await self._read(request, anthropic=True)
        if not isinstance(read, tuple):
            return read
        session, body = read
        try:
            messages, sampling = wire.anthropic_to_openai(body)
        except ValueError as exc:
            return web.json_response(wire.anthropic_error(str(exc), "invalid_request_error"), status=400)
        stream = bool(body.get("stream"))
        outcome = await self._forward(session, "anthropic", body.get("model"), messages, sampling, stream)
        return await self._answer(request, outcome, stream, anthropic=True)

    async def _forward(self, session: GatewaySession, api: str, model: Any, messages: list[dict[str, Any]],
                       sampling: dict[str, Any], stream: bool) -> Outcome:
        loop = asyncio.get_running_loop()
        asked = str(model) if model is not None else None
        return await loop.run_in_executor(self._pool, session.forward, api, asked, messages, sampling, stream)

    async def _answer(self, request: web.Request, outcome: Outcome, stream: bool, anthropic: bool) -> web.StreamResponse:
        from aiohttp import web

        if outcome.reply is None:
            error = wire.anthropic_error if anthropic else wire.openai_error
            return web.json_response(error(outcome.message, outcome.kind), status=outcome.status)
        reply, call = outcome.reply, outcome.call
        model, meta = call.model_answered or call.model_routed, call_meta(call)
        if not stream:
            build = wire.anthropic_reply if anthropic else wire.openai_reply
            return web.json_response(build(reply.text, model, reply.tokens, meta))
        events = (wire.anthropic_stream if anthropic else wire.openai_stream)(reply.text, model, reply.tokens, meta)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        for event in events:
            await response.write(event)
        await response.write_eof()
        return response

    async def _models(self, request: web.Request) -> web.Response:
        from aiohttp import web

        session = self._session_for(request)
        if session is None:
            return web.json_response(wire.openai_error("unknown or revoked matchmeter gateway token",
                                                       "authentication_error"), status=401)
        return web.json_response({"object": "list", "data": [{"id": session.upstream.model, "object": "model",
                                                              "owned_by": "matchmeter-gateway"}]})


def with_suppressed_unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
