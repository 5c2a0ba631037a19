"""The OpenAI Responses API (`POST /v1/responses`), which recent Codex CLI versions speak.

Request: `instructions` (system text), `input` (a string, or a list of items: messages with a string
or `input_text`/`output_text` parts, `function_call` and `function_call_output` items),
`max_output_tokens`, `temperature`, `top_p`, and `tools`. Function tools (`{"type": "function", "name",
"parameters"}`) are forwarded as chat tools with `tool_choice`; then `function_call` /
`function_call_output` items go upstream as an assistant `tool_calls` message and `tool` messages.
Other tool kinds (built-in, custom/freeform) are not forwarded; without function tools, function items
in the history become readable text. Reply: a `response` object whose output is the assistant message
(when there is text) and one `function_call` item per tool call, with `usage` in the Responses shape
(input tokens include cached ones, output tokens include reasoning ones).

Streaming events, each with its `sequence_number`: response.created, response.in_progress; at the first
text delta response.output_item.added and response.content_part.added, then
response.output_text.delta per upstream delta; at the end response.output_text.done,
response.content_part.done, response.output_item.done for the message, then for each tool call
response.output_item.added, response.function_call_arguments.delta/.done, response.output_item.done;
last response.completed (the whole response with usage). A stream that breaks off ends with `error`
and response.failed. Stored responses (`previous_response_id`) and reasoning items are not served.
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


def _function_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    tools = body.get("tools")
    if not isinstance(tools, list):
        tools = []
    return [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters", "strict")
                                              if t.get(k) is not None}}
            for t in tools if isinstance(t, dict) and t.get("type") == "function" and t.get("name")]


def _output_text(output: Any) -> str:
    return output if isinstance(output, str) else content_text(output) if isinstance(output, list) else json.dumps(output)


def _append_item(messages: list[dict[str, Any]], item: dict[str, Any], structured: bool) -> None:
    kind = item.get("type", "message")
    if kind == "message" or "role" in item:
        role = str(item.get("role", "user"))
        messages.append({"role": "system" if role == "developer" else role, "content": content_text(item.get("content"))})
    elif kind == "function_call" and structured:
        call = {"id": str(item.get("call_id") or item.get("id") or ""), "type": "function",
                "function": {"name": str(item.get("name", "")), "arguments": str(item.get("arguments") or "")}}
        last = messages[-1] if messages else None
        if last is not None and last["role"] == "assistant" and last.get("tool_calls"):
            last["tool_calls"].append(call)  # parallel calls of one turn: one assistant message
        else:
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    elif kind == "function_call_output" and structured:
        messages.append({"role": "tool", "tool_call_id": str(item.get("call_id", "")),
                         "content": _output_text(item.get("output"))})
    elif kind == "function_call":
        messages.append({"role": "assistant", "content": f"[function_call {item.get('name')}: {item.get('arguments')}]"})
    elif kind == "function_call_output":
        messages.append({"role": "user", "content": f"[function_call_output: {_output_text(item.get('output'))}]"})
    # reasoning and other items carry nothing the upstream chat call can use


def responses_to_openai(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Responses request → (OpenAI chat messages, sampling). Raises ValueError when `input` is unusable."""
    raw = body.get("input")
    tools = _function_tools(body)
    messages: list[dict[str, Any]] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": content_text(body["instructions"])})
    if isinstance(raw, str):
        messages.append({"role": "user", "content": raw})
    elif isinstance(raw, list):
        for item in raw:
            if not isinstance(item, dict):
                raise ValueError("every `input` item must be an object")
            _append_item(messages, item, structured=bool(tools))
    else:
        raise ValueError("request body must be a JSON object with an `input` string or list")
    if not any(m["role"] != "system" for m in messages):
        raise ValueError("`input` holds no message")
    sampling: dict[str, Any] = {k: body[k] for k in ("temperature", "top_p") if body.get(k) is not None}
    if body.get("max_output_tokens") is not None:
        sampling["max_tokens"] = body["max_output_tokens"]
    if tools:
        sampling["tools"] = tools
        choice = body.get("tool_choice")
        if choice in ("auto", "none", "required"):
            sampling["tool_choice"] = choice
        elif isinstance(choice, dict) and choice.get("type") == "function" and choice.get("name"):
            sampling["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
        if body.get("parallel_tool_calls") is not None:
            sampling["parallel_tool_calls"] = body["parallel_tool_calls"]
    return messages, sampling


class _Ids:
    def __init__(self) -> None:
        self.response, self.message = f"resp_mm{uuid.uuid4().hex[:24]}", f"msg_mm{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())


def _call_item(call: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    function = call["function"]
    return {"type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"], "name": function["name"],
            "arguments": function["arguments"] if status == "completed" else "", "status": status}


def response_object(ids: _Ids, model: str, status: str, text: str | None, tokens: TokenUsage | None,
                    error: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
                    tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
    output = [_message_item(ids, text, "completed")] if text else []
    output += [_call_item(c) for c in tool_calls]
    body: dict[str, Any] = {
        "id": ids.response, "object": "response", "created_at": ids.created, "status": status, "model": model,
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "error": error,
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
                self._event("response.in_progress", {"response": shell})]

    def delta(self, text: str) -> list[bytes]:
        opened = [] if self.parts else [
            self._event("response.output_item.added", {"output_index": 0,
                                                       "item": _message_item(self.ids, "", "in_progress")}),
            self._event("response.content_part.added", {**self._where(), "part": _part("")})]
        self.parts.append(text)
        return [*opened, self._event("response.output_text.delta", {**self._where(), "delta": text, "logprobs": []})]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        text = "".join(self.parts)
        events = [] if not text else [
            self._event("response.output_text.done", {**self._where(), "text": text, "logprobs": []}),
            self._event("response.content_part.done", {**self._where(), "part": _part(text)}),
            self._event("response.output_item.done", {"output_index": 0,
                                                      "item": _message_item(self.ids, text, "completed")})]
        for index, call in enumerate(tool_calls, start=1 if text else 0):
            item, arguments = _call_item(call), call["function"]["arguments"]
            where = {"item_id": item["id"], "output_index": index}
            events += [self._event("response.output_item.added", {"output_index": index,
                                                                   "item": _call_item(call, "in_progress")}),
                       self._event("response.function_call_arguments.delta", {**where, "delta": arguments}),
                       self._event("response.function_call_arguments.done", {**where, "arguments": arguments}),
                       self._event("response.output_item.done", {"output_index": index, "item": item})]
        completed = response_object(self.ids, model, "completed", text, tokens, meta=meta, tool_calls=tool_calls)
        return [*events, self._event("response.completed", {"response": completed})]

    def error(self, message: str, kind: str) -> list[bytes]:
        failed = response_object(self.ids, self.model, "failed", None, None, {"code": kind, "message": message})
        return [self._event("error", {"code": kind, "message": message, "param": None}),
                self._event("response.failed", {"response": failed})]


class ResponsesWire:
    name = "responses"

    def parse(self, body: dict[str, Any]) -> WireRequest:
        return WireRequest.of(body, *responses_to_openai(body))

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        return response_object(_Ids(), model, "completed", text, tokens, meta=meta, tool_calls=tool_calls)

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return openai_error(message, kind)

    def encoder(self) -> StreamEncoder:
        return ResponsesStream()
