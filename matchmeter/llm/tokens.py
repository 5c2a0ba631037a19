"""The stub's deterministic token counter: an approximation of a BPE tokenizer, stable for equal input.

One token per started 4 characters of content (`ceil(len(text) / 4)`, the usual rule of thumb for
English with GPT-style tokenizers), plus 4 tokens of framing per chat message and 3 for priming the
assistant reply (the overhead OpenAI documents for its chat format). Only the stub server uses it;
real providers report their own counts, which the client reads from `usage`.
"""

from __future__ import annotations

import math
from typing import Any

PER_MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3


def count_text_tokens(text: str) -> int:
    """Tokens of one piece of text: ceil(chars / 4)."""
    return math.ceil(len(text) / 4)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts: keep the text parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def count_message_tokens(message: dict[str, Any]) -> int:
    return count_text_tokens(_content_text(message.get("content"))) + PER_MESSAGE_OVERHEAD


def count_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """Prompt tokens of a chat request: per-message content + framing, plus the reply priming."""
    return sum(count_message_tokens(m) for m in messages) + REPLY_PRIMING
