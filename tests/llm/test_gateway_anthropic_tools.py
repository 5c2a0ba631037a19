"""Tool calls through the gateway's Anthropic Messages wire, driven by the real `anthropic` SDK against the
loopback stub: tool definitions and tool_choice go upstream as OpenAI function tools, tool_use/tool_result
history as tool calls and tool messages, the upstream's tool calls come back as tool_use blocks (JSON and
SSE, which the SDK's own stream accumulator assembles), with the metered usage.

Before this wire carried tools, the gateway forwarded no tool and turned a tool call into an empty text
block: every test here failed on that code."""

from __future__ import annotations

import json

import pytest

from matchmeter.llm.stub_server import StubReply

BASH = {"name": "Bash", "description": "Run a bash command.",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
CALL = {"id": "toolu_01", "type": "function", "function": {"name": "Bash", "arguments": '{"command": "ls -la"}'}}


class Recorder:
    """A stub script that keeps the chat requests the upstream received."""

    def __init__(self, *replies):
        self.replies, self.requests = list(replies), []

    def __call__(self, request):
        self.requests.append(request)
        return self.replies.pop(0)


@pytest.fixture
def sdk_for(gateway):
    import anthropic

    def make(session):
        return anthropic.Anthropic(base_url=gateway.url, api_key=session.token, max_retries=0)

    return make


def _round_trip(client, stream: bool):
    """Ask with the Bash tool, answer its call with an error result and a text part, get the final text."""
    ask = {"model": "claude-x", "max_tokens": 200, "tools": [BASH], "tool_choice": {"type": "auto"},
           "system": [{"type": "text", "text": "be brief"}, {"type": "text", "text": "use tools"}],
           "messages": [{"role": "user", "content": [{"type": "text", "text": "<system-reminder>r</system-reminder>"},
                                                     {"type": "text", "text": "list the files"}]}]}
    if stream:
        with client.messages.stream(**ask) as events:
            first = events.get_final_message()
    else:
        first = client.messages.create(**ask)
    follow = {**ask, "messages": [*ask["messages"], {"role": "assistant", "content": first.content},
                                  {"role": "user", "content": [
                                      {"type": "tool_result", "tool_use_id": first.content[-1].id, "is_error": True,
                                       "content": [{"type": "text", "text": "ls: cannot access"}]},
                                      {"type": "text", "text": "go on"}]}]}
    if stream:
        with client.messages.stream(**follow) as events:
            second = events.get_final_message()
    else:
        second = client.messages.create(**follow)
    return first, second


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_tool_round_trip_with_the_anthropic_sdk(gateway, make_stub, upstream, sdk_for, stream):
    script = Recorder(StubReply(text="Let me look.", tool_calls=[CALL]), "There are no files.")
    stub = make_stub(script)
    session = gateway.open_session(f"exec-anth-{stream}", upstream(stub, use_cache=False))
    first, second = _round_trip(sdk_for(session), stream)

    assert [b.type for b in first.content] == ["text", "tool_use"]
    assert first.content[0].text == "Let me look."
    tool_use = first.content[1]
    assert (tool_use.id, tool_use.name, tool_use.input) == ("toolu_01", "Bash", {"command": "ls -la"})
    assert first.stop_reason == "tool_use"
    assert [(b.type, b.text) for b in second.content] == [("text", "There are no files.")]
    assert second.stop_reason == "end_turn"
    for message, usage in zip((first, second), stub.stats.usages, strict=True):  # the metered usage, not zeros
        assert message.usage.input_tokens + message.usage.cache_read_input_tokens == usage["prompt_tokens"] > 0
        assert message.usage.output_tokens == usage["completion_tokens"] > 0

    sent = script.requests[0]
    assert sent["tools"] == [{"type": "function", "function": {"name": "Bash", "description": "Run a bash command.",
                                                               "parameters": BASH["input_schema"]}}]
    assert sent["tool_choice"] == "auto"
    assert sent["messages"] == [  # system blocks joined; the user's text parts kept apart
        {"role": "system", "content": "be brief\nuse tools"},
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>r</system-reminder>"},
                                     {"type": "text", "text": "list the files"}]}]
    assert script.requests[1]["messages"][2:] == [
        {"role": "assistant", "content": "Let me look.", "tool_calls": [CALL | {"function": {
            "name": "Bash", "arguments": json.dumps({"command": "ls -la"})}}]},
        {"role": "tool", "tool_call_id": "toolu_01", "content": "[tool error] ls: cannot access"},
        {"role": "user", "content": "go on"}]
    meter = gateway.close_session(session)
    assert [(c.api, c.stream, c.status) for c in meter.calls] == [("anthropic", stream, 200)] * 2


def test_a_tool_only_reply_streams_no_text_block(gateway, make_stub, upstream, tmp_path):
    """Claude Code reads the events itself: a reply that is only a tool call must be exactly one tool_use
    block (start, input_json_delta, stop) and stop_reason tool_use, not an empty text block before it."""
    import httpx

    stub = make_stub([StubReply(text="", tool_calls=[CALL, {**CALL, "id": "toolu_02", "function": {
        "name": "Bash", "arguments": '{"command": "pwd"}'}}])])
    session = gateway.open_session("exec-anth-raw", upstream(stub, use_cache=False))
    body = {"model": "m", "stream": True, "max_tokens": 50, "tools": [BASH],
            "messages": [{"role": "user", "content": "where am I"}]}
    text = httpx.post(f"{gateway.url}/v1/messages", json=body, headers={"x-api-key": session.token}).text
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events] == ["message_start"] + ["content_block_start", "content_block_delta",
                                                               "content_block_stop"] * 2 + ["message_delta", "message_stop"]
    starts = [e for e in events if e["type"] == "content_block_start"]
    assert [(e["index"], e["content_block"]["type"], e["content_block"]["id"]) for e in starts] == [
        (0, "tool_use", "toolu_01"), (1, "tool_use", "toolu_02")]
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert [json.loads(d["partial_json"]) for d in deltas if d["type"] == "input_json_delta"] == [
        {"command": "ls -la"}, {"command": "pwd"}]
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert events[-2]["usage"]["output_tokens"] == stub.stats.usages[0]["completion_tokens"]
    # message_start already shows the prompt's input tokens (the gateway's own count, the stub's here), as
    # the Anthropic API does: Claude Code's assistant events carry that usage, not zeros
    assert events[0]["message"]["usage"]["input_tokens"] == stub.stats.usages[0]["prompt_tokens"] > 0


def test_without_tools_in_the_request_tool_history_stays_readable_text(gateway, make_stub, upstream, sdk_for):
    script = Recorder("ok")
    stub = make_stub(script)
    session = gateway.open_session("exec-anth-text", upstream(stub, use_cache=False))
    sdk_for(session).messages.create(model="m", max_tokens=20, messages=[
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}]}])
    assert "tools" not in script.requests[0]
    assert [m["content"] for m in script.requests[0]["messages"]] == [
        "hi", '[tool_use Bash: {"command": "ls"}]', "[tool_result: a.txt]"]
