"""The OpenAI Responses API (`POST /v1/responses`), which Codex CLI speaks.

Request: `instructions` (system text), `input` (a string, or a list of items: messages with a string
or `input_text`/`output_text` parts, `function_call`/`function_call_output` and
`custom_tool_call`/`custom_tool_call_output` items), `max_output_tokens`, `temperature`, `top_p`, and
`tools`. Tools go upstream as chat function tools (`ToolMap`): a function tool as it is; the function
and custom tools of a `namespace` group as `<namespace>__<name>`; a custom (freeform) tool such as
Codex's `apply_patch` as a function with one string argument `input` whose description carries the
tool's grammar. Built-in tools (web_search and the other hosted ones, tool_search) are not offered:
see ToolMap.add for why. With tools carried, calls in the history go upstream as an assistant
`tool_calls` message and their outputs as `tool` messages; without any, as readable text.

Reply: a `response` object whose output is the assistant message (when there is text) and one item
per tool call in the shape the request offered the tool: `function_call` (`arguments`, `namespace`
when it had one) or `custom_tool_call` (`input`); `usage` in the Responses shape (input tokens
include cached ones, output tokens include reasoning ones).

Streaming events, each with its `sequence_number`, in the order the real API sends them:
response.created, response.in_progress; at the first text delta response.output_item.added and
response.content_part.added, then response.output_text.delta per upstream delta; at the end
response.output_text.done, response.content_part.done, response.output_item.done for the message,
then for each tool call response.output_item.added, response.function_call_arguments.delta/.done
(response.custom_tool_call_input.delta/.done for a custom tool), response.output_item.done; last
response.completed (the whole response with usage). A stream that breaks off ends with `error` and
response.failed. Stored responses (`previous_response_id`) and reasoning items are not served.
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


class ToolMap:
    """What the request's tools became upstream, so the model's calls go back in the request's own shape.

    Upstream (OpenAI chat) function name → (kind, the tool's own name, its namespace or None). A function
    tool keeps its name; a tool of a `namespace` group is `<namespace>__<name>` upstream (chat function names
    allow no dots); a custom (freeform) tool is a function with one string argument `input`."""

    def __init__(self) -> None:
        self.chat_tools: list[dict[str, Any]] = []
        self.names: dict[str, tuple[str, str, str | None]] = {}
        self.skipped: list[str] = []

    def add(self, tool: dict[str, Any], namespace: str | None = None) -> None:
        kind, name = tool.get("type"), str(tool.get("name") or "")
        if kind not in ("function", "custom") or not name:
            # Built-in (hosted) tools such as web_search, file_search or code_interpreter run on OpenAI's servers:
            # no chat model behind the gateway can execute them, and the sandbox reaches no web anyway.
            # tool_search answers with new tool definitions mid-conversation (deferred loading), which a chat
            # request cannot take. The model is simply not offered them.
            self.skipped.append(str(kind if not name else f"{kind}:{name}"))
            return
        upstream = f"{namespace}__{name}" if namespace else name
        self.names[upstream] = (str(kind), name, namespace)
        if kind == "function":
            function = {k: tool[k] for k in ("description", "parameters", "strict") if tool.get(k) is not None}
        else:
            function = {"description": str(tool.get("description") or ""),
                        "parameters": {"type": "object", "required": ["input"], "additionalProperties": False,
                                       "properties": {"input": {"type": "string", "description": _format_note(tool)}}}}
        self.chat_tools.append({"type": "function", "function": {"name": upstream, **function}})

    def upstream_name(self, name: str, namespace: Any = None) -> str:
        return f"{namespace}__{name}" if namespace else name

    def item(self, call: dict[str, Any], status: str = "completed") -> dict[str, Any]:
        """The Responses output item of one upstream tool call (a name the request did not offer: a function)."""
        function = call["function"]
        kind, name, namespace = self.names.get(function["name"], ("function", function["name"], None))
        done = status == "completed"
        if kind == "custom":
            item = {"type": "custom_tool_call", "id": f"ctc_{call['id']}", "call_id": call["id"], "name": name,
                    "input": _custom_input(function["arguments"]) if done else ""}
        else:
            item = {"type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"], "name": name,
                    "arguments": function["arguments"] if done else "", "status": status}
        if namespace:
            item["namespace"] = namespace
        return item


def _format_note(tool: dict[str, Any]) -> str:
    """The freeform tool's input format, told to a model that can only fill a string argument."""
    fmt = tool.get("format")
    fmt = fmt if isinstance(fmt, dict) else {}
    if fmt.get("type") == "grammar":
        return (f"The raw input, not JSON-encoded inside; it must match this {fmt.get('syntax', '')} grammar:\n"
                f"{fmt.get('definition', '')}")
    return "The raw input (free text)."


def _custom_input(arguments: str) -> str:
    """A custom tool's input out of the upstream's arguments: the `input` string, else the arguments as they are."""
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        return arguments
    return parsed["input"] if isinstance(parsed, dict) and isinstance(parsed.get("input"), str) else arguments


def request_tools(body: dict[str, Any]) -> ToolMap:
    """The request's function and custom tools, those of namespace groups included, as chat tools."""
    tools = ToolMap()
    listed = body.get("tools")
    for tool in listed if isinstance(listed, list) else []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            for inner in tool["tools"]:
                if isinstance(inner, dict):
                    tools.add(inner, str(tool.get("name") or "") or None)
        else:
            tools.add(tool)
    return tools


def _output_text(output: Any) -> str:
    return output if isinstance(output, str) else content_text(output) if isinstance(output, list) else json.dumps(output)


def _tool_call(messages: list[dict[str, Any]], call: dict[str, Any]) -> None:
    last = messages[-1] if messages else None
    if last is not None and last["role"] == "assistant" and last.get("tool_calls"):
        last["tool_calls"].append(call)  # parallel calls of one turn: one assistant message
    else:
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})


def _append_item(messages: list[dict[str, Any]], item: dict[str, Any], tools: ToolMap | None) -> None:
    """One input item as chat messages; `tools` None: no tool is carried, so tool traffic becomes text."""
    kind = item.get("type", "message")
    call_id = str(item.get("call_id") or item.get("id") or "")
    if kind == "message" or "role" in item:
        role = str(item.get("role", "user"))
        messages.append({"role": "system" if role == "developer" else role, "content": content_text(item.get("content"))})
    elif kind in ("function_call", "custom_tool_call") and tools is not None:
        name = tools.upstream_name(str(item.get("name", "")), item.get("namespace"))
        arguments = (str(item.get("arguments") or "") if kind == "function_call"
                     else json.dumps({"input": str(item.get("input") or "")}))
        _tool_call(messages, {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
    elif kind in ("function_call_output", "custom_tool_call_output") and tools is not None:
        messages.append({"role": "tool", "tool_call_id": call_id, "content": _output_text(item.get("output"))})
    elif kind in ("function_call", "custom_tool_call"):
        shown = item.get("arguments") if kind == "function_call" else item.get("input")
        messages.append({"role": "assistant", "content": f"[{kind} {item.get('name')}: {shown}]"})
    elif kind in ("function_call_output", "custom_tool_call_output"):
        messages.append({"role": "user", "content": f"[{kind}: {_output_text(item.get('output'))}]"})
    # reasoning, tool_search and other items carry nothing the upstream chat call can use


def responses_to_openai(body: dict[str, Any], tools: ToolMap | None = None
                        ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Responses request → (OpenAI chat messages, sampling). Raises ValueError when `input` is unusable."""
    raw = body.get("input")
    tools = tools or request_tools(body)
    carried = tools if tools.chat_tools else None
    messages: list[dict[str, Any]] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": content_text(body["instructions"])})
    if isinstance(raw, str):
        messages.append({"role": "user", "content": raw})
    elif isinstance(raw, list):
        for item in raw:
            if not isinstance(item, dict):
                raise ValueError("every `input` item must be an object")
            _append_item(messages, item, carried)
    else:
        raise ValueError("request body must be a JSON object with an `input` string or list")
    if not any(m["role"] != "system" for m in messages):
        raise ValueError("`input` holds no message")
    sampling: dict[str, Any] = {k: body[k] for k in ("temperature", "top_p") if body.get(k) is not None}
    if body.get("max_output_tokens") is not None:
        sampling["max_tokens"] = body["max_output_tokens"]
    if carried is not None:
        sampling["tools"] = carried.chat_tools
        choice = body.get("tool_choice")
        if choice in ("auto", "none", "required"):
            sampling["tool_choice"] = choice
        elif isinstance(choice, dict) and choice.get("type") in ("function", "custom") and choice.get("name"):
            name = carried.upstream_name(str(choice["name"]), choice.get("namespace"))
            sampling["tool_choice"] = {"type": "function", "function": {"name": name}}
        if body.get("parallel_tool_calls") is not None:
            sampling["parallel_tool_calls"] = body["parallel_tool_calls"]
    return messages, sampling


class _Ids:
    def __init__(self) -> None:
        self.response, self.message = f"resp_mm{uuid.uuid4().hex[:24]}", f"msg_mm{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())


def response_object(ids: _Ids, model: str, status: str, text: str | None, tokens: TokenUsage | None,
                    error: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
                    tool_calls: Sequence[dict[str, Any]] = NO_TOOLS, tools: ToolMap | None = None) -> dict[str, Any]:
    output = [_message_item(ids, text, "completed")] if text else []
    output += [(tools or ToolMap()).item(c) for c in tool_calls]
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
    def __init__(self, tools: ToolMap | None = None) -> None:
        self.ids, self.seq, self.model = _Ids(), 0, ""
        self.parts: list[str] = []
        self.tools = tools or ToolMap()

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

    def _call_events(self, index: int, call: dict[str, Any]) -> list[bytes]:
        """One tool call as the real stream sends it: the item added, its arguments (a custom tool's input)
        as one delta and done, the item done."""
        item = self.tools.item(call)
        where = {"item_id": item["id"], "output_index": index}
        events = [self._event("response.output_item.added", {"output_index": index,
                                                             "item": self.tools.item(call, "in_progress")})]
        if item["type"] == "custom_tool_call":
            events += [self._event("response.custom_tool_call_input.delta", {**where, "delta": item["input"]}),
                       self._event("response.custom_tool_call_input.done", {**where, "input": item["input"]})]
        else:
            events += [self._event("response.function_call_arguments.delta", {**where, "delta": item["arguments"]}),
                       self._event("response.function_call_arguments.done", {**where, "arguments": item["arguments"]})]
        return [*events, self._event("response.output_item.done", {"output_index": index, "item": item})]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        text = "".join(self.parts)
        events = [] if not text else [
            self._event("response.output_text.done", {**self._where(), "text": text, "logprobs": []}),
            self._event("response.content_part.done", {**self._where(), "part": _part(text)}),
            self._event("response.output_item.done", {"output_index": 0,
                                                      "item": _message_item(self.ids, text, "completed")})]
        for index, call in enumerate(tool_calls, start=1 if text else 0):
            events += self._call_events(index, call)
        completed = response_object(self.ids, model, "completed", text, tokens, meta=meta, tool_calls=tool_calls,
                                    tools=self.tools)
        return [*events, self._event("response.completed", {"response": completed})]

    def error(self, message: str, kind: str) -> list[bytes]:
        failed = response_object(self.ids, self.model, "failed", None, None, {"code": kind, "message": message})
        return [self._event("error", {"code": kind, "message": message, "param": None}),
                self._event("response.failed", {"response": failed})]


class ResponsesWire:
    """One per request (the gateway makes a new one for each): `parse` keeps the request's tools, so its
    reply names each tool call as the request offered it."""

    name = "responses"

    def __init__(self) -> None:
        self.tools = ToolMap()

    def parse(self, body: dict[str, Any]) -> WireRequest:
        self.tools = request_tools(body)
        return WireRequest.of(body, *responses_to_openai(body, self.tools))

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        return response_object(_Ids(), model, "completed", text, tokens, meta=meta, tool_calls=tool_calls,
                               tools=self.tools)

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return openai_error(message, kind)

    def encoder(self) -> StreamEncoder:
        return ResponsesStream(self.tools)
