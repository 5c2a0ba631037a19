"""The OpenAI Responses API (`POST /v1/responses`), which recent Codex CLI versions speak.

Request: `instructions` (system text), `input` (a string, or a list of items: messages with a string
or `input_text`/`output_text` parts; `function_call` / `function_call_output` items become readable
text), `max_output_tokens`, `temperature`, `top_p`. Reply: a `response` object whose one output item is
an assistant message with one `output_text` part, and `usage` in the Responses shape (input tokens
include cached ones, output tokens include reasoning ones). Streaming events, each with its
`sequence_number`: response.created, response.in_progress, response.output_item.added,
response.content_part.added, response.output_text.delta (one per upstream delta),
response.output_text.done, response.content_part.done, response.output_item.done, response.completed
(the whole response with usage). A stream that breaks off ends with `error` and response.failed.
Tools, stored responses (`previous_response_id`) and reasoning items are not served.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from typing import Any

from matchmeter.llm.gateway_wire import (
    NO_TOOLS,
    StreamEncoder,
    WireRequest,
    as_model,
    content_text,
    openai_error,
    sse,
)
from matchmeter.schema import TokenUsage


def responses_usage(tokens: TokenUsage) -> dict[str, Any]:
    prompt, completion = tokens.input + tokens.cached_input, tokens.output + tokens.reasoning
    return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": tokens.cached_input},
            "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": tokens.reasoning},
            "total_tokens": prompt + completion}


def _item_message(item: dict[str, Any]) -> dict[str, Any] | None:
    kind = item.get("type", "message")
    if kind == "message" or "role" in item:
        role = str(item.get("role", "user"))
        return {"role": "system" if role == "developer" else role, "content": content_text(item.get("content"))}
    if kind == "function_call":
        return {"role": "assistant", "content": f"[function_call {item.get('name')}: {item.get('arguments')}]"}
    if kind == "function_call_output":
        output = item.get("output")
        return {"role": "user", "content": f"[function_call_output: {output if isinstance(output, str) else json.dumps(output)}]"}
    return None  # reasoning and other items carry nothing the upstream chat call can use


def responses_to_openai(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Responses request → (OpenAI chat messages, sampling). Raises ValueError when `input` is unusable."""
    raw = body.get("input")
    messages: list[dict[str, Any]] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": content_text(body["instructions"])})
    if isinstance(raw, str):
        messages.append({"role": "user", "content": raw})
    elif isinstance(raw, list):
        for item in raw:
            if not isinstance(item, dict):
                raise ValueError("every `input` item must be an object")
            message = _item_message(item)
            if message is not None:
                messages.append(message)
    else:
        raise ValueError("request body must be a JSON object with an `input` string or list")
    if not any(m["role"] != "system" for m in messages):
        raise ValueError("`input` holds no message")
    sampling = {k: body[k] for k in ("temperature", "top_p") if body.get(k) is not None}
    if body.get("max_output_tokens") is not None:
        sampling["max_tokens"] = body["max_output_tokens"]
    return messages, sampling


class _Ids:
    def __init__(self) -> None:
        self.response, self.message = f"resp_mm{uuid.uuid4().hex[:24]}", f"msg_mm{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())


def response_object(ids: _Ids, model: str, status: str, text: str | None, tokens: TokenUsage | None,
                    error: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    output = [] if text is None else [_message_item(ids, text, "completed")]
    body: dict[str, Any] = {
        "id": ids.response, "object": "response", "created_at": ids.created, "status": status, "model": model,
        "output": output, "parallel_tool_calls": False, "tool_choice": "none", "tools": [], "error": error,
        "incomplete_details": None, "instructions": None, "metadata": {}, "temperature": None, "top_p": None,
        "usage": responses_usage(tokens) if tokens is not None else None}
    if meta is not None:
        body["matchmeter"] = meta
    return body


def _message_item(ids: _Ids, text: str, status: str) -> dict[str, Any]:
    content = [] if status == "in_progress" else [_part(text)]
    return {"type": "message", "id": ids.message, "status": status, "role": "assistant", "content": content}


def _part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


class ResponsesStream:
    def __init__(self) -> None:
        self.ids, self.seq, self.model = _Ids(), 0, ""
        self.parts: list[str] = []

    def _event(self, kind: str, data: dict[str, Any]) -> bytes:
        event = sse({"type": kind, "sequence_number": self.seq, **data}, kind)
        self.seq += 1
        return event

    def _where(self) -> dict[str, Any]:
        return {"item_id": self.ids.message, "output_index": 0, "content_index": 0}

    def start(self, model: str) -> list[bytes]:
        self.model = model
        shell = response_object(self.ids, model, "in_progress", None, None)
        return [self._event("response.created", {"response": shell}),
                self._event("response.in_progress", {"response": shell}),
                self._event("response.output_item.added",
                            {"output_index": 0, "item": _message_item(self.ids, "", "in_progress")}),
                self._event("response.content_part.added", {**self._where(), "part": _part("")})]

    def delta(self, text: str) -> list[bytes]:
        self.parts.append(text)
        return [self._event("response.output_text.delta", {**self._where(), "delta": text, "logprobs": []})]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        text = "".join(self.parts)
        return [self._event("response.output_text.done", {**self._where(), "text": text, "logprobs": []}),
                self._event("response.content_part.done", {**self._where(), "part": _part(text)}),
                self._event("response.output_item.done",
                            {"output_index": 0, "item": _message_item(self.ids, text, "completed")}),
                self._event("response.completed",
                            {"response": response_object(self.ids, model, "completed", text, tokens, meta=meta)})]

    def error(self, message: str, kind: str) -> list[bytes]:
        failed = response_object(self.ids, self.model, "failed", None, None, {"code": kind, "message": message})
        return [self._event("error", {"code": kind, "message": message, "param": None}),
                self._event("response.failed", {"response": failed})]


class ResponsesWire:
    name = "responses"

    def parse(self, body: dict[str, Any]) -> WireRequest:
        messages, sampling = responses_to_openai(body)
        return WireRequest(messages, sampling, bool(body.get("stream")), as_model(body.get("model")))

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        return response_object(_Ids(), model, "completed", text, tokens, meta=meta)

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return openai_error(message, kind)

    def encoder(self) -> StreamEncoder:
        return ResponsesStream()
