"""aider (`aider --message`): one instruction, SEARCH/REPLACE edits and shell blocks, no git, no analytics.

Run: `aider --model <litellm model> --message <task> --no-fancy-input --edit-format diff --no-git ...
--no-stream --verbose < /dev/null`, with the endpoint in OPENAI_API_BASE. aider acts through its reply:
SEARCH/REPLACE blocks it applies, and ```bash blocks it offers to run ("Run shell command?"). Only the
diff edit format (EditBlockCoder) collects shell blocks. Its confirmations are answered from stdin: at
end of input each takes its default, yes, so the shell commands run. `--yes-always` would not run them:
aider's confirm for shell commands requires an explicit yes, which --yes-always answers "no"
(aider/io.py, confirm_ask's explicit_yes_required). aider runs each line of a block as its own
`/bin/sh` command in the working directory. With --message aider answers that one message and exits.

Log: aider's own stdout (COLUMNS is set wide, so its console wraps no line). With --verbose and
--no-stream aider prints each completion object on one line, `ModelResponse(id='…', created=…,
model='<served model>', …, usage=Usage(completion_tokens=N, prompt_tokens=N, …, reasoning_tokens=N, …,
cached_tokens=N, …))`: a model call with its reported model and tokens by class. Steps, in order: each
`Running <command>` line is a shell command (its output: what follows, up to aider's next prompt: "Add
command output to the chat?", the next command's block, or the end; aider prints no exit code), each
`Applied edit to <path>` line an edit.
"""

from __future__ import annotations

import bisect
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

RESPONSE_LINE = re.compile(r"^ModelResponse\(id='[^']*', created=\d+, model='(?P<model>[^']*)'", re.MULTILINE)
USAGE_MARK = "usage=Usage("  # the last one on the line: message content comes before usage
# after "Create new file? … [Yes]: " on the same line when the confirmation read end of input
EDIT_LINE = re.compile(r"^(?:[^\n]*?\]: )?Applied edit to (?P<path>[^\n]+?)[ \t]*$", re.MULTILINE)
RUN_LINE = re.compile(r"^Running (?P<command>.*)\n", re.MULTILINE)
ADD_OUTPUT = "Add command output to the chat? (Y)es"
SUBJECT_MAX = 2048  # how far before a prompt its subject (the block's commands, 1-3 lines in aider's prompt) may start
RUN_PROMPT = re.compile(r"^Run shell commands?\? \(Y\)es", re.MULTILINE)


def _field(body: str, name: str) -> int:
    match = re.search(rf"\b{name}=(\d+)", body)
    return int(match.group(1)) if match else 0


class AiderAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="aider",
        version="0.86.2",
        verified=True,
        approval_mode="confirmations read from stdin (</dev/null: each takes its default, yes; shell blocks run)",
        sandbox="none (edits files in the working directory)",
        flags=("--no-fancy-input", "--no-git", "--no-auto-commits", "--analytics-disable", "--no-check-update",
               "--no-show-model-warnings", "--no-show-release-notes", "--no-pretty", "--no-stream",
               "--no-detect-urls", "--no-auto-lint", "--no-auto-test", "--map-tokens", "0",
               "--edit-format", "diff", "--verbose"),
        prompt_mode="argv",
        prompt_flag="--message",
        env_vars=(),
        api_key_env="OPENAI_API_KEY",
        model_flag="--model",
        model_prefix="keep",
        base_url_env="OPENAI_API_BASE",
        log_location="stdout",
        log_format="aider --verbose stdout (ModelResponse lines, 'Running' and 'Applied edit to' lines)",
        install=InstallSpec(kind="pypi", package="aider-chat", version="0.86.2", executable="aider"),
        notes="Chat and input history go to the agent state dir, not the workspace.",
    )

    def extra_args(self, ctx: RunContext) -> list[str]:
        return ["--chat-history-file", f"{ctx.state_dir}/chat.md", "--input-history-file", f"{ctx.state_dir}/input",
                "--llm-history-file", f"{ctx.state_dir}/llm.log"]

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "AIDER_ANALYTICS": "false", "COLUMNS": "65535"}

    def _command(self, ctx: RunContext) -> str:
        return super()._command(ctx) + " < /dev/null"  # every confirmation reads end of input: its default

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
        marks = _Marks(text)
        runs = [m for m in RUN_LINE.finditer(text) if marks.confirmed(m)]
        for match in sorted((*runs, *EDIT_LINE.finditer(text)), key=lambda m: m.start()):
            if "command" in match.groupdict():
                log.step(marks.output_from(match.end()), command=match.group("command"))
            else:
                log.step(f"Applied edit to {match.group('path')}", tool_call={"name": "edit", "path": match.group("path")})
        return log.parsed()


class _Marks:
    """Where aider's prompts and run lines are in its stdout, found once (sorted offsets), so a log full of
    look-alike lines printed by the agent's commands costs one pass and a bisection per line, not a scan each."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.prompts = [m.start() for m in RUN_PROMPT.finditer(text)]
        self.runs = [m.start() for m in RUN_LINE.finditer(text)]
        self.adds = [m.start() for m in re.finditer(re.escape(ADD_OUTPUT), text)]
        self.blanks = [m.start() for m in re.finditer("\n(?=\n)", text)]

    @staticmethod
    def _next(offsets: list[int], at: int) -> int | None:
        i = bisect.bisect_left(offsets, at)
        return offsets[i] if i < len(offsets) else None

    def confirmed(self, run: re.Match[str]) -> bool:
        """A `Running X` line that aider printed: X is a line of the block that the last "Run shell command?"
        before it offered (its subject), not a line of the model's prose."""
        i = bisect.bisect_left(self.prompts, run.start())
        if i == 0:
            return False
        prompt = self.prompts[i - 1]
        j = bisect.bisect_left(self.blanks, prompt - 1)  # the blank line that opens the subject
        subject = self.text[max(self.blanks[j - 1] + 2 if j else 0, prompt - SUBJECT_MAX):prompt]
        command = run.group("command").strip()
        return command in subject and any(line.strip() == command for line in subject.splitlines())

    def output_from(self, start: int) -> str:
        """What a command printed: from `start` up to aider's next prompt (see the module docstring)."""
        text, ends = self.text, [len(self.text)]
        for offsets in (self.adds, self.runs):
            if (at := self._next(offsets, start)) is not None:
                ends.append(at)
        if (prompt := self._next(self.prompts, start)) is not None:  # the next block: a blank line, its commands
            blank = text.rfind("\n\n", start - 1, prompt)  # the blank line may open the output
            # no blank line: the output ended without a newline, which the blank line completed; its last line
            # before the prompt is the block's (one-line) subject
            ends.append(blank + 1 if blank >= 0 else text.rfind("\n", start, prompt - 1) + 1 or start)
        return text[start:min(ends)]
