"""qwen-code (`qwen -p … --output-format json --yolo`): a JSON array of Claude-style messages.

Log (stdout): `[{"type":"system","subtype":"session_start","model":…}, {"type":"assistant","message":
{"id","model","content":[…],"usage":{input_tokens,output_tokens,cache_read_input_tokens?}}}, …,
{"type":"result","result":…,"usage":…}]` — the shapes of claude_code.py; qwen-code talks to
OpenAI-compatible endpoints, so its `input_tokens` already include the cached ones.
"""

from __future__ import annotations

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    ParsedLog,
    json_array_or_lines,
    npm_unchecked,
)
from matchmeter.runner.agents.adapters.claude_code import parse_message_events


class QwenCodeAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="qwen-code",
        version="0.24.4",
        verified=False,
        approval_mode="--yolo (every tool call approved)",
        sandbox="none (matchmeter's sandbox is the boundary)",
        flags=("--output-format", "json", "--yolo"),
        prompt_mode="argv",
        prompt_flag="-p",
        env_vars=(),
        api_key_env="OPENAI_API_KEY",
        model_flag="--model",
        model_prefix="strip",
        base_url_env="OPENAI_BASE_URL",
        log_location="stdout",
        log_format="qwen --output-format json (array of system/assistant/user/result messages)",
        install=InstallSpec(kind="npm", package="@qwen-code/qwen-code", version="0.24.4", executable="qwen"),
        notes=npm_unchecked("0.24.4", "0.2"),
    )

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        return parse_message_events(json_array_or_lines(text), input_includes_cached=True)
