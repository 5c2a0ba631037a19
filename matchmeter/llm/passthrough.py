"""Gateway pass-through, the protocol side: when a request may go upstream as it is, where, and what the reply says.

The gateway forwards an agent's request unchanged (but for `model`) when the upstream speaks the agent's
protocol (`speaks`):
    openai/<m>, stub/<m>, sim/<m>   OpenAI chat completions; OpenAI Responses too when the endpoint is OpenAI's
                                    own (no api_base) or `Upstream.upstream_responses` says the server serves it
    anthropic/<m>                   Anthropic messages
Every other pairing (a Responses agent on a chat-only server, Gemini, providers litellm adapts) is translated
by litellm as before.

What cannot be steered by the agent (`Route`): the URL is the endpoint's base plus the protocol's fixed path
(the request's path and query are never used), the headers are built here (content type, the endpoint's own
key from its environment variable, and for Anthropic the `anthropic-version`/`anthropic-beta` the agent
chose), so the agent's Authorization / x-api-key (the gateway token) never leaves the gateway, and `model`
is replaced by the configured one.

`ReplyReader` reads what metering needs from the upstream's reply (JSON, or SSE events fed as they pass):
the text and OpenAI-shaped tool calls (for the cache record, the same record `LMClient` stores), the model
that answered and the usage. A plain reply without usage is "not reported" (cost unknown, never 0), as
litellm leaves it; a stream without usage is counted by `estimate_stream_usage`, as litellm does today.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from matchmeter.errors import UserError
from matchmeter.llm.client import import_litellm
from matchmeter.llm.faults import MalformedReply
from matchmeter.llm.usage import as_int, inclusive_usage, read_openai_usage
from matchmeter.llm.usage import field as _get
from matchmeter.schema import TokenUsage

OPENAI_BASE = "https://api.openai.com/v1"
ANTHROPIC_BASE = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
OPENAI_PROVIDERS = ("openai", "stub", "sim")
AGENT_HEADERS = ("anthropic-version", "anthropic-beta")  # protocol choices, never credentials
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
NO_KEY_PLACEHOLDER = "sk-matchmeter-no-key"  # as LMClient: local servers ignore it, the SDKs insist on one


def speaks(model: str, api_base: str | None, responses: bool | None = None) -> frozenset[str]:
    """The gateway wires (GatewayCall.api) the upstream of `model` answers natively."""
    provider, _, name = model.partition("/")
    if not name:
        return frozenset()  # a bare name: litellm guesses the provider, so it keeps the call
    if provider in ("stub", "sim"):
        return frozenset({"openai"})
    if provider == "openai":
        native = responses if responses is not None else api_base is None
        return frozenset({"openai", "responses"} if native else {"openai"})
    if provider == "anthropic":
        return frozenset({"anthropic"})
    return frozenset()


def upstream_model(model: str) -> str:
    """The name sent upstream: litellm's, i.e. without the provider prefix (stub/ and sim/ names are whole)."""
    provider, _, name = model.partition("/")
    return model if provider in ("stub", "sim") else name


@dataclass(frozen=True)
class Route:
    url: str
    headers: dict[str, str]
    model: str

    def __repr__(self) -> str:  # never the key
        return f"Route({self.url}, model={self.model})"


def api_key(api: str, api_base: str | None, key_env: str | None, model: str) -> str:
    """The endpoint's key: the named variable (UserError when unset), else the provider's usual variable for its
    default endpoint, else the placeholder a local server ignores."""
    name = key_env or (None if api_base else DEFAULT_KEY_ENV[api])
    if name is None:
        return NO_KEY_PLACEHOLDER
    value = os.environ.get(name)
    if not value:
        raise UserError(f"environment variable {name} is not set", f"model {model}", f"export {name}=<your key>")
    return value


def route(api: str, model: str, api_base: str | None, key_env: str | None,
          agent_headers: Any = None) -> Route:
    """Where and how one request of wire `api` goes. Raises UserError when the key's variable is unset."""
    key = api_key(api, api_base, key_env, model)
    headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
    if api == "anthropic":
        base = (api_base or ANTHROPIC_BASE).rstrip("/")
        url = base if base.endswith("/v1/messages") else base + ("/messages" if base.endswith("/v1") else "/v1/messages")
        headers.update({"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION})
        for name in AGENT_HEADERS:
            value = agent_headers.get(name) if agent_headers is not None else None
            if value and "\n" not in value and "\r" not in value:
                headers[name] = value
    else:
        base = (api_base or OPENAI_BASE).rstrip("/")
        url = base + ("/chat/completions" if api == "openai" else "/responses")
        headers["Authorization"] = f"Bearer {key}"
    return Route(url, headers, upstream_model(model))


def upstream_body(api: str, body: dict[str, Any], model: str) -> bytes:
    """The agent's request for the upstream: the configured model; a chat stream asks for its usage chunk
    (as LMClient.stream did: the gateway meters from it)."""
    out = {**body, "model": model}
    if api == "openai" and out.get("stream"):
        options = out.get("stream_options")
        out["stream_options"] = {**(options if isinstance(options, dict) else {}), "include_usage": True}
    return json.dumps(out).encode()


def cache_extras(api: str, body: dict[str, Any], carried: set[str]) -> dict[str, Any]:
    """What the forwarded request holds beyond the parsed messages and sampling, for the cache key: a chat
    request's other top-level fields (response_format, reasoning_effort, ...); for Anthropic and Responses the
    whole request (their parse is lossy), so two requests that differ upstream never share a reply. Empty for a
    plain chat request, whose key is then exactly LMClient's."""
    ignored = {"model", "stream", "stream_options"}
    if api == "openai":
        extra = {k: v for k, v in body.items() if k not in ignored and k not in carried}
        return {"passthrough_extra": extra} if extra else {}
    return {"passthrough_request": {k: v for k, v in body.items() if k not in ignored}}


# ---------------------------------------------------------------------- replies


def tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {"id": str(call_id or ""), "type": "function",
            "function": {"name": str(name or ""), "arguments": arguments if isinstance(arguments, str)
                         else json.dumps(arguments if arguments is not None else {})}}


def anthropic_tokens(usage: Any) -> tuple[TokenUsage, bool]:
    """Anthropic usage as litellm counts it: prompt = input + cache read + cache creation, of which cache read
    is cached; completion = output."""
    read, made = as_int(_get(usage, "cache_read_input_tokens")), as_int(_get(usage, "cache_creation_input_tokens"))
    prompt, completion = as_int(_get(usage, "input_tokens")) + read + made, as_int(_get(usage, "output_tokens"))
    return inclusive_usage(prompt, read, completion, 0), usage is not None and prompt + completion > 0


def responses_tokens(usage: Any) -> tuple[TokenUsage, bool]:
    prompt, completion = as_int(_get(usage, "input_tokens")), as_int(_get(usage, "output_tokens"))
    tokens = inclusive_usage(prompt, as_int(_get(_get(usage, "input_tokens_details"), "cached_tokens")),
                             completion, as_int(_get(_get(usage, "output_tokens_details"), "reasoning_tokens")))
    return tokens, usage is not None and prompt + completion > 0


@dataclass
class ReplyReader:
    """What one upstream reply says, read from its JSON body (`read_json`) or its SSE events (`feed`, then
    `finish`). `broken` holds the reason when the stream carried an error event or ended unfinished."""

    api: str
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    model: str | None = None
    usage: Any = None
    anthropic_usage: dict[str, Any] = field(default_factory=dict)
    done: bool = False
    broken: str | None = None
    _buffer: bytes = b""
    _calls_sent: bool = False

    # ---------------------------------------------------------------- results

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [self.calls[i] for i in sorted(self.calls)]

    def tokens(self) -> tuple[TokenUsage, bool]:
        if self.api == "anthropic":
            return anthropic_tokens(self.anthropic_usage or None)
        if self.api == "responses":
            return responses_tokens(self.usage)
        return tuple(read_openai_usage(self.usage))  # type: ignore[return-value]

    # ---------------------------------------------------------------- JSON

    def read_json(self, raw: bytes) -> dict[str, Any]:
        """Parse a plain reply. Raises MalformedReply (retried like a 5xx) when it is not one."""
        try:
            body = json.loads(raw)
        except ValueError:
            raise MalformedReply(f"the reply is not JSON: {raw[:120]!r}") from None
        if not isinstance(body, dict):
            raise MalformedReply("the reply is not a JSON object")
        self.model = str(body["model"]) if body.get("model") else None
        if self.api == "openai":
            choices = body.get("choices")
            if not choices or not isinstance(choices, list):
                raise MalformedReply("no choices in the response")
            message = _get(choices[0], "message") or {}
            content = message.get("content")
            if content is not None and not isinstance(content, str):
                raise MalformedReply(f"message content is {type(content).__name__}, not text")
            self.text = [content or ""]
            for i, call in enumerate(message.get("tool_calls") or []):
                function = _get(call, "function") or {}
                self.calls[i] = tool_call(_get(call, "id"), function.get("name"), function.get("arguments"))
            self.usage = body.get("usage")
        elif self.api == "anthropic":
            if body.get("type") != "message" or not isinstance(body.get("content"), list):
                raise MalformedReply("not an Anthropic message")
            self._anthropic_blocks(body["content"])
            self.anthropic_usage = body.get("usage") or {}
        else:
            if body.get("object") != "response":
                raise MalformedReply("not a Responses API response")
            self._response_object(body)
        self.done = True
        return body

    def _anthropic_blocks(self, blocks: list[Any]) -> None:
        for block in blocks:
            if _get(block, "type") == "text":
                self.text.append(str(block.get("text") or ""))
            elif _get(block, "type") == "tool_use":
                self.calls[len(self.calls)] = tool_call(block.get("id"), block.get("name"), block.get("input"))

    def _response_object(self, response: dict[str, Any]) -> None:
        self.model = str(response["model"]) if response.get("model") else self.model
        self.usage = response.get("usage")
        for item in response.get("output") or []:
            kind = _get(item, "type")
            if kind == "message":
                self.text += [str(p.get("text") or "") for p in item.get("content") or []
                              if isinstance(p, dict) and p.get("type") == "output_text"]
            elif kind in ("function_call", "custom_tool_call"):
                name = f"{item['namespace']}__{item.get('name')}" if item.get("namespace") else item.get("name")
                arguments = item.get("arguments") if kind == "function_call" else {"input": item.get("input") or ""}
                self.calls[len(self.calls)] = tool_call(item.get("call_id"), name, arguments)

    # ---------------------------------------------------------------- SSE

    def feed(self, chunk: bytes) -> list[bytes]:
        """Read the complete events of the bytes seen so far; return them for the agent, unchanged but for a
        chat stream's tool-call fragments, which are held and sent whole, in one chunk before the finish chunk
        (as the translated path always sent them)."""
        self._buffer += chunk
        if b"\n\n" not in self._buffer and b"\r\n\r\n" not in self._buffer:
            return []
        events = self._buffer.replace(b"\r\n", b"\n").split(b"\n\n")
        self._buffer = events.pop()
        out: list[bytes] = []
        for event in events:
            if not event.strip():
                continue
            data = b"\n".join(line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:"))
            parsed: Any = None
            if data.strip() == b"[DONE]":
                self.done = True
            elif data:
                try:
                    parsed = json.loads(data)
                except ValueError:
                    self.broken = f"an event that is not JSON: {data[:80]!r}"
            if isinstance(parsed, dict):
                self._event(parsed)
                out += self._relay_chat(parsed, event) if self.api == "openai" else [event + b"\n\n"]
            else:
                out.append(event + b"\n\n")
        return out

    def _relay_chat(self, chunk: dict[str, Any], raw: bytes) -> list[bytes]:
        choices = chunk.get("choices") or []
        fragments = any(isinstance(c, dict) and (c.get("delta") or {}).get("tool_calls") for c in choices)
        finishing = any(isinstance(c, dict) and c.get("finish_reason") for c in choices)
        out: list[bytes] = []
        if fragments:  # held: the fragments are merged by _chat_chunk; the rest of the chunk still goes
            rest = [{**c, "delta": {k: v for k, v in c["delta"].items() if k != "tool_calls"}} for c in choices]
            if any(c["delta"] or c.get("finish_reason") for c in rest):
                out.append(b"data: " + json.dumps({**chunk, "choices": rest}).encode() + b"\n\n")
        else:
            out.append(raw + b"\n\n")
        if finishing and self.calls and not self._calls_sent:
            self._calls_sent = True
            calls = [{"index": i, **self.calls[i]} for i in sorted(self.calls)]
            whole = {**{k: v for k, v in chunk.items() if k not in ("choices", "usage")},
                     "choices": [{"index": 0, "delta": {"tool_calls": calls}, "finish_reason": None}]}
            out.insert(len(out) - 1, b"data: " + json.dumps(whole).encode() + b"\n\n")
        return out

    def finish(self) -> list[bytes]:
        """The stream ended: it is broken unless it said it was complete. Returns its last unterminated event."""
        out = self.feed(b"\n\n")
        if not self.done and self.broken is None:
            self.broken = "the stream ended before its final event"
        return out

    def _event(self, event: dict[str, Any]) -> None:
        if self.api == "openai":
            self._chat_chunk(event)
        elif self.api == "anthropic":
            self._anthropic_event(event)
        else:
            self._responses_event(event)

    def _chat_chunk(self, chunk: dict[str, Any]) -> None:
        if chunk.get("error") is not None:
            self.broken = f"the upstream sent an error: {json.dumps(chunk['error'])[:200]}"
            return
        self.model = self.model or (str(chunk["model"]) if chunk.get("model") else None)
        self.usage = chunk.get("usage") or self.usage
        for choice in chunk.get("choices") or []:
            delta = _get(choice, "delta") or {}
            if delta.get("content"):
                self.text.append(str(delta["content"]))
            for fragment in delta.get("tool_calls") or []:
                index = as_int(_get(fragment, "index"))
                function = _get(fragment, "function") or {}
                call = self.calls.setdefault(index, tool_call(None, None, ""))
                call["id"] = call["id"] or str(_get(fragment, "id") or "")
                call["function"]["name"] = call["function"]["name"] or str(function.get("name") or "")
                call["function"]["arguments"] += str(function.get("arguments") or "")

    def _anthropic_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.model = str(message["model"]) if message.get("model") else self.model
            self.anthropic_usage.update({k: v for k, v in (message.get("usage") or {}).items() if v is not None})
        elif kind == "content_block_start":
            block = event.get("content_block") or {}
            if block.get("type") == "tool_use":
                self.calls[as_int(event.get("index"))] = tool_call(block.get("id"), block.get("name"), "")
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta":
                self.text.append(str(delta.get("text") or ""))
            elif delta.get("type") == "input_json_delta" and as_int(event.get("index")) in self.calls:
                self.calls[as_int(event.get("index"))]["function"]["arguments"] += str(delta.get("partial_json") or "")
        elif kind == "message_delta":  # cumulative counts: the latest wins
            self.anthropic_usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            self.broken = f"the upstream sent an error: {json.dumps(event.get('error'))[:200]}"

    def _responses_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in ("response.completed", "response.incomplete"):
            self._response_object(event.get("response") or {})
            self.done = True
        elif kind in ("error", "response.failed"):
            self.broken = f"the upstream sent {kind}: {json.dumps(event)[:200]}"
        elif kind == "response.created":
            response = event.get("response") or {}
            self.model = str(response["model"]) if response.get("model") else self.model


def estimate_stream_usage(model: str, messages: list[dict[str, Any]], text: str) -> dict[str, Any]:
    """A stream that reported no usage is counted the way litellm counts it (its token_counter over the prompt
    and the reply), so a pass-through stream is metered as the translated one was. Imports litellm: call it off
    the event loop."""
    litellm = import_litellm()
    try:
        prompt = litellm.token_counter(model=model, messages=messages)
    except Exception:  # noqa: BLE001 - litellm falls back to 0 too
        prompt = 0
    completion = litellm.token_counter(model=model, text=text, count_response_tokens=True) if text else 0
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
