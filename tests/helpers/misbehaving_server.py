"""A local OpenAI-compatible server that misbehaves on demand (real HTTP on 127.0.0.1; not the sim stub).

It answers `POST /v1/chat/completions` from a `reply(request) -> str` function and counts every request it
receives. The preflight ping ("Reply with the single word OK.") is always answered "OK", so a fault set
with `fault = ...` hits the run itself, the way a server that breaks mid-run does:

    ok          a chat completion with usage
    malformed   200 with a body that is not JSON
    503         HTTP 503 (a 5xx the client retries)
    hang        accept the request and never answer (until the server stops)
    401         the key is rejected (as if revoked after preflight)
    404         the model is unknown (as if unloaded after preflight)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PING = "Reply with the single word OK."


class MisbehavingServer:
    def __init__(self, reply: Callable[[dict[str, Any]], str], model: str = "coder") -> None:
        self.reply, self.model = reply, model
        self.fault = "ok"
        self.requests: list[tuple[float, str, str]] = []  # (time.time(), fault applied, last message)
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def count(self, fault: str | None = None) -> int:
        """Chat requests received (pings included), or only those answered with `fault`."""
        with self._lock:
            return sum(1 for _, f, _ in self.requests if fault is None or f == fault)

    def __enter__(self) -> MisbehavingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                last = str(request.get("messages", [{}])[-1].get("content", ""))
                fault = "ok" if last == PING else server.fault
                with server._lock:
                    server.requests.append((time.time(), fault, last))
                if fault == "hang":
                    server._stopped.wait()
                    return
                if fault == "malformed":
                    self._send(200, b'{"id": "x", "choices": [ {"message": ')
                elif fault in ("503", "401", "404"):
                    message = {"503": "overloaded", "401": "invalid api key",
                               "404": f"The model `{server.model}` does not exist"}[fault]
                    self._send(int(fault), json.dumps({"error": {"message": message, "type": "error"}}).encode())
                else:
                    text = "OK" if last == PING else server.reply(request)
                    prompt = sum(len(str(m.get("content", ""))) for m in request.get("messages", [])) // 4 + 1
                    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
                            "model": server.model,
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": text}}],
                            "usage": {"prompt_tokens": prompt, "completion_tokens": len(text) // 4 + 1,
                                      "total_tokens": prompt + len(text) // 4 + 1}}
                    self._send(200, json.dumps(body).encode())

        return Handler
