"""The sim personas' tools dialect: answering real agent CLIs (Claude Code, Codex CLI) in calls of their own
shell tool, read out of requests those CLIs really sent (tests/data/cli_requests, captured through the
gateway from claude 2.1.327 and codex-cli 0.163.0, long system texts and tool descriptions trimmed)."""

from __future__ import annotations

import copy
import json
import urllib.request
from pathlib import Path

import pytest

from matchmeter.llm.gateway_wire import AnthropicWire
from matchmeter.llm.gateway_wire_responses import ResponsesWire
from matchmeter.llm.sim import (
    PERSONAS,
    SUBMIT,
    build_plan,
    description_of,
    dialect_of,
    next_turn,
    shell_tool,
    sim_api_base,
    turns_taken,
)
from matchmeter.schema import TaskSpec

DATA = Path(__file__).parent.parent / "data" / "cli_requests"
PROMPT = "Remove files older than 7 days from ./tmp.\nKeep the rest."  # what the adapter gave both CLIs
REF = ["mkdir -p out", "cp data/input.txt 'out/a b.txt'", "wc -l < data/input.txt > out/count.txt"]


def _task() -> TaskSpec:
    return TaskSpec(id="multi-step", source_family="terminal", category="file-ops", difficulty="easy",
                    instruction=PROMPT, subgoals=[{"name": "a", "weight": 1}], reference_paths=[{"commands": REF}])


def _claude() -> list[dict]:
    return json.loads((DATA / "claude-code-2.1.327-first.json").read_text())


def _codex() -> list[dict]:
    return json.loads((DATA / "codex-0.163.0.json").read_text())


def _claude_turn(body: dict, turn, n: int) -> None:
    """Append one answered turn the way Claude Code sends it back: the assistant's text and tool_use blocks,
    then a user message with the tool_result first and a reminder of its own after it."""
    blocks = [{"type": "text", "text": turn.text}]
    blocks += [{"type": "tool_use", "id": c["id"], "name": c["function"]["name"],
                "input": json.loads(c["function"]["arguments"])} for c in turn.tool_calls]
    body["messages"] += [{"role": "assistant", "content": blocks},
                         {"role": "user", "content": [
                             {"type": "tool_result", "tool_use_id": turn.tool_calls[0]["id"], "content": f"out {n}",
                              "is_error": False},
                             {"type": "text", "text": "<system-reminder>\nA todo list is empty.\n</system-reminder>"}]}]


def _codex_turn(body: dict, turn, n: int) -> None:
    """Append one answered turn as Codex sends it back: a message item, a function_call item, its output."""
    call = turn.tool_calls[0]
    body["input"] += [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": turn.text}]},
                      {"type": "function_call", "call_id": call["id"], "name": call["function"]["name"],
                       "arguments": call["function"]["arguments"]},
                      {"type": "function_call_output", "call_id": call["id"], "output": f"Process exited with code 0 {n}"}]


CLIS = {"claude-code": (_claude, AnthropicWire, _claude_turn, ("Bash", "command")),
        "codex": (_codex, ResponsesWire, _codex_turn, ("exec_command", "cmd"))}


@pytest.mark.parametrize("cli", sorted(CLIS))
def test_the_prompt_and_the_shell_tool_are_found_in_each_cli_s_real_request(cli):
    load, wire, _, (tool, argument) = CLIS[cli]
    first = wire().parse(load()[0])
    tools = first.sampling["tools"]
    assert dialect_of(first.messages, tools) == "tools"
    assert shell_tool(tools)[:2] == (tool, argument)
    # Claude Code puts its <system-reminder> parts before the prompt in the same message, Codex its
    # environment context in a message of its own: neither reaches the description.
    assert description_of(first.messages, "tools") == PROMPT
    assert turns_taken(first.messages, "tools") == 0
    if cli == "codex":  # its real second request: the call and its output went back, one turn taken
        second = wire().parse(load()[1])
        assert (description_of(second.messages, "tools"), turns_taken(second.messages, "tools")) == (PROMPT, 1)


@pytest.mark.parametrize("cli", sorted(CLIS))
def test_each_persona_plays_its_plan_as_calls_of_the_cli_s_shell_tool(cli):
    """Driven through the gateway's wire in the CLI's own history shape, every persona's calls are its plan
    for the description, the same plan the bash dialect follows; `submit` is a text-only reply."""
    load, wire, append, (tool, argument) = CLIS[cli]
    task = _task()
    for persona in PERSONAS:
        for seed in range(4):
            body, seen = copy.deepcopy(load()[0]), []
            for n in range(30):
                parsed = wire().parse(body)
                turn = next_turn(task, seed, persona, parsed.messages, parsed.sampling["tools"])
                assert turn.text.startswith(f"THOUGHT (SIMULATED sim/{persona}):")
                if turn.tool_calls is None:
                    seen.append(SUBMIT)
                    break
                (call,) = turn.tool_calls
                assert call["function"]["name"] == tool
                seen.append(json.loads(call["function"]["arguments"]).get(argument, "<no command>"))
                append(body, turn, n)
            plan = build_plan(task, seed, persona, PROMPT)
            assert seen == [a.command if a.kind != "noformat" else "<no command>" for a in plan]


def test_an_argv_shell_tool_gets_the_command_as_bash_lc_and_the_stub_answers_with_the_call(make_stub):
    """A shell tool whose schema takes the command as an array (as Codex's `shell` tool does) gets argv; the
    stub serves the call over HTTP, labelled simulated."""
    task = _task()
    stub = make_stub(tasks={task.id: task})
    tools = [{"type": "function", "function": {"name": "shell", "parameters": {
        "type": "object", "properties": {"command": {"type": "array", "items": {"type": "string"}}}}}}]
    body = json.dumps({"model": "sim/expert", "tools": tools,
                       "messages": [{"role": "user", "content": PROMPT}]}).encode()
    request = urllib.request.Request(f"{sim_api_base(stub.url, task.id, 0)}/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        data, header = json.loads(response.read()), response.headers["X-Matchmeter-Simulated"]
    assert header == "1"
    choice = data["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"].startswith("THOUGHT (SIMULATED sim/expert):")
    (call,) = choice["message"]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"command": ["bash", "-lc", REF[0]]}
    assert data["usage"]["completion_tokens"] > 0


@pytest.mark.parametrize(("name", "argument"), [("Bash", "command"), ("exec_command", "cmd"), ("shell", "command"),
                                                ("run_shell_command", "command")])
def test_every_shell_tool_of_the_table_gets_its_command_argument(name, argument):
    """The one table of shell tools: each name gets a call with the command under its own argument; a tool
    that is not in it (Claude Code's Read, say) leaves the request in the bash dialect."""
    tools = [{"type": "function", "function": {"name": "Read", "parameters": {"type": "object"}}},
             {"type": "function", "function": {"name": name, "parameters": {
                 "type": "object", "properties": {argument: {"type": "string"}}}}}]
    messages = [{"role": "user", "content": PROMPT}]
    turn = next_turn(_task(), 0, "expert", messages, tools)
    (call,) = turn.tool_calls
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == (name, {argument: REF[0]})
    assert dialect_of(messages, tools[:1]) == "bash"
