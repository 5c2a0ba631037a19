"""Wire formats of the gateway: OpenAI chat completions and Anthropic messages, in and out.

The gateway forwards every request as one non-streaming OpenAI-style chat call through `LMClient`
(so cache, retries and pricing are the client's) and answers in the agent's protocol. A streaming
request is answered as server-sent events carrying the whole reply: the agent sees the event sequence
its SDK expects, and the usage event carries the metered tokens. Only text content is carried; tool
definitions and tool calls are not forwarded (the client returns text only).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from matchmeter.schema import TokenUsage

SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "stop", "seed")


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


def openai_reply(text: str, model: str, tokens: TokenUsage, meta: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"chatcmpl-mm{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": "stop"}],
            "usage": openai_usage_dict(tokens), "matchmeter": meta}


def openai_stream(text: str, model: str, tokens: TokenUsage, meta: dict[str, Any]) -> list[bytes]:
    """SSE events: role, content, finish, usage (empty choices, as with stream_options.include_usage), [DONE]."""
    ident, created = f"chatcmpl-mm{uuid.uuid4().hex[:12]}", int(time.time())

    def event(choices: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> bytes:
        obj = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
               "choices": choices, **(extra or {})}
        return f"data: {json.dumps(obj)}\n\n".encode()

    return [event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]),
            event([{"index": 0, "delta": {"content": text}, "finish_reason": None}]),
            event([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
            event([], {"usage": openai_usage_dict(tokens), "matchmeter": meta}),
            b"data: [DONE]\n\n"]


def openai_error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


# ---------------------------------------------------------------------- Anthropic


def _block_text(block: Any) -> str:
    """Text of one Anthropic content block; tool use/results become readable text."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        return f"[tool_use {block.get('name')}: {json.dumps(block.get('input'))}]"
    if kind == "tool_result":
        return f"[tool_result: {_content_text(block.get('content'))}]"
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(_block_text(b) for b in content)
    return _block_text(content) if content is not None else ""


def anthropic_to_openai(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An Anthropic messages request → (OpenAI chat messages, sampling parameters).

    Raises:
        ValueError: `messages` is missing or not a list.
    """
    raw = body.get("messages")
    if not isinstance(raw, list):
        raise ValueError("`messages` must be a list")
    messages: list[dict[str, Any]] = []
    system = _content_text(body.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for item in raw:
        if not isinstance(item, dict):
            raise ValueError("every message must be an object")
        messages.append({"role": str(item.get("role", "user")), "content": _content_text(item.get("content"))})
    sampling = {k: body[k] for k in ("temperature", "top_p", "max_tokens") if body.get(k) is not None}
    if body.get("stop_sequences"):
        sampling["stop"] = body["stop_sequences"]
    return messages, sampling


def anthropic_usage(tokens: TokenUsage) -> dict[str, Any]:
    return {"input_tokens": tokens.input, "output_tokens": tokens.output + tokens.reasoning,
            "cache_read_input_tokens": tokens.cached_input, "cache_creation_input_tokens": 0}


def anthropic_reply(text: str, model: str, tokens: TokenUsage, meta: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"msg_mm{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": anthropic_usage(tokens), "matchmeter": meta}


def anthropic_stream(text: str, model: str, tokens: TokenUsage, meta: dict[str, Any]) -> list[bytes]:
    """The Anthropic event sequence: message_start … content_block_delta … message_delta, message_stop."""
    message = anthropic_reply("", model, tokens, meta)
    message["content"], message["stop_reason"] = [], None
    message["usage"] = {**anthropic_usage(tokens), "output_tokens": 0}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": tokens.output + tokens.reasoning}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return [f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events]


def anthropic_error(message: str, kind: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
