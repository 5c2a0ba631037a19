"""What the stub server answers: one scripted reply, or a fault in its place.

Below both the stub server (which serves replies) and the sim personas (which make them), so neither
imports the other for the type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FAULTS = ("429", "500", "502", "503", "504", "timeout", "malformed", "no_choices", "stream_cut")


@dataclass
class StubReply:
    """One scripted answer. `cache_prefix` reports every message but the last as cached input."""

    text: str = ""
    model: str | None = None
    fault: str | None = None
    cached_tokens: int = 0
    cache_prefix: bool = False
    reasoning_tokens: int = 0
    delay_s: float = 0.0
    simulated: bool = False
    chunk_delay_s: float = 0.0
    hold: bool = False
    tool_calls: list[dict[str, Any]] | None = None  # OpenAI-shaped; streamed in fragments

    @classmethod
    def coerce(cls, item: str | dict[str, Any] | StubReply) -> StubReply:
        if isinstance(item, StubReply):
            return item
        if isinstance(item, str):
            return cls(text=item)
        reply = cls(**item)
        if reply.fault is not None and str(reply.fault) not in FAULTS:
            raise ValueError(f"unknown stub fault {reply.fault!r}; choose one of {', '.join(FAULTS)}")
        reply.fault = None if reply.fault is None else str(reply.fault)
        return reply
