"""Codex CLI (`codex exec --json`): JSONL thread/turn/item events with per-turn token usage.

Log (stdout): `thread.started`, `turn.started`, `item.started|updated|completed` with `item` of type
`command_execution` (`command`, `aggregated_output`, `exit_code`), `agent_message` (`text`),
`file_change`, `reasoning`…, and `turn.completed` with `usage` {input_tokens (cached included),
cached_input_tokens, output_tokens, reasoning_output_tokens}. A turn may span several API requests;
each `turn.completed` becomes one model call. The JSON events name no model; an event that carries a
`model` field (newer versions) is taken as the reported model, else nothing is reported.
"""

from __future__ import annotations

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    as_int,
    inclusive_usage,
    json_lines,
)


class CodexAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="codex",
        version="0.163.0",
        verified=False,
        approval_mode="never (--dangerously-bypass-approvals-and-sandbox)",
        sandbox="danger-full-access (matchmeter's sandbox is the boundary)",
        flags=("exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"),
        prompt_mode="argv",
        prompt_flag=None,
        env_vars=(),
        api_key_env="OPENAI_API_KEY",
        model_flag="--model",
        model_prefix="strip",
        base_url_env="OPENAI_BASE_URL",
        log_location="stdout",
        log_format="codex exec --json JSONL (item.* and turn.completed usage)",
        install=InstallSpec(kind="pypi-binary", package="openai-codex-cli-bin", version="0.163.0", executable="codex",
                            binary="codex_cli_bin/bin/codex", payload="codex_cli_bin"),
        notes="Emits no model name in --json events: the effective-model check sees nothing to compare. "
              "Recent versions speak the Responses API, which the gateway serves with function tools "
              "(built-in and freeform tools are not forwarded).",
    )

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        log = LogReader()
        for event in json_lines(text):
            if event.get("model"):
                log.saw_model(str(event["model"]))
            kind, item = event.get("type"), event.get("item") or {}
            if kind == "item.completed" and item.get("type") == "command_execution":
                code = item.get("exit_code")
                log.step(command=str(item.get("command") or ""), output=str(item.get("aggregated_output") or ""),
                         exit_code=code if isinstance(code, int) else None)
            elif kind == "item.completed" and item.get("type") == "file_change":
                log.step(tool_call={"name": "file_change", "changes": item.get("changes")})
            elif kind == "item.completed" and item.get("type") == "agent_message":
                log.final = str(item.get("text") or "")
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
                log.call(log.last_model(), inclusive_usage(
                    as_int(usage.get("input_tokens")), as_int(usage.get("cached_input_tokens")),
                    as_int(usage.get("output_tokens")), as_int(usage.get("reasoning_output_tokens"))))
        return log.parsed()
