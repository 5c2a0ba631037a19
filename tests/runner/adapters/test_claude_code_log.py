"""Claude Code 2.1.327's own log, as a live run wrote it (tests/data/cli_logs: `claude -p --output-format
stream-json --verbose --include-partial-messages`, sim/expert on cleanup-old-tmp through the gateway on
bwrap): steps from tool_use/tool_result, per-call usage from the raw stream events."""

from __future__ import annotations

import json
from pathlib import Path

from matchmeter.runner.agents.adapters.claude_code import ClaudeCodeAdapter

LOG = Path(__file__).parents[2] / "data" / "cli_logs" / "claude-code-2.1.327-sim-expert-cleanup-old-tmp.jsonl"
# What the gateway metered for the same run (its gateway.jsonl): input incl. cached, output incl. reasoning
METERED = [(2278 + 1664, 65 + 5), (80 + 3968, 70 + 10), (122 + 3968, 81 + 13), (52 + 4096, 73 + 3), (188 + 4096, 31 + 13)]


def test_calls_take_their_usage_from_the_stream_events_and_match_the_gateway():
    """The assistant events carry only message_start's usage: never the output tokens, and in this log (made
    before message_start showed the prompt's count) no input either. The parser before
    --include-partial-messages reported 0 tokens for every call here (a metering disagreement)."""
    text = LOG.read_text()
    assistant_usage = [json.loads(line)["message"]["usage"] for line in text.splitlines()
                       if line.startswith('{"type":"assistant"')]
    assert assistant_usage
    assert {u["input_tokens"] + u["output_tokens"] for u in assistant_usage} == {0}
    parsed = ClaudeCodeAdapter.parse_log(text)
    assert [(c.tokens.input + c.tokens.cached_input, c.tokens.output + c.tokens.reasoning) for c in parsed.calls] \
        == METERED
    assert {c.reported_model for c in parsed.calls} == {"sim/expert"}
    assert parsed.reported_models == ["expert", "sim/expert"]  # the --model it was given, then the answering one


def test_steps_are_the_bash_tool_calls_with_their_results():
    parsed = ClaudeCodeAdapter.parse_log(LOG.read_text())
    assert [s.command for s in parsed.steps] == [
        "find build -name '*.tmp' -mtime +7 | head",
        "find build -type f -name '*.tmp' -mtime +7 | sort > deleted.txt",
        "xargs -d '\\n' rm -f -- < deleted.txt",
        "cat deleted.txt"]
    assert [s.tool_call["name"] for s in parsed.steps] == ["Bash"] * 4
    assert parsed.steps[0].output.startswith("build/")
    assert parsed.steps[1].output == "(Bash completed with no output)"
    assert parsed.final_message.startswith("THOUGHT (SIMULATED sim/expert): The task is done; submitting.")


def test_without_stream_events_the_assistant_usage_is_used():
    text = "\n".join(line for line in LOG.read_text().splitlines() if '"type":"stream_event"' not in line)
    parsed = ClaudeCodeAdapter.parse_log(text)
    assert len(parsed.calls) == len(METERED)
    assert sum(c.tokens.total for c in parsed.calls) == 0
