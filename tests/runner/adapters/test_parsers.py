"""Each adapter's parser on a small log written from the CLI's documented format: steps, calls, models."""

from __future__ import annotations

import json
import shlex

import pytest

from matchmeter.runner.agents.adapters.aider import AiderAdapter
from matchmeter.runner.agents.adapters.claude_code import ClaudeCodeAdapter
from matchmeter.runner.agents.adapters.codex import CodexAdapter
from matchmeter.runner.agents.adapters.gemini_cli import GeminiCliAdapter
from matchmeter.runner.agents.adapters.kimi import NO_USAGE, KimiAdapter
from matchmeter.runner.agents.adapters.mini_swe_agent import MiniSweAgentAdapter
from matchmeter.runner.agents.adapters.opencode import OpenCodeAdapter
from matchmeter.runner.agents.adapters.qwen_code import QwenCodeAdapter
from matchmeter.schema import TokenUsage


def jsonl(*events: dict) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\n"


# Lines of `codex exec --json` as Codex CLI 0.163.0 wrote them here (a run through the gateway: an exec_command
# call, a failing one, an apply_patch call, the final message), with the warnings it prints before them.
CODEX_0_163_LOG = """\
WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("/tmp/mm-agent-codex-626bd39a"))
Reading prompt from stdin...
{"type":"thread.started","thread_id":"01a23b55-a935-7262-81c3-c6513b547f48"}
{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `stub/scripted` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'cp data/input.txt out.txt'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'cp data/input.txt out.txt'","aggregated_output":"","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -lc 'cat nope'","aggregated_output":"cat: nope: No such file or directory\\n","exit_code":1,"status":"failed"}}
{"type":"item.started","item":{"id":"item_3","type":"file_change","changes":[{"path":"/tmp/cxw-f3_o34xl/hello.txt","kind":"add"}],"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/tmp/cxw-f3_o34xl/hello.txt","kind":"add"}],"status":"completed"}}
{"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":9966,"cached_input_tokens":9000,"cache_write_input_tokens":0,"output_tokens":35,"reasoning_output_tokens":7}}
"""


def test_codex_exec_json():
    parsed = CodexAdapter.parse_log(CODEX_0_163_LOG)
    # the shell wrapper Codex reports is removed: the step is the command the model asked for
    assert [s.command for s in parsed.steps] == ["cp data/input.txt out.txt", "cat nope", None]
    assert [s.exit_code for s in parsed.steps] == [0, 1, 0]
    assert parsed.steps[1].output == "cat: nope: No such file or directory\n"
    assert parsed.steps[2].tool_call == {"name": "apply_patch", "arguments": {
        "changes": [{"path": "/tmp/cxw-f3_o34xl/hello.txt", "kind": "add"}]}}
    # one call per turn (the turn's requests summed), inclusive totals split into our classes
    assert [c.tokens for c in parsed.calls] == [TokenUsage(input=966, cached_input=9000, output=28, reasoning=7)]
    assert parsed.reported_models == []  # codex --json names no model
    assert parsed.final_message == "done"


HEREDOC = "git -C notes commit -q -F - <<'EOF'\nFix \"quoted\" $PATH\nEOF"


@pytest.mark.parametrize(("reported", "ran"), [
    ("/bin/bash -lc 'cp data/input.txt out.txt'", "cp data/input.txt out.txt"),
    ("bash -c " + shlex.quote(HEREDOC), HEREDOC),  # quoted the way Codex quotes it
    ("/bin/bash -lc 'a' extra", "/bin/bash -lc 'a' extra"),  # not a plain wrapper: kept as reported
    ("ls 'unclosed", "ls 'unclosed"),
])
def test_codex_shell_wrapper_is_removed_only_when_it_is_one(reported, ran):
    from matchmeter.runner.agents.adapters.codex import unwrap_shell

    assert unwrap_shell(reported) == ran


CLAUDE_EVENTS = [
    {"type": "system", "subtype": "init", "model": "claude-sonnet-4-20250514", "session_id": "s"},
    {"type": "assistant", "message": {"id": "msg_1", "model": "claude-sonnet-4-20250514", "role": "assistant",
                                      "content": [{"type": "text", "text": "Listing."}],
                                      "usage": {"input_tokens": 10, "cache_creation_input_tokens": 500,
                                                "cache_read_input_tokens": 2000, "output_tokens": 30}}},
    {"type": "assistant", "message": {"id": "msg_1", "model": "claude-sonnet-4-20250514", "role": "assistant",
                                      "content": [{"type": "tool_use", "id": "tu_1", "name": "Bash",
                                                   "input": {"command": "ls -a"}}],
                                      "usage": {"input_tokens": 10, "cache_creation_input_tokens": 500,
                                                "cache_read_input_tokens": 2000, "output_tokens": 30}}},
    {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1",
                                                              "content": ".\n..\nx\n", "is_error": False}]}},
    {"type": "assistant", "message": {"id": "msg_2", "model": "claude-sonnet-4-20250514", "role": "assistant",
                                      "content": [{"type": "tool_use", "id": "tu_2", "name": "Bash",
                                                   "input": {"command": "false"}}],
                                      "usage": {"input_tokens": 5, "cache_read_input_tokens": 2600, "output_tokens": 12}}},
    {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_2",
                                                              "content": [{"type": "text", "text": "Exit code 1"}],
                                                              "is_error": True}]}},
    {"type": "result", "subtype": "success", "result": "All done", "total_cost_usd": 0.01},
]


def test_claude_code_stream_json_counts_each_message_once():
    parsed = ClaudeCodeAdapter.parse_log(jsonl(*CLAUDE_EVENTS))
    assert [c.tokens for c in parsed.calls] == [
        TokenUsage(input=510, cached_input=2000, output=30), TokenUsage(input=5, cached_input=2600, output=12)]
    assert parsed.reported_models == ["claude-sonnet-4-20250514"]
    assert [(s.command, s.output, s.exit_code) for s in parsed.steps] == [("ls -a", ".\n..\nx\n", None),
                                                                          ("false", "Exit code 1", 1)]
    assert parsed.final_message == "All done"


def test_qwen_code_json_array_with_openai_style_usage():
    events = [
        {"type": "system", "subtype": "session_start", "model": "qwen3-coder-plus"},
        {"type": "assistant", "message": {"id": "m1", "model": "qwen3-coder-plus", "content": [
            {"type": "tool_use", "id": "c1", "name": "run_shell_command", "input": {"command": "echo hi"}}],
            "usage": {"input_tokens": 900, "output_tokens": 40, "cache_read_input_tokens": 600}}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "c1", "content": "hi\n"}]}},
        {"type": "result", "subtype": "success", "result": "ok", "usage": {"input_tokens": 900, "output_tokens": 40}},
    ]
    parsed = QwenCodeAdapter.parse_log("Loaded cached credentials.\n" + json.dumps(events, indent=1))
    assert [c.tokens for c in parsed.calls] == [TokenUsage(input=300, cached_input=600, output=40)]
    assert parsed.reported_models == ["qwen3-coder-plus"]
    assert [(s.command, s.output) for s in parsed.steps] == [("echo hi", "hi\n")]
    assert parsed.final_message == "ok"


def test_gemini_cli_json_per_model_stats():
    doc = {"response": "Fixed.", "stats": {
        "models": {"gemini-2.5-pro": {"api": {"totalRequests": 2, "totalErrors": 0, "totalLatencyMs": 5053},
                                      "tokens": {"prompt": 24939, "candidates": 20, "total": 25113, "cached": 21263,
                                                 "thoughts": 154, "tool": 0}},
                   "gemini-2.5-flash": {"api": {"totalRequests": 1},
                                        "tokens": {"prompt": 300, "candidates": 5, "cached": 0, "thoughts": 0}}},
        "tools": {"totalCalls": 3, "byName": {"run_shell_command": {"count": 2, "success": 2},
                                              "write_file": {"count": 1, "success": 1}}},
        "files": {"totalLinesAdded": 1, "totalLinesRemoved": 0}}}
    parsed = GeminiCliAdapter.parse_log("Data collection is disabled.\n" + json.dumps(doc, indent=2))
    assert parsed.reported_models == ["gemini-2.5-pro", "gemini-2.5-flash"]
    assert [c.tokens for c in parsed.calls] == [TokenUsage(input=3676, cached_input=21263, output=20, reasoning=154),
                                                TokenUsage(input=300, output=5)]
    assert [s.tool_call["name"] for s in parsed.steps] == ["run_shell_command", "run_shell_command", "write_file"]
    assert [s.index for s in parsed.steps] == [0, 1, 2]
    assert parsed.final_message == "Fixed."


def test_kimi_stream_json_has_no_usage_so_cost_is_null_with_reason():
    log = jsonl(
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"type": "function", "id": "tc_1", "function": {"name": "Shell", "arguments": "{\"command\": \"ls\"}"}}]},
        {"role": "tool", "tool_call_id": "tc_1", "content": "a.py\nb.py"},
        {"role": "assistant", "content": "Two files."},
        {"role": "meta", "type": "session.resume_hint", "session_id": "s1"},
    )
    parsed = KimiAdapter.parse_log(log)
    assert [(s.command, s.output) for s in parsed.steps] == [("ls", "a.py\nb.py")]
    assert len(parsed.calls) == 2
    assert all(c.cost.usd is None and c.cost.null_reason == NO_USAGE for c in parsed.calls)
    assert parsed.final_message == "Two files."


def test_opencode_json_events():
    log = jsonl(
        {"type": "step_start", "timestamp": 1768191337000, "sessionID": "ses_1", "part": {"type": "step-start"}},
        {"type": "tool_use", "timestamp": 1768191338000, "sessionID": "ses_1", "part": {
            "type": "tool", "tool": "bash", "callID": "c1", "state": {
                "status": "completed", "input": {"command": "grep -c x f"}, "output": "3\n", "metadata": {"exit": 0}}}},
        {"type": "step_finish", "timestamp": 1768191339000, "part": {
            "type": "step-finish", "reason": "tool-calls", "cost": 0,
            "tokens": {"input": 1500, "output": 60, "reasoning": 20, "cache": {"read": 4000, "write": 100}}}},
        {"type": "text", "timestamp": 1768191340000, "part": {"type": "text", "text": "Three."}},
        {"type": "step_finish", "timestamp": 1768191341000, "part": {
            "type": "step-finish", "reason": "stop", "tokens": {"input": 80, "output": 4, "cache": {"read": 5500}}}},
    )
    parsed = OpenCodeAdapter.parse_log(log)
    assert [(s.command, s.output, s.exit_code) for s in parsed.steps] == [("grep -c x f", "3\n", 0)]
    assert parsed.steps[0].started_at.timestamp() == 1768191338.0
    assert [c.tokens for c in parsed.calls] == [TokenUsage(input=1600, cached_input=4000, output=60, reasoning=20),
                                                TokenUsage(input=80, cached_input=5500, output=4)]
    assert parsed.final_message == "Three."


def test_mini_swe_agent_trajectory_counts_format_error_calls():
    response = {"model": "gpt-4o-2024-08-06", "usage": {"prompt_tokens": 100, "completion_tokens": 10,
                                                        "prompt_tokens_details": {"cached_tokens": 40}}}
    traj = {"trajectory_format": "mini-swe-agent-1.1", "messages": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "task"},
        {"role": "user", "content": "format error", "extra": {"interrupt_type": "FormatError", "response": response}},
        {"role": "assistant", "content": "x", "extra": {"actions": [{"command": "ls"}], "response": response,
                                                       "timestamp": 1700000000.0}},
        {"role": "user", "content": "obs", "extra": {"raw_output": "f\n", "returncode": 0, "timestamp": 1700000001.0}},
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": "diff"}},
    ]}
    parsed = MiniSweAgentAdapter.parse_log(json.dumps(traj))
    assert len(parsed.calls) == 2
    assert parsed.calls[0].tokens == TokenUsage(input=60, cached_input=40, output=10)
    assert parsed.reported_models == ["gpt-4o-2024-08-06"]
    assert [(s.command, s.output, s.exit_code) for s in parsed.steps] == [("ls", "f\n", 0)]
    assert (parsed.steps[0].ended_at - parsed.steps[0].started_at).total_seconds() == 1.0
    assert parsed.final_message == "diff"


def test_aider_takes_usage_from_the_last_usage_on_the_line():
    sneaky = "usage=Usage(completion_tokens=999, prompt_tokens=999)"
    line = (f"ModelResponse(id='c1', created=1, model='gpt-4o', object='chat.completion', choices=[Choices("
            f"message=Message(content='{sneaky}'))], usage=Usage(completion_tokens=12, prompt_tokens=653, "
            "total_tokens=665, completion_tokens_details=CompletionTokensDetailsWrapper(reasoning_tokens=2), "
            "prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=50)), service_tier=None)")
    parsed = AiderAdapter.parse_log(f"Aider v0.86.2\n{line}\nApplied edit to src/a.py\nApplied edit to b.txt\n")
    assert [c.tokens for c in parsed.calls] == [TokenUsage(input=603, cached_input=50, output=10, reasoning=2)]
    assert parsed.reported_models == ["gpt-4o"]
    assert [s.tool_call for s in parsed.steps] == [{"name": "edit", "path": "src/a.py"}, {"name": "edit", "path": "b.txt"}]


# aider 0.86.2's stdout (--verbose --no-stream --no-pretty, confirmations read from /dev/null) after one reply with
# a prose line, a new-file edit and four shell blocks, as it printed it here (the ModelResponse line shortened).
AIDER_0_86_LOG = """\
ModelResponse(id='chatcmpl-43b63c694557', created=1796307350, model='stub/scripted', object='chat.completion', \
choices=[Choices(finish_reason='stop', index=0, message=Message(content="Running the plan now.\\n…"))], \
usage=Usage(completion_tokens=48, prompt_tokens=2496, total_tokens=2544, completion_tokens_details=\
CompletionTokensDetailsWrapper(reasoning_tokens=0), prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=0\
)), service_tier=None)
Running the plan now.

notes.txt
```
<<<<<<< SEARCH
=======
hello
>>>>>>> REPLACE
```

```bash
printf 'no newline'
```

```bash
ls missing
```

Tokens: 2.5k sent, 48 received.

notes.txt
Create new file? (Y)es/(N)o [Yes]: Applied edit to notes.txt

printf 'no newline'
Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]:
Running printf 'no newline'
no newlineAdd command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: Added 2 lines of output to the chat.

printf 'a\\n\\nb\\n'
Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]:
Running printf 'a\\n\\nb\\n'
a

b
Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: Added 4 lines of output to the chat.

ls missing
Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]:
Running ls missing
ls: cannot access 'missing': No such file or directory
Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: Added 2 lines of output to the chat.

touch x
Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]:
Running touch x

true
Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]:
Running true
""".replace("[Yes]:\n", "[Yes]: \n")  # input() printed the question, end of input answered it: no newline of its own


def test_aider_steps_are_its_applied_edits_and_the_shell_commands_it_ran_with_their_output():
    parsed = AiderAdapter.parse_log(AIDER_0_86_LOG)
    assert [c.tokens for c in parsed.calls] == [TokenUsage(input=2496, output=48)]
    assert [(s.command, s.tool_call, s.output) for s in parsed.steps] == [
        (None, {"name": "edit", "path": "notes.txt"}, "Applied edit to notes.txt"),
        ("printf 'no newline'", None, "no newline"),
        ("printf 'a\\n\\nb\\n'", None, "a\n\nb\n"),
        ("ls missing", None, "ls: cannot access 'missing': No such file or directory\n"),
        ("touch x", None, ""),  # no output: the next block's blank line follows at once
        ("true", None, ""),
    ]
    assert [s.index for s in parsed.steps] == list(range(6))
    assert all(s.exit_code is None for s in parsed.steps)  # aider prints no exit code


def test_aider_prose_that_looks_like_a_run_is_no_step():
    """A `Running …` line of the model's reply (before any confirmation, or not among the offered commands) is
    not a command aider ran."""
    log = AIDER_0_86_LOG.replace("Running the plan now.", "Running ls missing") + "Running rm -rf /\n"
    assert [s.command for s in AiderAdapter.parse_log(log).steps if s.command] == [
        "printf 'no newline'", "printf 'a\\n\\nb\\n'", "ls missing", "touch x", "true"]


@pytest.mark.parametrize("adapter", [MiniSweAgentAdapter, GeminiCliAdapter])
def test_unreadable_single_document_logs_raise_value_error(adapter):
    with pytest.raises(ValueError):
        adapter.parse_log("Error: something went wrong before any JSON\n")
