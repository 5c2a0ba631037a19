"""Gemini CLI (`gemini -p … --output-format json --yolo`): one JSON object with per-model token stats.

Log (stdout): `{"response": …, "stats": {"models": {"<model>": {"api": {"totalRequests", …},
"tokens": {"prompt", "candidates", "total", "cached", "thoughts", "tool"}}}, "tools": {"totalCalls",
"byName": {"<tool>": {"count", "success", "fail", …}}}, "files": …}, "error"?: …}`. Each model key is
a reported model and becomes one (aggregated) model call: `prompt` includes `cached` (Gemini's
promptTokenCount does); `candidates` is visible output; `thoughts` is reasoning. The JSON names tools
only by count, so steps are tool calls without commands or outputs.
"""

from __future__ import annotations

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    ParsedLog,
    as_int,
    inclusive_usage,
    last_json_object,
    npm_unchecked,
)
from matchmeter.schema import ModelCall, Step


class GeminiCliAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="gemini-cli",
        version="0.61.0",
        verified=False,
        approval_mode="--yolo (every tool call approved)",
        sandbox="none (--sandbox off; matchmeter's sandbox is the boundary)",
        flags=("--output-format", "json", "--yolo"),
        prompt_mode="argv",
        prompt_flag="-p",
        env_vars=(),
        api_key_env="GEMINI_API_KEY",
        model_flag="--model",
        model_prefix="strip",
        base_url_env="GOOGLE_GEMINI_BASE_URL",
        log_location="stdout",
        wire="gemini",
        log_format="gemini --output-format json (response + stats.models tokens)",
        install=InstallSpec(kind="npm", package="@google/gemini-cli", version="0.61.0", executable="gemini"),
        notes="Speaks the Gemini API: through the gateway (GOOGLE_GEMINI_BASE_URL, the token as GEMINI_API_KEY), "
              "text only (function calls are not forwarded); the npm CLI itself is not run here. "
              + npm_unchecked("0.61.0", "0.9"),
    )

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        data = last_json_object(text)
        stats = data.get("stats") or {}
        calls: list[ModelCall] = []
        for name, entry in (stats.get("models") or {}).items():
            tokens = (entry or {}).get("tokens") or {}
            thoughts = as_int(tokens.get("thoughts"))  # on top of `candidates`, not part of it
            calls.append(ModelCall(index=len(calls), model=name, reported_model=name, tokens=inclusive_usage(
                as_int(tokens.get("prompt")), as_int(tokens.get("cached")),
                as_int(tokens.get("candidates")) + thoughts, thoughts)))
        steps = [Step(index=0, tool_call={"name": tool})
                 for tool, entry in ((stats.get("tools") or {}).get("byName") or {}).items()
                 for _ in range(as_int((entry or {}).get("count")))]
        steps = [s.model_copy(update={"index": i}) for i, s in enumerate(steps)]
        return ParsedLog(steps=steps, calls=calls, reported_models=[c.model for c in calls],
                         final_message=str(data.get("response") or ""))
