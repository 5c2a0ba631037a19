"""The Gemini API (`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`).

Request: `contents` (turns of role `user` or `model`, each a list of `parts`; `text` parts are carried,
`functionCall` / `functionResponse` parts become readable text), `systemInstruction`, and
`generationConfig` (temperature, topP, maxOutputTokens, stopSequences, seed). The model and whether
to stream come from the path. Reply: a `GenerateContentResponse` with one candidate and
`usageMetadata` (promptTokenCount includes cachedContentTokenCount; thoughtsTokenCount is reasoning,
candidatesTokenCount the visible output). Streamed, every SSE `data:` line is such a response carrying
one delta; the last one has `finishReason` STOP and the usage. Errors use Google's shape
`{"error": {"code", "message", "status"}}`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from matchmeter.llm.gateway_wire import NO_TOOLS, StreamEncoder, WireRequest, sse
from matchmeter.schema import TokenUsage

GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 402: "RESOURCE_EXHAUSTED", 404: "NOT_FOUND",
                 500: "INTERNAL", 502: "INTERNAL", 503: "UNAVAILABLE"}


def _part_text(part: Any) -> str:
    if not isinstance(part, dict):
        return ""
    if "text" in part and not part.get("thought"):
        return str(part["text"])
    if "functionCall" in part:
        call = part["functionCall"] or {}
        return f"[functionCall {call.get('name')}: {json.dumps(call.get('args'))}]"
    if "functionResponse" in part:
        answer = part["functionResponse"] or {}
        return f"[functionResponse {answer.get('name')}: {json.dumps(answer.get('response'))}]"
    return ""


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content.get("parts") if isinstance(content, dict) else None
    return "".join(_part_text(p) for p in parts) if isinstance(parts, list) else ""


def gemini_to_openai(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A generateContent request → (OpenAI chat messages, sampling). Raises ValueError when unusable."""
    contents = body.get("contents")
    if not isinstance(contents, list):
        raise ValueError("request body must be a JSON object with a `contents` list")
    messages: list[dict[str, Any]] = []
    system = _parts_text(body.get("systemInstruction") or body.get("system_instruction"))
    if system:
        messages.append({"role": "system", "content": system})
    for turn in contents:
        if not isinstance(turn, dict):
            raise ValueError("every `contents` item must be an object")
        role = "assistant" if turn.get("role") == "model" else "user"
        messages.append({"role": role, "content": _parts_text(turn)})
    config = body.get("generationConfig") or body.get("generation_config") or {}
    sampling: dict[str, Any] = {}
    for ours, theirs in (("temperature", "temperature"), ("top_p", "topP"), ("max_tokens", "maxOutputTokens"),
                         ("stop", "stopSequences"), ("seed", "seed")):
        if isinstance(config, dict) and config.get(theirs) is not None:
            sampling[ours] = config[theirs]
    return messages, sampling


def usage_metadata(tokens: TokenUsage) -> dict[str, Any]:
    prompt = tokens.input + tokens.cached_input
    return {"promptTokenCount": prompt, "cachedContentTokenCount": tokens.cached_input,
            "candidatesTokenCount": tokens.output, "thoughtsTokenCount": tokens.reasoning,
            "totalTokenCount": prompt + tokens.output + tokens.reasoning}


def _response(text: str, model: str, ident: str, finish: bool, tokens: TokenUsage | None = None,
              meta: dict[str, Any] | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if finish:
        candidate["finishReason"] = "STOP"
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": ident}
    if tokens is not None:
        body["usageMetadata"] = usage_metadata(tokens)
    if meta is not None:
        body["matchmeter"] = meta
    return body


def gemini_error(message: str, kind: str, status: int) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "status": GOOGLE_STATUS.get(status, "INTERNAL"),
                      "details": [{"reason": kind}]}}


class GeminiStream:
    def __init__(self) -> None:
        self.ident, self.model = f"mm{uuid.uuid4().hex[:20]}", ""

    def start(self, model: str) -> list[bytes]:
        self.model = model
        return []

    def delta(self, text: str) -> list[bytes]:
        return [sse(_response(text, self.model, self.ident, finish=False))]

    def finish(self, model: str, tokens: TokenUsage, meta: dict[str, Any],
               tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> list[bytes]:
        return [sse(_response("", model, self.ident, finish=True, tokens=tokens, meta=meta))]

    def error(self, message: str, kind: str) -> list[bytes]:
        return [sse(gemini_error(message, kind, 502))]


class GeminiWire:
    """`stream` is decided by the route (`:streamGenerateContent`), so the gateway passes it in."""

    name = "gemini"

    def __init__(self, model: str, stream: bool) -> None:
        self.model, self.stream = model, stream

    def parse(self, body: dict[str, Any]) -> WireRequest:
        messages, sampling = gemini_to_openai(body)
        return WireRequest(messages, sampling, self.stream, self.model)

    def reply(self, text: str, model: str, tokens: TokenUsage, meta: dict[str, Any],
              tool_calls: Sequence[dict[str, Any]] = NO_TOOLS) -> dict[str, Any]:
        return _response(text, model, f"mm{uuid.uuid4().hex[:20]}", finish=True, tokens=tokens, meta=meta)

    def error(self, message: str, kind: str, status: int) -> dict[str, Any]:
        return gemini_error(message, kind, status)

    def encoder(self) -> StreamEncoder:
        return GeminiStream()
