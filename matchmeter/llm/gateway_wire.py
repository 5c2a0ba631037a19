"""Wire formats of the gateway, shared shape, plus OpenAI chat completions and Anthropic messages.

Every protocol the gateway speaks is a `Wire`: it turns the agent's request into OpenAI-style chat
messages and sampling parameters (what `LMClient` takes), builds the JSON reply and error bodies, and
makes a `StreamEncoder` that writes the protocol's server-sent events as upstream deltas arrive:
`start` once before the first delta, `delta` per piece of text, then `finish` (usage, metered by the
gateway) or `error` (the stream broke off after it had started). The Responses and Gemini wires are in
gateway_wire_responses.py and gateway_wire_gemini.py. OpenAI chat forwards `tools`, `tool_choice` and
`parallel_tool_calls` and returns the model's `tool_calls` (streamed: whole, in one chunk before the
finish chunk, once the upstream sent them all); Responses forwards function tools
(gateway_wire_responses.py). Anthropic and Gemini carry text only: tool definitions are not forwarded
and tool traffic in their history is turned into readable text.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from matchmeter.schema import TokenUsage

SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "stop", "seed", "tools", "tool_choice", "parallel_tool_calls")
NO_TOOLS: tuple[dict[str, Any], ...] = ()


class WireRequest(NamedTuple):
    messages: list[dict[str, Any]]
    sampling: dict[str, Any]
    stream: bool
    model: str | None  # what the agent asked for (routed to the configured model anyway)

    @classmethod
    def of(cls, body: dict[str, Any], messages: list[dict[str, Any]], sampling: dict[str, Any]) -> WireRequest:
        """The request a body makes that names its own `stream` and `model` (all wires but Gemini's)."""
        return cls(messages, sampling, bool(body.get("stream")), as_model(body.get("model")))


class StreamEncoder(Protocol):
    def start(self, model: str) -> list[bytes]: ...

    def delta(self, text: str) -> list[bytes]: ...

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]: ...

    def error(self, message: str, kind: str) -> list[bytes]: ...


class Wire(Protocol):
    name: str  # GatewayCall.api

    def parse(self, body: dict[str, Any]) -> WireRequest:
        """Raises ValueError with a message the agent sees (HTTP 400)."""
        ...

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]: ...

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]: ...

    def encoder(self) -> StreamEncoder: ...


def sse(data: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def block_text(block: Any) -> str:
    """Text of one content block (Anthropic or OpenAI style); tool traffic becomes readable text."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind in ("text", "input_text", "output_text"):
        return str(block.get("text", ""))
    if kind == "tool_use":
        return f"[tool_use {block.get('name')}: {json.dumps(block.get('input'))}]"
    if kind == "tool_result":
        return f"[tool_result: {content_text(block.get('content'))}]"
    return ""


def content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(block_text(b) for b in content)
    return block_text(content) if content is not None else ""


def as_model(value: Any) -> str | None:
    return str(value) if value is not None else None


# ---------------------------------------------------------------------- OpenAI chat


def openai_sampling(body: dict[str, Any]) -> dict[str, Any]:
    params = {k: body[k] for k in SAMPLING_KEYS if body.get(k) is not None}
    if body.get("max_completion_tokens") is not None and "max_tokens" not in params:
        params["max_tokens"] = body["max_completion_tokens"]
    return params


def openai_usage_dict(tokens: TokenUsage) -> dict[str, Any]:
    prompt, completion = tokens.input + tokens.cached_input, tokens.output + tokens.reasoning
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": tokens.cached_input},
            "completion_tokens_details": {"reasoning_tokens": tokens.reasoning}}


def openai_error(message: str, kind: str, status: int = 0) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


class OpenAIChatStream:
    """Chunks: role, one per delta, finish, usage (empty choices, as with include_usage), [DONE]."""

    def __init__(self) -> None:
        self.ident, self.created, self.model = f"chatcmpl-mm{uuid.uuid4().hex[:12]}", int(time.time()), ""

    def _chunk(self, choices: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> bytes:
        return sse({"id": self.ident, "object": "chat.completion.chunk", "created": self.created,
                    "model": self.model, "choices": choices, **(extra or {})})

    def start(self, model: str) -> list[bytes]:
        self.model = model
        return [self._chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])]

    def delta(self, text: str) -> list[bytes]:
        return [self._chunk([{"index": 0, "delta": {"content": text}, "finish_reason": None}])]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        self.model = model
        calls = [self._chunk([{"index": 0, "delta": {"tool_calls": [{"index": i, **c} for i, c in enumerate(tool_calls)]},
                               "finish_reason": None}])] if tool_calls else []
        return [*calls, self._chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls" if tool_calls else "stop"}]),
                self._chunk([], {"usage": openai_usage_dict(tokens), "matchmeter": meta}), b"data: [DONE]\n\n"]

    def error(self, message: str, kind: str) -> list[bytes]:
        return [sse(openai_error(message, kind))]  # the OpenAI SDK raises APIError on an `error` chunk


class OpenAIChatWire:
    name = "openai"

    def parse(self, body: dict[str, Any]) -> WireRequest:
        if not isinstance(body.get("messages"), list):
            raise ValueError("request body must be a JSON object with a `messages` list")
        return WireRequest.of(body, body["messages"], openai_sampling(body))

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text or (None if tool_calls else "")}
        if tool_calls:
            message["tool_calls"] = list(tool_calls)
        return {"id": f"chatcmpl-mm{uuid.uuid4().hex[:12]}", "object": "chat.completion",
                "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
                "usage": openai_usage_dict(tokens), "matchmeter": meta}

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return openai_error(message, kind)

    def encoder(self) -> StreamEncoder:
        return OpenAIChatStream()


# ---------------------------------------------------------------------- Anthropic


def anthropic_to_openai(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An Anthropic messages request → (OpenAI chat messages, sampling parameters).

    Raises:
        ValueError: `messages` is missing or not a list.
    """
    raw = body.get("messages")
    if not isinstance(raw, list):
        raise ValueError("request body must be a JSON object with a `messages` list")
    messages: list[dict[str, Any]] = []
    system = content_text(body.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for item in raw:
        if not isinstance(item, dict):
            raise ValueError("every message must be an object")
        messages.append({"role": str(item.get("role", "user")), "content": content_text(item.get("content"))})
    sampling = {k: body[k] for k in ("temperature", "top_p", "max_tokens") if body.get(k) is not None}
    if body.get("stop_sequences"):
        sampling["stop"] = body["stop_sequences"]
    return messages, sampling


def anthropic_usage(tokens: TokenUsage) -> dict[str, Any]:
    return {"input_tokens": tokens.input, "output_tokens": tokens.output + tokens.reasoning,
            "cache_read_input_tokens": tokens.cached_input, "cache_creation_input_tokens": 0}


def anthropic_error(message: str, kind: str, status: int = 0) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


class AnthropicStream:
    """message_start, content_block_start, content_block_delta per delta, content_block_stop,
    message_delta (the whole metered usage: the upstream reports it only at the end), message_stop."""

    def start(self, model: str) -> list[bytes]:
        message: dict[str, Any] = {"id": f"msg_mm{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant", "model": model,
                   "content": [], "stop_reason": None, "stop_sequence": None,
                   "usage": anthropic_usage(TokenUsage())}
        return [sse({"type": "message_start", "message": message}, "message_start"),
                sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                    "content_block_start")]

    def delta(self, text: str) -> list[bytes]:
        return [sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                    "content_block_delta")]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        return [sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
                sse({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                     "usage": anthropic_usage(tokens), "matchmeter": meta}, "message_delta"),
                sse({"type": "message_stop"}, "message_stop")]

    def error(self, message: str, kind: str) -> list[bytes]:
        return [sse(anthropic_error(message, kind), "error")]


class AnthropicWire:
    name = "anthropic"

    def parse(self, body: dict[str, Any]) -> WireRequest:
        return WireRequest.of(body, *anthropic_to_openai(body))

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        return {"id": f"msg_mm{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": anthropic_usage(tokens), "matchmeter": meta}

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return anthropic_error(message, kind)

    def encoder(self) -> StreamEncoder:
        return AnthropicStream()
