"""The sim personas' aider dialect: what an aider request looks like, and how a plan's commands become
shell blocks that aider runs.

aider (`--edit-format diff`, its EditBlockCoder) acts through two things in a reply: SEARCH/REPLACE edit
blocks and ```bash blocks, which it offers to run after the reply ("Run shell command?"). With
`--message` it answers one user message and exits: a later model call happens only when aider reflects
(a failed edit, a lint error), never after the shell commands ran. So the persona answers the whole plan
in its first reply, one ```bash block per command, and any later call with a reply that runs nothing.

aider runs each line of a shell block as its own command under /bin/sh (dash on Debian), where the bash
agent runs `bash -c <command>`. A command stays verbatim when dash runs it alike (one line, no bash-only
syntax, BASH_ONLY); otherwise it goes to bash unchanged: `bash -c '<command>'` for one line, and for a
multi-line command (a heredoc) `bash -c "$(printf '%s\\n' '<line 1>' '<line 2>' …)"`, which rebuilds the
command's lines exactly on one line of its own.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any

# aider's editblock system prompt; its reminder (appended to the user's last message) opens with this line.
AIDER_MARK = "*SEARCH/REPLACE block*"
AIDER_REMINDER = "# *SEARCH/REPLACE block* Rules:"
SIM_MARK = "(SIMULATED sim/"  # every persona reply carries it: an assistant message of ours, not aider's examples
# Syntax bash has and dash lacks or reads otherwise (dash's echo expands backslashes).
BASH_ONLY = re.compile(r"\[\[|\(\(|\$'|\$\"|[<>]\(|<<<|&>|\|&|\{[^{}\s]*(,|\.\.)[^{}\s]*\}|\$\{[!#]?\w+(//?|:|\^|,)"
                       r"|\b(pipefail|shopt|declare|local|mapfile|readarray|source|function|select)\b|\$RANDOM"
                       r"|\becho\b.*\\")


def is_aider(messages: Sequence[dict[str, Any]]) -> bool:
    """The request comes from aider's editblock coder (its system prompt)."""
    return any(m.get("role") == "system" and AIDER_MARK in str(m.get("content") or "") for m in messages)


def aider_line(command: str) -> str:
    """The command as one line that aider's /bin/sh runs as bash would run `command` (see the module doc)."""
    if "\n" not in command and not BASH_ONLY.search(command):
        return command
    if "\n" not in command:
        return f"bash -c {shlex.quote(command)}"
    lines = " ".join(shlex.quote(line) for line in command.split("\n"))
    return f"bash -c \"$(printf '%s\\n' {lines})\""


def _ours(message: dict[str, Any]) -> bool:
    return message.get("role") == "assistant" and SIM_MARK in str(message.get("content") or "")


def aider_turns(messages: Sequence[dict[str, Any]]) -> int:
    """Persona replies already in the conversation (aider's own example replies do not count)."""
    return sum(1 for m in messages if _ours(m))


def aider_description(messages: Sequence[dict[str, Any]]) -> str:
    """The prompt the adapter gave: the user message before the persona's first reply (the last user message
    before any), without the rules aider appends to it."""
    first = next((i for i, m in enumerate(messages) if _ours(m)), len(messages))
    users = [m for m in messages[:first] if m.get("role") == "user"]
    text = str(users[-1].get("content") or "") if users else ""
    at = text.rfind(AIDER_REMINDER)
    return (text[:at] if at >= 0 else text).strip()
