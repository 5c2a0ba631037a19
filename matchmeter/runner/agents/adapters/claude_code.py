"""Claude Code (`claude -p --output-format stream-json --verbose --include-partial-messages`): JSONL
messages with usage and model.

Log (stdout, one JSON object a line; read as Claude Code 2.1.327 writes it): `{"type":"system","subtype":
"init","model":…}`; `{"type":"assistant","message":{"id","model","content":[text | tool_use{id,name,input}],
"usage":{input_tokens,cache_creation_input_tokens,cache_read_input_tokens,output_tokens}}}` — one API
message may arrive as several events sharing `message.id`, so calls are counted once per id;
`{"type":"user","message":{"content":[tool_result{tool_use_id,content,is_error}]}}` closes a step;
`{"type":"result","result":…}` carries the final text. An assistant event is written when its content
block ends, before the API's message_delta, so its usage is only message_start's (no output tokens; the
input is the gateway's own count of the prompt, the upstream's usage arriving only at the end). With --include-partial-messages the
raw API events come too (`{"type":"stream_event","event":{message_start | message_delta | …}}`): a call's
usage is then message_start's updated by message_delta's, as the Anthropic SDK merges them. Anthropic's
`input_tokens` excludes cache reads (our cached_input) and cache writes (counted as input: the price
table has no write class). qwen-code writes the same message shapes (see qwen_code.py), with OpenAI-style
usage and no stream events.
"""

from __future__ import annotations

from typing import Any

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    RunContext,
    answer,
    as_int,
    inclusive_usage,
    json_lines,
)
from matchmeter.schema import Step, TokenUsage


def _tokens(usage: dict[str, Any], input_includes_cached: bool) -> TokenUsage:
    cached = as_int(usage.get("cache_read_input_tokens") or usage.get("cached_tokens"))
    prompt = as_int(usage.get("input_tokens"))
    if not input_includes_cached:  # Anthropic's input_tokens leaves out cache reads and writes
        prompt += cached + as_int(usage.get("cache_creation_input_tokens"))
    return inclusive_usage(prompt, cached, as_int(usage.get("output_tokens")),
                           as_int(usage.get("reasoning_tokens") or usage.get("thoughts_tokens")))


def _tool_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def stream_usage(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each API message's usage from the raw stream events: message_start's, updated by message_delta's
    non-null fields (by message id)."""
    usage: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for event in events:
        raw = event.get("event") if event.get("type") == "stream_event" else None
        if not isinstance(raw, dict):
            continue
        if raw.get("type") == "message_start" and isinstance(raw.get("message"), dict):
            current = usage.setdefault(str(raw["message"].get("id")), {})
            current.update(raw["message"].get("usage") or {})
        elif raw.get("type") == "message_delta" and current is not None:
            current.update({k: v for k, v in (raw.get("usage") or {}).items() if v is not None})
    return usage


def parse_message_events(events: list[dict[str, Any]], input_includes_cached: bool) -> ParsedLog:
    """Claude-style system/assistant/user/result events → ParsedLog (shared with qwen-code)."""
    log = LogReader()
    seen_ids: set[str] = set()
    open_tools: dict[str, Step] = {}
    streamed = stream_usage(events)
    for event in events:
        kind, message = event.get("type"), event.get("message") or {}
        if kind == "system" and event.get("model"):
            log.saw_model(str(event["model"]))
        elif kind == "assistant":
            name = str(message.get("model") or "")
            log.saw_model(name)
            mid = str(message.get("id") or f"anon-{len(log.calls)}")
            if "usage" in message and mid not in seen_ids:
                seen_ids.add(mid)
                log.call(name, _tokens(streamed.get(mid) or message["usage"], input_includes_cached))
            for part in message.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "tool_use":
                    args = part.get("input") or {}
                    open_tools[str(part.get("id"))] = log.step(
                        command=args.get("command") if isinstance(args, dict) else None,
                        tool_call={"name": part.get("name"), "arguments": args})
        elif kind == "user":
            for part in message.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    answered = open_tools.pop(str(part.get("tool_use_id")), None)
                    if answered is not None:
                        answer(answered, _tool_text(part.get("content")))
                        answered.exit_code = 1 if part.get("is_error") else None
        elif kind == "result":
            log.final = str(event.get("result") or "")
    return log.parsed()


class ClaudeCodeAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="claude-code",
        version="2.1.327",
        verified=True,  # tests/runner/adapters/test_live_claude_code.py, docker and bwrap
        approval_mode="--dangerously-skip-permissions (every tool call approved)",
        sandbox="none (matchmeter's sandbox is the boundary)",
        flags=("-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
               "--dangerously-skip-permissions"),
        prompt_mode="argv",
        prompt_flag=None,
        env_vars=(),
        api_key_env="ANTHROPIC_API_KEY",
        model_flag="--model",
        model_prefix="strip",
        base_url_env="ANTHROPIC_BASE_URL",
        log_location="stdout",
        wire="anthropic",
        log_format="claude stream-json JSONL (system/assistant/user/result)",
        install=InstallSpec(kind="pypi-binary", package="claude-agent-sdk", version="0.2.184", executable="claude",
                            binary="claude_agent_sdk/_bundled/claude", payload="claude_agent_sdk/_bundled",
                            cli_version="2.1.327"),
        notes="The native binary bundled in the claude-agent-sdk wheel. Speaks streamed Anthropic Messages "
              "(POST /v1/messages?beta=true, 12 tools) to the gateway, which carries its tool_use/tool_result "
              "both ways; IS_SANDBOX=1 lets --dangerously-skip-permissions run as root, and its documented "
              "switches turn off every start-up call but the model's (telemetry, error reports, auto-update).",
    )

    # Claude Code refuses --dangerously-skip-permissions as root unless it is told it runs in a sandbox (it
    # does: matchmeter's). CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is documented as the four others
    # together; each is set as well, so one renamed switch does not bring the traffic back.
    ENV = {"IS_SANDBOX": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_BUG_COMMAND": "1"}

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return dict(self.ENV)

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        return parse_message_events(json_lines(text), input_includes_cached=False)
