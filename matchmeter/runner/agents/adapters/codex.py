"""Codex CLI 0.163.0 (`codex exec --json`), the native binary of the PyPI wheel openai-codex-cli-bin.

Run: `CODEX_HOME=$STATE codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox
--model <m> < $STATE/prompt.txt` (no prompt argument: Codex reads the whole prompt from stdin, so it never
waits on a stdin it was not given). Codex ignores OPENAI_BASE_URL (it dials wss://api.openai.com and
retries forever), so the endpoint is a model provider in `$CODEX_HOME/config.toml`: `base_url` the
gateway's `/v1`, `env_key` the variable holding the execution's token, `wire_api = "responses"`,
`supports_websockets = false`, a bounded number of retries (and `unbounded_connection_retries` off: by
default Codex waits for an unreachable endpoint forever, "Reconnecting... waiting for network"); a turn
that ends on "Connection failed" before any call reached the gateway is an InfraError, not the agent's.
The same file switches off what Codex does besides calling its model, each with its documented setting:
the update check (`check_for_update_on_startup`), usage metrics (`[analytics]`), feedback upload
(`[feedback]`), OTel export (`[otel]`), the hosted web search tool (`web_search`), the history file
(`[history]`), and the plugin, remote-plugin and apps features (start-up calls to GitHub and chatgpt.com).
Whatever else it tries to reach, the sandbox refuses: the gateway's forwarder is the only way out.

Log (stdout, JSONL): `thread.started`, `turn.started`, `item.started|completed` with `item` of type
`command_execution` (`command` as Codex ran it, `/bin/bash -lc '<cmd>'`; `aggregated_output`, `exit_code`),
`file_change` (`changes` [{path, kind}], from the apply_patch tool), `mcp_tool_call`, `agent_message`
(`text`), `error` (a warning, such as unknown model metadata), then `turn.completed` with `usage`
{input_tokens (cached included), cached_input_tokens, cache_write_input_tokens, output_tokens,
reasoning_output_tokens} or `turn.failed`. A step is a completed command (its shell wrapper removed, so
the step is the command the model asked for), file change or MCP tool call. One `turn.completed` covers
every request of the turn, so the CLI's own report is one call per turn: beside the gateway's per-request
meter only its tokens are comparable, not its number of calls. The events name no model; the
effective-model check reads what the gateway saw.
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from matchmeter.errors import InfraError
from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    RunContext,
    as_int,
    inclusive_usage,
    json_lines,
)

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession

TOKEN_ENV = "OPENAI_API_KEY"  # the provider's env_key: the gateway token (or the host key without a gateway)
SHELLS = ("/bin/bash", "bash", "/bin/sh", "sh", "/bin/zsh", "zsh", "/usr/bin/bash")
RETRIES = 2  # a gateway that answers 5xx is retried a little, never for long


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def config_toml(api_base: str | None) -> str:
    """`$CODEX_HOME/config.toml`: the gateway as the model provider (when there is an endpoint) and every
    documented switch for traffic that is not a model call turned off."""
    lines = ['approval_policy = "never"', 'sandbox_mode = "danger-full-access"',
             "check_for_update_on_startup = false", 'web_search = "disabled"']
    if api_base:
        lines.insert(0, 'model_provider = "matchmeter"')
    lines += ["", "[analytics]", "enabled = false", "", "[feedback]", "enabled = false", "",
              "[history]", 'persistence = "none"', "", "[otel]", 'exporter = "none"', 'trace_exporter = "none"',
              'metrics_exporter = "none"', "", "[features]", "plugins = false", "remote_plugin = false",
              "apps = false", "unbounded_connection_retries = false"]
    if api_base:
        lines += ["", "[model_providers.matchmeter]", 'name = "matchmeter gateway"', f"base_url = {_toml(api_base)}",
                  f"env_key = {_toml(TOKEN_ENV)}", 'wire_api = "responses"', "supports_websockets = false",
                  f"request_max_retries = {RETRIES}", f"stream_max_retries = {RETRIES}"]
    return "\n".join(lines) + "\n"


def connection_failure(output: str) -> str:
    """The message of a turn Codex ended because it could not connect to its endpoint ('' when none)."""
    for event in json_lines(output):
        message = str((event.get("error") or {}).get("message") or "") if event.get("type") == "turn.failed" else ""
        if message.startswith("Connection failed"):
            return message
    return ""


def unwrap_shell(command: str) -> str:
    """`/bin/bash -lc '<cmd>'` → `<cmd>` (how Codex reports the command it ran); anything else unchanged."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return command
    if len(argv) == 3 and argv[0] in SHELLS and argv[1] in ("-lc", "-c"):
        return argv[2]
    return command


class CodexAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="codex",
        version="0.163.0",
        verified=True,  # tests/runner/adapters/test_live_codex.py: sim/expert solves built-in tasks on docker and bwrap
        approval_mode="never (--dangerously-bypass-approvals-and-sandbox)",
        sandbox="danger-full-access (matchmeter's sandbox is the boundary)",
        flags=("exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"),
        prompt_mode="stdin",
        prompt_flag=None,
        env_vars=(),
        api_key_env=TOKEN_ENV,
        model_flag="--model",
        model_prefix="strip",
        base_url_env=None,
        log_location="stdout",
        log_format="codex exec --json JSONL (item.* command_execution/file_change, turn.completed usage)",
        install=InstallSpec(kind="pypi-binary", package="openai-codex-cli-bin", version="0.163.0", executable="codex",
                            binary="codex_cli_bin/bin/codex", payload="codex_cli_bin"),
        notes="The endpoint is a model provider in $CODEX_HOME/config.toml (Codex ignores OPENAI_BASE_URL); the "
              "same file turns off its update check, analytics, feedback, OTel export, web search and plugins. "
              "Speaks the Responses API: function, namespace and custom (apply_patch) tools go through the "
              "gateway, built-in ones (web_search, tool_search) do not. Its --json events name no model and "
              "report usage per turn: calls, tokens and the effective model come from the gateway's meter.",
    )

    def prepare_files(self, ctx: RunContext) -> dict[str, str]:
        return {"config.toml": config_toml(ctx.api_base)}

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return {"CODEX_HOME": ctx.state_dir}

    def _report_gateway(self, parsed: ParsedLog, session: AgentSession) -> None:
        assert session.gateway is not None
        failed = connection_failure(session.agent_output)
        if failed and not session.gateway.session.meter.calls:
            raise InfraError(f"codex could not connect to the model gateway ({failed}): the gateway or the "
                             "sandbox's forwarder to it is down; the agent never got a model call")
        try:
            super()._report_gateway(parsed, session)
        finally:  # per-turn usage against per-request metering: only the token totals can be compared
            trajectory = session.trajectory
            trajectory.metering_disagreements = [n for n in trajectory.metering_disagreements
                                                 if not n.startswith("calls:")]

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        log = LogReader()
        for event in json_lines(text):
            if event.get("model"):
                log.saw_model(str(event["model"]))
            kind, item = event.get("type"), event.get("item") or {}
            if kind == "item.completed":
                _item(log, item)
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
                log.call(log.last_model(), inclusive_usage(
                    as_int(usage.get("input_tokens")), as_int(usage.get("cached_input_tokens")),
                    as_int(usage.get("output_tokens")), as_int(usage.get("reasoning_output_tokens"))))
        return log.parsed()


def _item(log: LogReader, item: dict[str, Any]) -> None:
    kind = item.get("type")
    if kind == "command_execution":
        code = item.get("exit_code")
        log.step(command=unwrap_shell(str(item.get("command") or "")), output=str(item.get("aggregated_output") or ""),
                 exit_code=code if isinstance(code, int) else None)
    elif kind == "file_change":
        status = item.get("status")
        log.step(tool_call={"name": "apply_patch", "arguments": {"changes": item.get("changes")}},
                 exit_code={"completed": 0, "failed": 1}.get(str(status)))
    elif kind == "mcp_tool_call":
        result = item.get("result") or item.get("error") or ""
        log.step(output=result if isinstance(result, str) else json.dumps(result),
                 tool_call={"name": f"{item.get('server')}/{item.get('tool')}", "arguments": item.get("arguments")})
    elif kind == "agent_message":
        log.final = str(item.get("text") or "")
