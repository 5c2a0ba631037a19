"""The one reader of token usage: an endpoint's or a CLI's counts turned into our four disjoint classes.

OpenAI-shaped usage counts inclusively (`prompt_tokens` includes `prompt_tokens_details.cached_tokens`,
`completion_tokens` includes `completion_tokens_details.reasoning_tokens`); `TokenUsage` keeps the parts
apart. What an endpoint or a CLI's log reports is not trusted: a count that is missing, negative or not a
number is 0, and a part larger than its total is capped at it, so no class is ever negative. The LM client
(litellm's objects), the gateway's client (the gateway's JSON) and the CLI adapters' log parsers all read
usage here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from matchmeter.schema import TokenUsage


def field(obj: Any, name: str) -> Any:
    """`obj[name]` for a dict, `obj.name` for an object (litellm's response types), None when absent."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def as_int(value: Any) -> int:
    """A reported count: 0 when missing, negative or not a number."""
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


def inclusive_usage(prompt: int, cached: int, completion: int, reasoning: int) -> TokenUsage:
    """Totals that include their parts (prompt: cached; completion: reasoning) → our disjoint classes; a
    part larger than its total is capped at it."""
    prompt, cached, completion, reasoning = (max(n, 0) for n in (prompt, cached, completion, reasoning))
    cached, reasoning = min(cached, prompt), min(reasoning, completion)
    return TokenUsage(input=prompt - cached, cached_input=cached, output=completion - reasoning, reasoning=reasoning)


class Usage(NamedTuple):
    tokens: TokenUsage
    reported: bool  # the endpoint reported some tokens (else its cost is unknown, never 0)


def read_openai_usage(usage: Any) -> Usage:
    """An OpenAI-shaped `usage` (dict or object) → token classes, and whether any usage was reported."""
    prompt, completion = as_int(field(usage, "prompt_tokens")), as_int(field(usage, "completion_tokens"))
    tokens = inclusive_usage(prompt, as_int(field(field(usage, "prompt_tokens_details"), "cached_tokens")),
                             completion, as_int(field(field(usage, "completion_tokens_details"), "reasoning_tokens")))
    return Usage(tokens, usage is not None and prompt + completion > 0)


def openai_usage(usage: Any) -> TokenUsage:
    """An OpenAI-shaped `usage` (dict, object or None) → our classes."""
    return read_openai_usage(usage).tokens
