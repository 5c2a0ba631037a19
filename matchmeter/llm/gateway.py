"""The model gateway: one metered door between every agent and its model.

An aiohttp server in the harness speaks, each as JSON or server-sent events, the OpenAI chat API
(`POST /v1/chat/completions`), the OpenAI Responses API (`POST /v1/responses`), the Anthropic messages
API (`POST /v1/messages`) and the Gemini API (`POST /v1beta/models/{model}:generateContent` and
`:streamGenerateContent`) on a Unix socket (bind-mounted into sandboxes, reached there through
runner/sandbox/egress_forwarder.py) and, optionally, on a loopback TCP port (the harness-side bash
agent, tests, benchmarks). Two paths to the upstream, metered by the same steps (`GatewaySession.begin`,
`precheck`, `failure_of`, `settle`):
    pass-through   the upstream speaks the agent's protocol (OpenAI chat or Responses to an OpenAI-compatible
                   upstream, Anthropic messages to Anthropic: llm/passthrough.py): the request is forwarded as
                   it is (but for `model` and the key) on the event loop by one pooled aiohttp client, a stream's
                   bytes relayed as they come (llm/gateway_passthrough.py)
    translated     anything else (Gemini, a protocol the upstream does not speak, other providers): the wire turns
                   the request into chat messages and `LMClient` calls litellm in the thread pool; a streamed
                   request is streamed upstream too, each delta written to the agent as it arrives
Either way the usage of the reply (of a stream's final chunk) is metered.

Each execution gets a `GatewaySession`: a random token (what the sandbox holds instead of a provider
key), the upstream it is routed to (the configured model and its `ModelEndpoint`; the provider key is read by
`LMClient` from the host environment on the way out), an `ExecutionMeter` with its budgets, and the
run's spend ledger. A request carrying no known token is answered 401 and reaches no model.

Answers the agent sees when a call does not go through (every one is recorded in the meter):
    402 budget_exceeded / spend_cap_reached   refused before any upstream call; the trial ends on it
    402 agent_deadline                        the task's agent deadline passed (the call in flight is cut
                                              there: `GatewaySession.deadline`, set by the trial)
    502 upstream_error                        the provider refused the request the agent built (a 400)
    503 upstream_unavailable                  the endpoint failed: faults persisted past the client's
                                              retries, unreachable, malformed reply (llm/faults.py)
    500 gateway_misconfigured                 the endpoint rejected the key or does not know the model
    424 (the kind of the first failure)       any later call of a session whose endpoint already failed:
                                              answered without calling the endpoint again
402 and 424 are used because OpenAI and Anthropic SDKs do not retry them (they retry 408/409/429/5xx):
the client's retry loop is the only one, so the server receives as many requests as the error says.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter.errors import InfraError, UserError
from matchmeter.llm.client import import_litellm
from matchmeter.llm.gateway_passthrough import PassThrough, eligible
from matchmeter.llm.gateway_session import (
    ENDPOINT_FAILED as ENDPOINT_FAILED,  # re-exported: callers name it here
)
from matchmeter.llm.gateway_session import TOKEN_PREFIX as TOKEN_PREFIX
from matchmeter.llm.gateway_session import Delta, GatewaySession, Outcome
from matchmeter.llm.gateway_session import Upstream as Upstream
from matchmeter.llm.gateway_wire import AnthropicWire, OpenAIChatWire, Wire
from matchmeter.llm.gateway_wire_gemini import GeminiWire
from matchmeter.llm.gateway_wire_responses import ResponsesWire
from matchmeter.llm.meter import ExecutionBudget, ExecutionMeter, call_meta
from matchmeter.llm.protocols import RunLedger

if TYPE_CHECKING:
    from aiohttp import web


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
        self._passthrough = PassThrough()
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
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else (
            request.headers.get("x-api-key") or request.headers.get("x-goog-api-key")  # Anthropic, Gemini
            or request.query.get("key", ""))  # Gemini clients may pass the key as ?key=
        with self._lock:
            return self._sessions.get(token)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Gateway:
        # The translated path (Gemini, a protocol the upstream does not speak) needs litellm, whose import takes
        # seconds: paid here, once per process, not inside an agent's first call and its SDK's timeout.
        import_litellm()
        ready = threading.Event()
        self._loop = new_loop()
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
            self._loop.run_until_complete(self._passthrough.close())
            self._loop.close()

    async def _start_sites(self, runner: web.AppRunner) -> None:
        from aiohttp import web

        await runner.setup()
        await self._passthrough.open()
        if self.socket_path is not None:
            with_suppressed_unlink(self.socket_path)
            await web.UnixSite(runner, str(self.socket_path)).start()
            self.socket_path.chmod(0o666)
        if self.tcp:
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            # aiohttp exposes the bound port only through the loop's server (asyncio's, or uvloop's: same `sockets`)
            sockets = getattr(site._server, "sockets", None)
            assert sockets, "the TCP site is bound"
            self.port = sockets[0].getsockname()[1]

    # ------------------------------------------------------------------ HTTP

    def _app(self) -> web.Application:
        from aiohttp import web

        chat = partial(self._handle, wire=OpenAIChatWire())
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.add_routes([web.post("/v1/chat/completions", chat), web.post("/chat/completions", chat),
                        web.post("/v1/responses", self._responses), web.post("/responses", self._responses),
                        web.post("/v1/messages", self._messages),
                        web.post("/v1beta/models/{target}", self._gemini), web.post("/v1/models/{target}", self._gemini),
                        web.get("/v1/models", self._models), web.get("/models", self._models)])
        return app

    async def _responses(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, ResponsesWire())  # one per request: it keeps the request's tools

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, AnthropicWire())  # one per request: message_start shows its prompt

    async def _gemini(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        model, _, method = request.match_info["target"].partition(":")
        if method not in ("generateContent", "streamGenerateContent"):
            wire = GeminiWire(model, False)
            return web.json_response(wire.error(f"the matchmeter gateway does not serve :{method}",
                                                "invalid_request_error", 404), status=404)
        return await self._handle(request, GeminiWire(model, method == "streamGenerateContent"))

    async def _handle(self, request: web.Request, wire: Wire) -> web.StreamResponse:
        from aiohttp import web

        session = self._session_for(request)
        if session is None:
            return web.json_response(wire.error("unknown or revoked matchmeter gateway token", "authentication_error",
                                                401), status=401)
        try:
            body = await request.json()
        except ValueError:
            body = None
        try:
            if not isinstance(body, dict):
                raise ValueError("request body must be a JSON object")
            parsed = wire.parse(body)
        except ValueError as exc:
            return web.json_response(wire.error(str(exc), "invalid_request_error", 400), status=400)
        if eligible(session, wire.name):
            return await self._passthrough.handle(request, session, wire, parsed, body)
        loop = asyncio.get_running_loop()
        if not parsed.stream:
            outcome = await loop.run_in_executor(self._pool, session.forward, wire.name, parsed.model,
                                                 parsed.messages, parsed.sampling)
            if outcome.reply is None:
                return web.json_response(wire.error(outcome.message, outcome.kind, outcome.status),
                                         status=outcome.status)
            call = outcome.call
            return web.json_response(wire.reply(outcome.reply.text, call.model_answered or call.model_routed,
                                                outcome.reply.tokens, call_meta(call), outcome.reply.tool_calls))
        return await self._stream(request, session, wire, parsed.model, parsed.messages, parsed.sampling)

    async def _stream(self, request: web.Request, session: GatewaySession, wire: Wire, model: str | None,
                      messages: list[dict[str, Any]], sampling: dict[str, Any]) -> web.StreamResponse:
        """Relay upstream deltas as they come. The HTTP status is chosen at the first delta or at the end,
        so a refusal or an upstream failure before any text is a plain JSON error with its status."""
        from aiohttp import web

        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Delta | Outcome | BaseException] = asyncio.Queue()

        def on_delta(text: str, answered: str | None) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, Delta(text, answered))

        def work() -> None:
            result: Outcome | BaseException
            try:
                result = session.forward(wire.name, model, messages, sampling, on_delta)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the handler
                result = exc
            loop.call_soon_threadsafe(queue.put_nowait, result)

        loop.run_in_executor(self._pool, work)
        encoder, response = wire.encoder(), None
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, Delta):
                if response is None:
                    response = await self._open_stream(request)
                    await _write(response, encoder.start(item.model or session.upstream.model))
                await _write(response, encoder.delta(item.text))
                continue
            outcome, call = item, item.call
            if outcome.reply is None and response is None:
                return web.json_response(wire.error(outcome.message, outcome.kind, outcome.status),
                                         status=outcome.status)
            if response is None:  # a reply with no text at all
                response = await self._open_stream(request)
                await _write(response, encoder.start(call.model_answered or call.model_routed))
            if outcome.reply is None:
                await _write(response, encoder.error(outcome.message, outcome.kind))
            else:
                await _write(response, encoder.finish(call.model_answered or call.model_routed,
                                                      outcome.reply.tokens, call_meta(call), outcome.reply.tool_calls))
            await response.write_eof()
            return response

    @staticmethod
    async def _open_stream(request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        return response

    async def _models(self, request: web.Request) -> web.Response:
        from aiohttp import web

        session = self._session_for(request)
        if session is None:
            return web.json_response(OpenAIChatWire().error("unknown or revoked matchmeter gateway token",
                                                            "authentication_error", 401), status=401)
        return web.json_response({"object": "list", "data": [{"id": session.upstream.model, "object": "model",
                                                              "owned_by": "matchmeter-gateway"}]})


async def _write(response: web.StreamResponse, events: list[bytes]) -> None:
    for event in events:
        await response.write(event)


def new_loop() -> asyncio.AbstractEventLoop:
    """The gateway's event loop: uvloop's where it is installed (a call costs the gateway about a sixth less CPU
    there: benchmarks/gateway.py), else asyncio's. Only this loop: the rest of the process keeps asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def with_suppressed_unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
