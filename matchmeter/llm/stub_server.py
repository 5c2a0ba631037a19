"""Loopback OpenAI-compatible stub server: scripted replies, real usage numbers, injectable faults.

Tests and the demo talk to it over real HTTP, so the client's request, retry, usage and cost paths are
the ones real providers exercise. Endpoints (on 127.0.0.1, port 0 = ephemeral):

    POST /v1/chat/completions                      replies from the script (JSON, or SSE when stream=true)
    POST /sim/<task_id>/<seed>/v1/chat/completions  `sim/<persona>` models acting on that task (llm/sim.py)
    GET  /v1/models                                 the models seen so far plus the sim personas
    GET  /stats                                     counters (also `StubServer.stats`)

A script is a list of replies consumed in order (a JSON or YAML file, or a Python list) or a callable
`request_json -> str | StubReply`. A reply may carry a fault instead of text: "429", "500", "503"
(HTTP errors), "timeout" (sleep past the client's timeout, then answer), "malformed" (a 200 whose body
is not JSON), "no_choices" (valid JSON without choices) or "stream_cut" (a streamed reply whose
connection is closed after its first content chunk; a plain request is answered normally). Usage comes from llm/tokens.py. Headers are
never stored, so an Authorization header cannot leak into stats or logs.

A streamed reply (`stream: true`) is written chunk by chunk (chunked transfer encoding, flushed each
time), with `chunk_delay_s` between chunks; a reply with `hold: true` stops after its first content
chunk until the test sets `StubServer.stream_gate`, so a test can see what reached the client while
the upstream is still mid-stream. As with OpenAI, the usage chunk is sent only when the request asks
for it (`stream_options.include_usage`).

Run as a process for CLIs inside sandboxes:
    python -m matchmeter.llm.stub_server --port 0 --script replies.json --suite DIR --port-file F
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from matchmeter.atomicfile import atomic_write_text
from matchmeter.llm.sim import PERSONAS, SimResponder
from matchmeter.llm.stub_replies import StubReply
from matchmeter.llm.tokens import count_message_tokens, count_prompt_tokens, count_text_tokens

SIM_HEADER = "X-Matchmeter-Simulated"


Responder = Callable[[dict[str, Any]], "str | StubReply | None"]  # None: the script is used up (HTTP 400)


class ScriptedReplies:
    """Replies consumed in order (thread-safe); past the end every request gets HTTP 400."""

    def __init__(self, replies: Sequence[str | dict[str, Any] | StubReply]) -> None:
        self.replies = [StubReply.coerce(r) for r in replies]
        self._next = 0
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> StubReply | None:
        with self._lock:
            if self._next >= len(self.replies):
                return None
            self._next += 1
            return self.replies[self._next - 1]


def load_script(path: Path) -> ScriptedReplies:
    """Read a reply list from a .json, .yaml or .yml file."""
    text = Path(path).read_text(encoding="utf-8")
    if Path(path).suffix in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if isinstance(data, dict):
        data = data.get("replies", [])
    return ScriptedReplies(data)


@dataclass
class StubStats:
    """Counters. `http_calls` counts chat-completion requests, faulted ones included; `usages` lists the
    usage of every answered request in order (not the late answer of a `timeout` fault); `authorized_calls` counts requests that carried an
    Authorization header (its value is never kept); `streams_started`/`streams_finished` count streamed
    replies whose first chunk / last byte was written."""

    http_calls: int = 0
    requests: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    models: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usages: list[dict[str, Any]] = field(default_factory=list)
    authorized_calls: int = 0
    streams_started: int = 0
    streams_finished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        with self.lock:
            return {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self) if f.name != "lock"}


def build_usage(messages: list[dict[str, Any]], reply: StubReply) -> dict[str, Any]:
    """OpenAI-shaped usage: prompt tokens include cached ones, completion tokens include reasoning."""
    prompt = count_prompt_tokens(messages)
    cached = reply.cached_tokens
    if reply.cache_prefix and len(messages) > 1:
        cached = sum(count_message_tokens(m) for m in messages[:-1])
    cached = min(max(cached, 0), prompt)
    completion = count_text_tokens(reply.text + (json.dumps(reply.tool_calls) if reply.tool_calls else "")) \
        + reply.reasoning_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
    }


class _Handler(BaseHTTPRequestHandler):
    server: _StubHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence per-request logging (it would only repeat the path)."""

    def _send(self, status: int, body: bytes, content_type: str = "application/json",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout fault)
            pass

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), headers=headers)

    def do_GET(self) -> None:
        stub = self.server.stub
        with stub.stats.lock:
            stub.stats.requests += 1
        if self.path.rstrip("/") == "/stats":
            self._json(200, stub.stats.to_json())
        elif self.path.rstrip("/").endswith("/v1/models"):
            names = sorted({*stub.stats.models, *(f"sim/{p}" for p in PERSONAS)})
            self._json(200, {"object": "list", "data": [{"id": n, "object": "model"} for n in names]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        stub = self.server.stub
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "request body is not JSON"}})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        with stub.stats.lock:
            stub.stats.requests += 1
            stub.stats.http_calls += 1
            stub.stats.authorized_calls += int(bool(self.headers.get("Authorization")))
            model = str(request.get("model", ""))
            if model not in stub.stats.models:
                stub.stats.models.append(model)
        refusal = stub.refusal(self.headers.get("Authorization"), str(request.get("model", "")))
        if refusal is not None:
            self._json(refusal[0], {"error": {"message": refusal[1], "type": "invalid_request_error"}})
            return
        try:
            reply = stub.respond(self.path, request)
        except LookupError as exc:
            self._json(400, {"error": {"message": str(exc), "type": "invalid_request_error"}})
            return
        if reply is None:
            self._json(400, {"error": {"message": "stub script exhausted", "type": "invalid_request_error"}})
            return
        self._answer(request, reply)

    def _answer(self, request: dict[str, Any], reply: StubReply) -> None:
        stub = self.server.stub
        if reply.fault:
            with stub.stats.lock:
                stub.stats.faults[reply.fault] = stub.stats.faults.get(reply.fault, 0) + 1
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.fault == "timeout":
            time.sleep(stub.timeout_sleep_s)
        elif reply.fault in ("429", "500", "502", "503", "504"):
            kind = "rate_limit_error" if reply.fault == "429" else "server_error"
            self._json(int(reply.fault), {"error": {"message": f"stub fault {reply.fault}", "type": kind}},
                       headers={"Retry-After": "0"} if reply.fault == "429" else None)
            return
        elif reply.fault == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [ {"message": ')
            return
        messages = list(request.get("messages") or [])
        usage = build_usage(messages, reply)
        if reply.fault != "timeout":  # its client gave up long ago: when the late answer lands is up to load
            with stub.stats.lock:
                stub.stats.prompt_tokens += usage["prompt_tokens"]
                stub.stats.completion_tokens += usage["completion_tokens"]
                stub.stats.usages.append(usage)
        model = reply.model or str(request.get("model", ""))
        headers = {SIM_HEADER: "1"} if reply.simulated else None
        if request.get("stream"):
            self._stream(model, reply, usage, headers,
                         bool((request.get("stream_options") or {}).get("include_usage")))
            return
        body: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "matchmeter-stub-simulated" if reply.simulated else "matchmeter-stub",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text,
                                                 **({"tool_calls": reply.tool_calls} if reply.tool_calls else {})},
                         "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": usage,
        }
        if reply.fault == "no_choices":
            body.pop("choices")
        self._json(200, body, headers=headers)

    def _stream(self, model: str, reply: StubReply, usage: dict[str, Any], headers: dict[str, str] | None,
                include_usage: bool) -> None:
        """SSE: role chunk, content in up to 3 pieces, a finish chunk, a usage chunk if asked, [DONE]."""
        stub = self.server.stub
        ident, created = f"chatcmpl-{uuid.uuid4().hex[:12]}", int(time.time())

        def chunk(choices: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> bytes:
            obj = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                   "choices": choices, **(extra or {})}
            return f"data: {json.dumps(obj)}\n\n".encode()

        size = max(1, -(-len(reply.text) // 3))
        pieces = [reply.text[i:i + size] for i in range(0, len(reply.text), size)] or [""]
        parts = [chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])]
        parts += [chunk([{"index": 0, "delta": {"content": p}, "finish_reason": None}]) for p in pieces]
        for i, call in enumerate(reply.tool_calls or []):  # as OpenAI does: id and name first, then arguments
            arguments = str(call["function"].get("arguments", ""))
            half = len(arguments) // 2
            head = {"index": i, "id": call.get("id"), "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": arguments[:half]}}
            parts.append(chunk([{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}]))
            tail = {"index": i, "function": {"arguments": arguments[half:]}}
            parts.append(chunk([{"index": 0, "delta": {"tool_calls": [tail]}, "finish_reason": None}]))
        parts.append(chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}]))
        if include_usage:
            parts.append(chunk([], {"usage": usage}))
        parts.append(b"data: [DONE]\n\n")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            for i, part in enumerate(parts):
                if i and reply.chunk_delay_s:
                    time.sleep(reply.chunk_delay_s)
                self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                self.wfile.flush()
                if i == 0:
                    with stub.stats.lock:
                        stub.stats.streams_started += 1
                if i == 1 and reply.fault == "stream_cut":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if i == 1 and reply.hold:  # the first content chunk is out: wait for the test
                    stub.stream_gate.wait(30)
            # Counted before the terminating chunk: the client's read returns only after that chunk, so a test
            # that reads the count right after the response sees it (counted after, it raced the client).
            with stub.stats.lock:
                stub.stats.streams_finished += 1
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


class _StubHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    stub: StubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that drops its idle keep-alive connection (the gateway's pool closing) is not an error worth
        a traceback on the terminal; anything else is printed as the standard server prints it."""
        if isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            return
        super().handle_error(request, client_address)


class StubServer:
    """The stub as an object: `with StubServer(script) as stub: ... stub.api_base ...`.

    Args:
        script: replies for plain `/v1` requests (list, ScriptedReplies or callable); None for sim-only.
        port: 0 picks a free ephemeral port.
        suite_dirs: task directories/suites the sim personas load tasks from (via the task loader).
        tasks: TaskSpec objects by id, consulted before suite_dirs (tests).
        timeout_sleep_s: how long a "timeout" fault sleeps before answering.
        api_key: when set, requests without `Authorization: Bearer <api_key>` get a 401, as a real server would.
        models: when set, requests for any other model get a 404 "model not found" (a typo on a local server).
    """

    def __init__(self, script: Responder | Sequence[Any] | None = None, *, host: str = "127.0.0.1",
                 port: int = 0, suite_dirs: Sequence[Path] = (), tasks: dict[str, Any] | None = None,
                 timeout_sleep_s: float = 5.0, api_key: str | None = None,
                 models: Sequence[str] | None = None) -> None:
        self.script: Responder | None = script if script is None or callable(script) else ScriptedReplies(script)
        self.host, self.port = host, port
        self.suite_dirs = [Path(p) for p in suite_dirs]
        self.tasks = dict(tasks or {})
        self.timeout_sleep_s = timeout_sleep_s
        self.api_key, self.models = api_key, (set(models) if models is not None else None)
        self.stats = StubStats()
        self.stream_gate = threading.Event()  # releases replies scripted with hold=True
        self._httpd: _StubHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._sim: SimResponder | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.url}/v1"

    def start(self) -> StubServer:
        self._httpd = _StubHTTPServer((self.host, self.port), _Handler)
        self._httpd.stub = self
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="matchmeter-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def refusal(self, authorization: str | None, model: str) -> tuple[int, str] | None:
        """(status, message) when the request must be refused for its key or model, like vLLM would."""
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return 401, "Incorrect API key provided (stub)"
        if self.models is not None and model not in self.models:
            return 404, f"The model `{model}` does not exist (stub serves {', '.join(sorted(self.models))})"
        return None

    def respond(self, path: str, request: dict[str, Any]) -> StubReply | None:
        """Route one chat request: sim path → persona, else the script. Raises LookupError when unroutable."""
        parts = path.strip("/").split("/")
        if parts[0] == "sim":
            if len(parts) < 5:
                raise LookupError("sim path must be /sim/<task_id>/<seed>/v1/chat/completions")
            return self._sim_responder().reply(parts[1], int(parts[2]), request)
        if str(request.get("model", "")).startswith("sim/"):
            raise LookupError("sim models need api_base http://HOST:PORT/sim/<task_id>/<seed>/v1 (see sim_api_base)")
        if self.script is None:
            raise LookupError("this stub has no script for plain /v1 requests")
        reply = self.script(request)
        return None if reply is None else StubReply.coerce(reply)

    def _sim_responder(self) -> SimResponder:
        if self._sim is None:
            self._sim = SimResponder(suite_dirs=self.suite_dirs, tasks=self.tasks)
        return self._sim


@contextlib.contextmanager
def serve_sim(suite_dirs: Sequence[Path] = (), tasks: dict[str, Any] | None = None) -> Iterator[str]:
    """Run a sim-only stub for the duration of a run; yields its URL (pass it to llm.sim.sim_api_base)."""
    with StubServer(None, suite_dirs=suite_dirs, tasks=tasks) as stub:
        yield stub.url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m matchmeter.llm.stub_server", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON/YAML list of replies for plain /v1 requests.")
    parser.add_argument("--suite", type=Path, action="append", default=[], help="Task dirs for sim personas.")
    parser.add_argument("--port-file", type=Path, help="Write the bound port here once listening.")
    parser.add_argument("--timeout-sleep-s", type=float, default=5.0)
    args = parser.parse_args(argv)
    script = load_script(args.script) if args.script else None
    stub = StubServer(script, host=args.host, port=args.port, suite_dirs=args.suite,
                      timeout_sleep_s=args.timeout_sleep_s).start()
    if args.port_file:
        atomic_write_text(args.port_file, str(stub.port))
    print(f"matchmeter stub listening on {stub.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
