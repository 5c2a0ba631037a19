"""A fast canned upstream speaking OpenAI chat, OpenAI Responses and Anthropic messages, for tests and benchmarks.

One aiohttp server; every reply is the same canned answer ("canned reply", in three pieces when streamed) with
fixed usage, the same in all three protocols: 37 prompt tokens of which 5 cached, 11 completion tokens of
which 2 reasoning (Anthropic has no reasoning class: 32 input + 5 cache read, 11 output). A tool call is added
when the request offers tools. How it behaves is chosen by a path segment in front of the protocol's path, so a
test picks it through the endpoint's api_base (`CannedUpstream.base(mode)`):

    /<mode>/v1/chat/completions | /<mode>/v1/responses | /<mode>/v1/messages     (and the same without /<mode>)
    ok          the reply, with usage (a chat stream's usage chunk only when stream_options.include_usage asks)
    no-usage    the reply without any usage
    503         HTTP 503 (a JSON error body)
    hang        no answer for an hour
    cut         a streamed reply whose connection is dropped after its first text piece

Every request is kept (`requests`: path, headers, body) so tests can see what reached the upstream.
Run as a process (benchmarks/gateway.py): `python -m matchmeter.llm.canned_upstream --port-file F`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from matchmeter.atomicfile import atomic_write_text

TEXT = ("canned ", "rep", "ly")
MODEL = "canned-model-2026"
CHAT_USAGE = {"prompt_tokens": 37, "completion_tokens": 11, "total_tokens": 48,
              "prompt_tokens_details": {"cached_tokens": 5}, "completion_tokens_details": {"reasoning_tokens": 2}}
RESPONSES_USAGE = {"input_tokens": 37, "input_tokens_details": {"cached_tokens": 5}, "output_tokens": 11,
                   "output_tokens_details": {"reasoning_tokens": 2}, "total_tokens": 48}
ANTHROPIC_USAGE = {"input_tokens": 32, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0,
                   "output_tokens": 11}
CALL = {"id": "call_canned", "name": "shell", "arguments": '{"cmd": "ls"}'}


def _sse(data: dict[str, Any], event: str | None = None) -> bytes:
    return (f"event: {event}\n" if event else "").encode() + b"data: " + json.dumps(data).encode() + b"\n\n"


def chat(body: dict[str, Any], usage: bool) -> tuple[dict[str, Any], list[bytes]]:
    tools = bool(body.get("tools"))
    message: dict[str, Any] = {"role": "assistant", "content": "".join(TEXT)}
    if tools:
        message["tool_calls"] = [{"id": CALL["id"], "type": "function",
                                  "function": {"name": CALL["name"], "arguments": CALL["arguments"]}}]
    finish = "tool_calls" if tools else "stop"
    reply = {"id": "chatcmpl-canned", "object": "chat.completion", "created": 1, "model": MODEL,
             "choices": [{"index": 0, "message": message, "finish_reason": finish}], **({"usage": CHAT_USAGE} if usage else {})}
    head = {"id": "chatcmpl-canned", "object": "chat.completion.chunk", "created": 1, "model": MODEL}
    events = [_sse({**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})]
    events += [_sse({**head, "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]}) for t in TEXT]
    if tools:  # in two fragments, as providers send them
        half = len(CALL["arguments"]) // 2
        events += [_sse({**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": CALL["id"], "type": "function",
                   "function": {"name": CALL["name"], "arguments": CALL["arguments"][:half]}}]}, "finish_reason": None}]}),
                   _sse({**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                   "function": {"arguments": CALL["arguments"][half:]}}]}, "finish_reason": None}]})]
    events.append(_sse({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    if usage and (body.get("stream_options") or {}).get("include_usage"):
        events.append(_sse({**head, "choices": [], "usage": CHAT_USAGE}))
    return reply, [*events, b"data: [DONE]\n\n"]


def responses(body: dict[str, Any], usage: bool) -> tuple[dict[str, Any], list[bytes]]:
    output: list[dict[str, Any]] = [{"type": "message", "id": "msg_canned", "status": "completed", "role": "assistant",
                                     "content": [{"type": "output_text", "text": "".join(TEXT), "annotations": []}]}]
    if body.get("tools"):
        output.append({"type": "function_call", "id": "fc_canned", "call_id": CALL["id"], "name": CALL["name"],
                       "arguments": CALL["arguments"], "status": "completed"})
    done = {"id": "resp_canned", "object": "response", "created_at": 1, "status": "completed", "model": MODEL,
            "output": output, "usage": RESPONSES_USAGE if usage else None}
    events = [_sse({"type": "response.created", "sequence_number": 0,
                    "response": {**done, "status": "in_progress", "output": [], "usage": None}}, "response.created")]
    events += [_sse({"type": "response.output_text.delta", "sequence_number": i + 1, "item_id": "msg_canned",
                     "output_index": 0, "content_index": 0, "delta": t}, "response.output_text.delta")
               for i, t in enumerate(TEXT)]
    events.append(_sse({"type": "response.completed", "sequence_number": 9, "response": done}, "response.completed"))
    return done, events


def anthropic(body: dict[str, Any], usage: bool) -> tuple[dict[str, Any], list[bytes]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "".join(TEXT)}]
    if body.get("tools"):
        content.append({"type": "tool_use", "id": CALL["id"], "name": CALL["name"], "input": json.loads(CALL["arguments"])})
    stop = "tool_use" if body.get("tools") else "end_turn"
    reply = {"id": "msg_canned", "type": "message", "role": "assistant", "model": MODEL, "content": content,
             "stop_reason": stop, "stop_sequence": None, **({"usage": ANTHROPIC_USAGE} if usage else {})}
    start_usage = {**ANTHROPIC_USAGE, "output_tokens": 1} if usage else {}
    events = [_sse({"type": "message_start", "message": {**reply, "content": [], "stop_reason": None,
                                                         **({"usage": start_usage} if usage else {})}}, "message_start"),
              _sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                   "content_block_start")]
    events += [_sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}},
                    "content_block_delta") for t in TEXT]
    events.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    if body.get("tools"):
        events += [_sse({"type": "content_block_start", "index": 1, "content_block": {**content[1], "input": {}}},
                        "content_block_start"),
                   _sse({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
                                                                             "partial_json": CALL["arguments"]}},
                        "content_block_delta"),
                   _sse({"type": "content_block_stop", "index": 1}, "content_block_stop")]
    events += [_sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                     **({"usage": {"output_tokens": ANTHROPIC_USAGE["output_tokens"]}} if usage else {})}, "message_delta"),
               _sse({"type": "message_stop"}, "message_stop")]
    return reply, events


PROTOCOLS = {"chat/completions": chat, "responses": responses, "messages": anthropic}


class CannedUpstream:
    """`with CannedUpstream() as up: up.base("ok")` (the loop runs in a thread); `requests` keeps every request."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, keep_requests: bool = True) -> None:
        self.host, self.port, self.keep = host, port, keep_requests
        self.requests: list[dict[str, Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def base(self, mode: str = "ok", anthropic: bool = False) -> str:
        """The api_base for `mode` (OpenAI bases end in /v1; an Anthropic base does not)."""
        return f"http://{self.host}:{self.port}/{mode}" + ("" if anthropic else "/v1")

    async def handle(self, request: Any) -> Any:
        from aiohttp import web

        parts = request.path.strip("/").split("/")
        mode = parts[0] if parts[0] != "v1" else "ok"
        endpoint = "/".join(parts[parts.index("v1") + 1:]) if "v1" in parts else ""
        body = await request.json()
        if self.keep:
            self.requests.append({"path": request.path, "headers": dict(request.headers), "body": body})
        if mode == "503":
            return web.json_response({"error": {"message": "canned overload", "type": "overloaded"}}, status=503)
        if mode == "hang":
            await asyncio.sleep(3600)
        make = PROTOCOLS.get(endpoint)
        if make is None:
            return web.json_response({"error": {"message": f"no route {request.path}"}}, status=404)
        reply, events = make(body, usage=mode != "no-usage")
        if not body.get("stream"):
            plain = web.json_response(reply)
            plain.set_cookie("canned-session", "upstream-cookie")  # a gateway must not carry it to other calls
            return plain
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for i, event in enumerate(events):
            await response.write(event)
            if mode == "cut" and b"delta" in event and i >= 1:
                request.transport.close()  # dropped mid-stream
                return response
        await response.write_eof()
        return response

    async def _start(self) -> Any:
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/{tail:.*}", self.handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)  # hung handlers do not hold the stop
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return runner

    def start(self) -> CannedUpstream:
        ready = threading.Event()

        def serve() -> None:
            self._loop = asyncio.new_event_loop()
            runner = self._loop.run_until_complete(self._start())
            ready.set()
            try:
                self._loop.run_forever()
            finally:
                self._loop.run_until_complete(runner.cleanup())

        self._thread = threading.Thread(target=serve, name="canned-upstream", daemon=True)
        self._thread.start()
        ready.wait(30)
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> CannedUpstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m matchmeter.llm.canned_upstream", description=__doc__.split("\n")[0])
    parser.add_argument("--port-file", type=Path, required=True, help="Write the bound port here once listening.")
    args = parser.parse_args(argv)
    upstream = CannedUpstream(keep_requests=False)

    async def run() -> None:
        await upstream._start()
        atomic_write_text(args.port_file, str(upstream.port))
        await asyncio.Event().wait()

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
