"""Wire formats of the gateway, shared shape, plus OpenAI chat completions and Anthropic messages.

Every protocol the gateway speaks is a `Wire`: it turns the agent's request into OpenAI-style chat
messages and sampling parameters (what `LMClient` takes), builds the JSON reply and error bodies, and
makes a `StreamEncoder` that writes the protocol's server-sent events as upstream deltas arrive:
`start` once before the first delta, `delta` per piece of text, then `finish` (usage, metered by the
gateway) or `error` (the stream broke off after it had started). The Responses and Gemini wires are in
gateway_wire_responses.py and gateway_wire_gemini.py. OpenAI chat forwards `tools`, `tool_choice` and
`parallel_tool_calls` and returns the model's `tool_calls` (streamed: whole, in one chunk before the
finish chunk, once the upstream sent them all); Responses carries function, namespace and custom
tools both ways (gateway_wire_responses.py); Anthropic forwards client tools (input_schema → parameters, tool_choice) and
carries tool_use/tool_result blocks both ways (a reply's tool calls as tool_use blocks, streamed as
content_block_start / input_json_delta / content_block_stop with stop_reason "tool_use"). Gemini carries
text only: tool definitions are not forwarded and tool traffic in its history is turned into readable text.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from matchmeter.llm.tokens import count_prompt_tokens
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


def anthropic_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's client tools (name, description, input_schema) as OpenAI function tools; server tools
    (web search and the like, which carry no input_schema) are not forwarded."""
    tools = body.get("tools")
    return [{"type": "function", "function": {"name": str(t["name"]), "description": str(t.get("description") or ""),
                                              "parameters": t.get("input_schema") or {"type": "object"}}}
            for t in (tools if isinstance(tools, list) else [])
            if isinstance(t, dict) and t.get("name") and isinstance(t.get("input_schema"), dict)]


def anthropic_tool_choice(choice: Any) -> str | dict[str, Any] | None:
    """Anthropic's tool_choice ({"type": auto | any | none | tool}) in OpenAI's form."""
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind == "tool" and choice.get("name"):
        return {"type": "function", "function": {"name": str(choice["name"])}}
    return {"auto": "auto", "any": "required", "none": "none"}.get(str(kind))


def _tool_result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        text = "\n".join(str(part.get("text", "")) if part.get("type") == "text" else f"[{part.get('type')} omitted]"
                         for part in content if isinstance(part, dict))
    else:
        text = "" if content is None else str(content)
    return f"[tool error] {text}" if block.get("is_error") else text


def _anthropic_message(item: dict[str, Any]) -> list[dict[str, Any]]:
    """One Anthropic message with tools carried: an assistant's tool_use blocks become its `tool_calls`, a
    user's tool_result blocks `tool` messages (first, as OpenAI wants them right after the call), and its
    text blocks one user message whose parts stay apart (CLIs add their own parts around the prompt)."""
    role, content = str(item.get("role", "user")), item.get("content")
    if not isinstance(content, list):
        return [{"role": role, "content": content_text(content)}]
    blocks = [b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content]
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    if role == "assistant":
        calls = [{"id": str(b.get("id", "")), "type": "function",
                  "function": {"name": str(b.get("name", "")), "arguments": json.dumps(b.get("input") or {})}}
                 for b in blocks if b.get("type") == "tool_use"]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or (None if calls else "")}
        return [{**message, "tool_calls": calls}] if calls else [message]
    out: list[dict[str, Any]] = [{"role": "tool", "tool_call_id": str(b.get("tool_use_id", "")),
                                  "content": _tool_result_text(b)} for b in blocks if b.get("type") == "tool_result"]
    if len(texts) > 1:
        out.append({"role": role, "content": [{"type": "text", "text": t} for t in texts]})
    elif texts or not out:
        out.append({"role": role, "content": "".join(texts)})
    return out


def anthropic_to_openai(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An Anthropic messages request → (OpenAI chat messages, sampling parameters).

    With client tools in the request they are forwarded (with tool_choice) and tool_use/tool_result blocks
    go upstream as tool calls and tool messages; without, tool traffic in the history becomes readable text.

    Raises:
        ValueError: `messages` is missing or not a list.
    """
    raw = body.get("messages")
    if not isinstance(raw, list):
        raise ValueError("request body must be a JSON object with a `messages` list")
    tools = anthropic_tools(body)
    messages: list[dict[str, Any]] = []
    system = body.get("system")
    system = "\n".join(block_text(b) for b in system) if isinstance(system, list) else content_text(system)
    if system:
        messages.append({"role": "system", "content": system})
    for item in raw:
        if not isinstance(item, dict):
            raise ValueError("every message must be an object")
        if tools:
            messages += _anthropic_message(item)
        else:
            messages.append({"role": str(item.get("role", "user")), "content": content_text(item.get("content"))})
    sampling: dict[str, Any] = {k: body[k] for k in ("temperature", "top_p", "max_tokens") if body.get(k) is not None}
    if body.get("stop_sequences"):
        sampling["stop"] = body["stop_sequences"]
    if tools:
        sampling["tools"] = tools
        choice = anthropic_tool_choice(body.get("tool_choice"))
        if choice is not None:
            sampling["tool_choice"] = choice
        if isinstance(body.get("tool_choice"), dict) and body["tool_choice"].get("disable_parallel_tool_use"):
            sampling["parallel_tool_calls"] = False
    return messages, sampling


def anthropic_usage(tokens: TokenUsage) -> dict[str, Any]:
    return {"input_tokens": tokens.input, "output_tokens": tokens.output + tokens.reasoning,
            "cache_read_input_tokens": tokens.cached_input, "cache_creation_input_tokens": 0}


def anthropic_error(message: str, kind: str, status: int = 0) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def tool_use_block(call: dict[str, Any]) -> dict[str, Any]:
    """An upstream OpenAI tool call as an Anthropic tool_use block (arguments that are no JSON object: {})."""
    try:
        arguments = json.loads(call["function"].get("arguments") or "{}")
    except json.JSONDecodeError:
        arguments = {}
    return {"type": "tool_use", "id": str(call.get("id") or f"toolu_mm{uuid.uuid4().hex[:20]}"),
            "name": str(call["function"]["name"]), "input": arguments if isinstance(arguments, dict) else {}}


class AnthropicStream:
    """message_start (input tokens: the gateway's own count of the prompt, as the upstream reports usage only
    at its end); a text block opened at the first text delta, a content_block_delta per delta; at the end
    the text block's content_block_stop, one tool_use block per upstream tool call (start, its input as one
    input_json_delta, stop), message_delta (stop_reason and the whole metered usage, which replaces
    message_start's), message_stop."""

    def __init__(self, prompt_tokens: int = 0) -> None:
        self.prompt_tokens = prompt_tokens  # the gateway's own count of the prompt, for message_start
        self.blocks = 0  # content blocks opened so far
        self.text_open = False

    def start(self, model: str) -> list[bytes]:
        message: dict[str, Any] = {"id": f"msg_mm{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
                                   "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
                                   "usage": anthropic_usage(TokenUsage(input=self.prompt_tokens))}
        return [sse({"type": "message_start", "message": message}, "message_start")]

    def delta(self, text: str) -> list[bytes]:
        if not text:
            return []
        events = []
        if not self.text_open:
            self.text_open, self.blocks = True, self.blocks + 1
            events.append(sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                              "content_block_start"))
        return [*events, sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                             "content_block_delta")]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        events = [sse({"type": "content_block_stop", "index": 0}, "content_block_stop")] if self.text_open else []
        for call in tool_calls:
            block, index = tool_use_block(call), self.blocks
            self.blocks += 1
            events += [sse({"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                           "content_block_start"),
                       sse({"type": "content_block_delta", "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}},
                           "content_block_delta"),
                       sse({"type": "content_block_stop", "index": index}, "content_block_stop")]
        stop = "tool_use" if tool_calls else "end_turn"
        return [*events, sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                              "usage": anthropic_usage(tokens), "matchmeter": meta}, "message_delta"),
                sse({"type": "message_stop"}, "message_stop")]

    def error(self, message: str, kind: str) -> list[bytes]:
        return [sse(anthropic_error(message, kind), "error")]


class AnthropicWire:
    """One per request (the gateway makes it): parse keeps the prompt's token count for the stream's
    message_start, where the Anthropic API reports the input tokens before any output."""

    name = "anthropic"

    def __init__(self) -> None:
        self.prompt_tokens = 0

    def parse(self, body: dict[str, Any]) -> WireRequest:
        request = WireRequest.of(body, *anthropic_to_openai(body))
        self.prompt_tokens = count_prompt_tokens(request.messages)
        return request

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        content = [{"type": "text", "text": text}] if text or not tool_calls else []
        return {"id": f"msg_mm{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant", "model": model,
                "content": content + [tool_use_block(c) for c in tool_calls],
                "stop_reason": "tool_use" if tool_calls else "end_turn", "stop_sequence": None,
                "usage": anthropic_usage(tokens), "matchmeter": meta}

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return anthropic_error(message, kind)

    def encoder(self) -> StreamEncoder:
        return AnthropicStream(self.prompt_tokens)
