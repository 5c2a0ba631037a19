"""aider (`aider --message`): one instruction, file edits in the `whole` format, no git, no analytics.

Run: `aider --model <litellm model> --message <task> --yes-always --no-git ... --no-stream --verbose`,
with the endpoint in OPENAI_API_BASE. aider never runs shell commands under --yes-always (they need an
explicit yes), so its actions are file edits.

Log: aider's own stdout. With --verbose and --no-stream aider prints each completion object on one
line, `ModelResponse(id='…', created=…, model='<served model>', …, usage=Usage(completion_tokens=N,
prompt_tokens=N, …, reasoning_tokens=N, …, cached_tokens=N, …))`: that is a model call with its
reported model and tokens by class. Each `Applied edit to <path>` line is a step (an edit tool call).
"""

from __future__ import annotations

import re

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    RunContext,
    inclusive_usage,
)
from matchmeter.schema import Step

RESPONSE_LINE = re.compile(r"^ModelResponse\(id='[^']*', created=\d+, model='(?P<model>[^']*)'", re.MULTILINE)
USAGE_MARK = "usage=Usage("  # the last one on the line: message content comes before usage
EDIT_LINE = re.compile(r"^Applied edit to (?P<path>.+?)\s*$", re.MULTILINE)


def _field(body: str, name: str) -> int:
    match = re.search(rf"\b{name}=(\d+)", body)
    return int(match.group(1)) if match else 0


class AiderAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="aider",
        version="0.86.2",
        verified=True,
        approval_mode="--yes-always (edits and new files accepted; shell commands never run)",
        sandbox="none (edits files in the working directory)",
        flags=("--yes-always", "--no-git", "--no-auto-commits", "--analytics-disable", "--no-check-update",
               "--no-show-model-warnings", "--no-show-release-notes", "--no-pretty", "--no-stream",
               "--no-detect-urls", "--no-auto-lint", "--no-auto-test", "--map-tokens", "0",
               "--edit-format", "whole", "--verbose"),
        prompt_mode="argv",
        prompt_flag="--message",
        env_vars=(),
        api_key_env="OPENAI_API_KEY",
        model_flag="--model",
        model_prefix="keep",
        base_url_env="OPENAI_API_BASE",
        log_location="stdout",
        log_format="aider --verbose stdout (ModelResponse lines, 'Applied edit to' lines)",
        install=InstallSpec(kind="pypi", package="aider-chat", version="0.86.2", executable="aider"),
        notes="Chat and input history go to the agent state dir, not the workspace.",
    )

    def extra_args(self, ctx: RunContext) -> list[str]:
        return ["--chat-history-file", f"{ctx.state_dir}/chat.md", "--input-history-file", f"{ctx.state_dir}/input",
                "--llm-history-file", f"{ctx.state_dir}/llm.log"]

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "AIDER_ANALYTICS": "false"}

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        log = LogReader()
        for line in text.splitlines():
            head = RESPONSE_LINE.match(line)
            if not head:
                continue
            at = line.rfind(USAGE_MARK)
            body = line[at:] if at > head.end() else ""
            log.call(head.group("model"), inclusive_usage(_field(body, "prompt_tokens"), _field(body, "cached_tokens"),
                                                          _field(body, "completion_tokens"),
                                                          _field(body, "reasoning_tokens")))
        log.steps = [Step(index=i, tool_call={"name": "edit", "path": m.group("path")}, output=m.group(0))
                     for i, m in enumerate(EDIT_LINE.finditer(text))]
        return log.parsed()
