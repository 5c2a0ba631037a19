"""OpenCode (`opencode run --format json`): JSONL events with per-step tokens and tool parts.

Log (stdout): `{"type": "step_start"|"text"|"tool_use"|"step_finish"|"error", "timestamp": ms,
"sessionID": …, "part": {…}}`. `tool_use.part` = {tool, callID, state: {status, input, output,
metadata: {exit?}}}: one step (a `bash` tool's `input.command` is the command). `step_finish.part` =
{reason, cost, tokens: {input, output, reasoning, cache: {read, write}}}: one model call; `input`
excludes cache reads, `output` excludes reasoning. The stream names no model unless a part carries
`modelID` (then it is the reported model). The endpoint is declared in an opencode.json written to
the state dir (provider `matchmeter`, @ai-sdk/openai-compatible) and named by OPENCODE_CONFIG.
"""

from __future__ import annotations

import json

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    RunContext,
    as_int,
    epoch,
    json_lines,
    npm_unchecked,
    strip_provider,
)
from matchmeter.schema import TokenUsage, utcnow

PROVIDER = "matchmeter"


class OpenCodeAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="opencode",
        version="1.18.33",
        verified=False,
        approval_mode="allow (permission config: every tool allowed)",
        sandbox="none (matchmeter's sandbox is the boundary)",
        flags=("run", "--format", "json"),
        prompt_mode="argv",
        prompt_flag=None,
        env_vars=(),
        api_key_env="OPENAI_API_KEY",
        model_flag=None,
        model_prefix="keep",
        log_location="stdout",
        log_format="opencode run --format json JSONL (tool_use, step_finish tokens)",
        install=InstallSpec(kind="npm", package="opencode-ai", version="1.18.33", executable="opencode"),
        notes=npm_unchecked("1.18.33", "1.0"),
    )

    def extra_args(self, ctx: RunContext) -> list[str]:
        return ["--model", f"{PROVIDER}/{strip_provider(ctx.model)}"]

    def prepare_files(self, ctx: RunContext) -> dict[str, str]:
        name = strip_provider(ctx.model)
        config = {
            "$schema": "https://opencode.ai/config.json",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
            "provider": {PROVIDER: {"npm": "@ai-sdk/openai-compatible", "name": "matchmeter endpoint",
                                    "options": {"baseURL": ctx.api_base or "", "apiKey": "{env:OPENAI_API_KEY}"},
                                    "models": {name: {"name": name}}}},
        }
        return {"opencode.json": json.dumps(config)}

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return {"OPENCODE_CONFIG": f"{ctx.state_dir}/opencode.json"}

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        log = LogReader()
        for event in json_lines(text):
            part, kind = event.get("part") or {}, event.get("type")
            if part.get("modelID"):
                log.saw_model(str(part["modelID"]))
            if kind == "tool_use":
                state = part.get("state") or {}
                args = state.get("input") or {}
                code = (state.get("metadata") or {}).get("exit")
                log.step(command=args.get("command") if part.get("tool") == "bash" else None,
                         tool_call={"name": part.get("tool"), "arguments": args},
                         output=str(state.get("output") or state.get("error") or ""),
                         exit_code=code if isinstance(code, int) else None,
                         started_at=epoch(as_int(event.get("timestamp")) / 1000) or utcnow())
            elif kind == "step_finish":
                tokens = part.get("tokens") or {}
                cache = tokens.get("cache") or {}
                log.call(log.last_model(), TokenUsage(input=as_int(tokens.get("input")) + as_int(cache.get("write")),
                                                      cached_input=as_int(cache.get("read")),
                                                      output=as_int(tokens.get("output")),
                                                      reasoning=as_int(tokens.get("reasoning"))))
            elif kind == "text" and part.get("text"):
                log.final = str(part["text"])
        return log.parsed()
