"""Kimi CLI (`kimi --print --output-format stream-json`, prompt on stdin): OpenAI-style messages.

Log (stdout, JSONL): `{"role":"assistant","content":…,"tool_calls":[{"id","function":{"name",
"arguments"(JSON text)}}]}`, `{"role":"tool","tool_call_id":…,"content":…}`, optional
`{"role":"meta",…}`. Print mode keeps token usage in its session files, not on stdout, so each
assistant message is a model call of unknown size: tokens 0 and cost null with that reason (never a
silent 0). If a message carries `usage` (OpenAI-shaped) or `model`, those are used.
"""

from __future__ import annotations

import json
from typing import Any

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    answer,
    json_lines,
    openai_usage,
)
from matchmeter.schema import Cost, Step

NO_USAGE = "kimi print mode reports no token usage on stdout"


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        return {"raw": raw}
    return value if isinstance(value, dict) else {"value": value}


class KimiAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="kimi",
        version="1.51.0",
        verified=False,
        approval_mode="yolo (implied by --print)",
        sandbox="none (matchmeter's sandbox is the boundary)",
        flags=("--print", "--output-format", "stream-json"),
        prompt_mode="stdin",
        env_vars=(),
        api_key_env="KIMI_API_KEY",
        model_flag="--model",
        model_prefix="strip",
        base_url_env="KIMI_BASE_URL",
        log_location="stdout",
        log_format="kimi --print stream-json JSONL (assistant/tool messages; no usage)",
        install=InstallSpec(kind="pypi", package="kimi-cli", version="1.51.0", executable="kimi"),
        blocked="kimi-cli needs Python >= 3.12 (Requires-Python of every version since 0.69) and the task image's "
                "Python is Debian bookworm's 3.11; matchmeter has no install kind that brings a newer one into the "
                "layer (bookworm packages none, PyPI ships no CPython, python-build-standalone and uv's Pythons "
                "come from GitHub). Tried by hand here: a PyInstaller bundle of kimi-cli 1.51.0 made with the "
                "host's Python 3.12 (174 MB, no Python in the image) runs `kimi --version` on docker and bwrap",
        notes="Pinned 1.51.0, the last working kimi-cli: 1.52.0, the newest on PyPI, is the archived package's "
              "deprecation stub (prints 'no longer maintained', points at Kimi Code CLI, exits 0), and Kimi Code CLI "
              "is not published on PyPI. Token usage is not on stdout: model calls carry a null cost with a reason.",
    )

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        log = LogReader()
        by_id: dict[str, Step] = {}
        for message in json_lines(text):
            role = message.get("role")
            if role == "assistant":
                usage = message.get("usage")
                log.call(str(message.get("model") or ""), openai_usage(usage),
                         cost=Cost() if usage else Cost(usd=None, null_reason=NO_USAGE))
                for tool in message.get("tool_calls") or []:
                    function = tool.get("function") or {}
                    args = _arguments(function.get("arguments"))
                    by_id[str(tool.get("id"))] = log.step(command=args.get("command"),
                                                          tool_call={"name": function.get("name"), "arguments": args})
                if isinstance(message.get("content"), str) and message["content"]:
                    log.final = message["content"]
            elif role == "tool":
                answered = by_id.pop(str(message.get("tool_call_id")), None)
                if answered is not None:
                    content = message.get("content")
                    answer(answered, content if isinstance(content, str) else json.dumps(content))
        return log.parsed()
