"""The gateway's OpenAI Responses and Gemini routes, driven by the real `openai` and `google-genai` SDKs
against the loopback stub: replies, event sequences, usage and metering = stub usage × price."""

from __future__ import annotations

import httpx
import pytest

from matchmeter.llm.meter import ExecutionBudget

MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hello world please"}]


def _price(usage):  # stub/* prices.toml: 1.00 USD / 1M input, 4.00 / 1M output (simulated)
    return (usage["prompt_tokens"] * 1 + usage["completion_tokens"] * 4) / 1_000_000


class Recorder:
    """A stub script that keeps the chat messages the upstream received."""

    def __init__(self, *replies):
        self.replies, self.requests = list(replies), []

    def __call__(self, request):
        self.requests.append(request)
        return self.replies.pop(0)


def _assert_metered(meter, usages, api):
    assert [c.api for c in meter.calls] == [api] * len(usages)
    for call, usage in zip(meter.calls, usages, strict=True):
        assert call.status == 200
        assert call.tokens.input + call.tokens.cached_input == usage["prompt_tokens"]
        assert call.tokens.output + call.tokens.reasoning == usage["completion_tokens"]
        assert call.cost.usd == _price(usage)


RESPONSES_EVENTS = ["response.created", "response.in_progress", "response.output_item.added",
                    "response.content_part.added"]
RESPONSES_END = ["response.output_text.done", "response.content_part.done", "response.output_item.done",
                 "response.completed"]


def test_responses_api_with_the_openai_sdk_plain_and_streamed(gateway, make_stub, tmp_path, upstream):
    import openai

    script = Recorder("hello world", "streamed responses answer", "via the stream helper")
    stub = make_stub(script)
    session = gateway.open_session("exec-resp", upstream(stub))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    plain = sdk.responses.create(model="gpt-5-codex", instructions="be brief", input="say hello world please")
    assert plain.output_text == "hello world"
    assert plain.status == "completed"
    assert plain.usage.input_tokens == stub.stats.usages[0]["prompt_tokens"]
    assert plain.usage.output_tokens == stub.stats.usages[0]["completion_tokens"]
    assert script.requests[0]["messages"] == MSGS  # instructions → system, input → user

    # Codex sends a list of items: a developer message, user content parts, a function call and its output.
    items = [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]},
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run ls"}]},
             {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"cmd": "ls"}'},
             {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}]
    events = list(sdk.responses.create(model="gpt-5-codex", input=items, stream=True))
    kinds = [e.type for e in events]
    assert kinds[:4] == RESPONSES_EVENTS
    assert kinds[-4:] == RESPONSES_END
    assert set(kinds[4:-4]) == {"response.output_text.delta"}
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert "".join(e.delta for e in events[4:-4]) == "streamed responses answer"
    completed = events[-1].response
    assert completed.output_text == "streamed responses answer"
    assert completed.usage.total_tokens == stub.stats.usages[1]["total_tokens"]
    assert script.requests[1]["messages"] == [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "run ls"},
        {"role": "assistant", "content": '[function_call shell: {"cmd": "ls"}]'},
        {"role": "user", "content": "[function_call_output: a.txt]"}]

    # The SDK's own accumulator checks that item ids and indexes of the events fit together.
    with sdk.responses.stream(model="gpt-5-codex", input="again please") as stream:
        final = stream.get_final_response()
    assert final.output_text == "via the stream helper"
    meter = gateway.close_session(session)
    assert [c.stream for c in meter.calls] == [False, True, True]
    assert [c.model_asked for c in meter.calls] == ["gpt-5-codex"] * 3
    _assert_metered(meter, stub.stats.usages, "responses")


def test_responses_api_refusal_is_a_402_the_sdk_does_not_retry(gateway, make_stub, tmp_path, upstream):
    import openai

    stub = make_stub(["a" * 40])
    session = gateway.open_session("exec-r402", upstream(stub), ExecutionBudget(tokens=20))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=2)
    sdk.responses.create(model="m", input="say hello world please")
    with pytest.raises(openai.APIStatusError) as refused:
        sdk.responses.create(model="m", input="more", stream=True)
    assert refused.value.status_code == 402
    assert "tokens budget exceeded" in refused.value.message
    assert [c.status for c in gateway.close_session(session).calls] == [200, 402]
    bad = httpx.post(f"{gateway.url}/v1/responses", json={"model": "m", "input": 7},
                     headers={"Authorization": "Bearer x"})
    assert bad.status_code == 401


def test_gemini_api_with_the_google_genai_sdk_plain_and_streamed(gateway, make_stub, tmp_path, upstream):
    from google import genai
    from google.genai import types

    script = Recorder("hello from gemini", {"text": "streamed gemini answer", "cache_prefix": True,
                                            "reasoning_tokens": 3})
    stub = make_stub(script)
    session = gateway.open_session("exec-gem", upstream(stub))
    client = genai.Client(api_key=session.token, http_options=types.HttpOptions(base_url=gateway.url))
    config = types.GenerateContentConfig(system_instruction="be brief", max_output_tokens=50, temperature=0.0)
    plain = client.models.generate_content(model="gemini-2.5-pro", contents="say hello world please", config=config)
    assert plain.text == "hello from gemini"
    assert plain.usage_metadata.prompt_token_count == stub.stats.usages[0]["prompt_tokens"]
    assert plain.usage_metadata.candidates_token_count == stub.stats.usages[0]["completion_tokens"]
    assert script.requests[0]["messages"] == MSGS
    assert script.requests[0]["max_tokens"] == 50

    history = [types.Content(role="user", parts=[types.Part(text="say hello world please")]),
               types.Content(role="model", parts=[types.Part(text="hello from gemini")]),
               types.Content(role="user", parts=[types.Part(text="once more")])]
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-pro", contents=history, config=config))
    assert "".join(c.text or "" for c in chunks) == "streamed gemini answer"
    assert len(chunks) >= 2  # deltas, then the final chunk with the usage
    usage, second = chunks[-1].usage_metadata, stub.stats.usages[1]
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    assert usage.prompt_token_count == second["prompt_tokens"]
    assert usage.cached_content_token_count == second["prompt_tokens_details"]["cached_tokens"] > 0
    assert usage.thoughts_token_count == 3
    assert usage.candidates_token_count == second["completion_tokens"] - 3
    assert [m["role"] for m in script.requests[1]["messages"]] == ["system", "user", "assistant", "user"]
    meter = gateway.close_session(session)
    assert [c.model_asked for c in meter.calls] == ["gemini-2.5-pro", "gemini-2.5-pro"]
    assert [c.stream for c in meter.calls] == [False, True]
    assert [c.api for c in meter.calls] == ["gemini", "gemini"]
    assert meter.calls[0].cost.usd == _price(stub.stats.usages[0])
    assert meter.tokens.total == sum(u["total_tokens"] for u in stub.stats.usages)


def test_gemini_refusal_and_bad_token_are_google_shaped_errors(gateway, make_stub, tmp_path, upstream):
    from google import genai
    from google.genai import errors, types

    stub = make_stub(["a" * 40])
    session = gateway.open_session("exec-g402", upstream(stub), ExecutionBudget(tokens=20))
    client = genai.Client(api_key=session.token, http_options=types.HttpOptions(base_url=gateway.url))
    client.models.generate_content(model="gemini-2.5-flash", contents="say hello world please")
    with pytest.raises(errors.ClientError) as refused:
        client.models.generate_content(model="gemini-2.5-flash", contents="more")
    assert refused.value.code == 402
    assert refused.value.status == "RESOURCE_EXHAUSTED"
    assert "tokens budget exceeded" in refused.value.message
    stranger = genai.Client(api_key="AIza-not-a-gateway-token", http_options=types.HttpOptions(base_url=gateway.url))
    with pytest.raises(errors.ClientError) as unknown:
        stranger.models.generate_content(model="gemini-2.5-flash", contents="hi")
    assert unknown.value.code == 401
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    as_query = httpx.post(f"{gateway.url}/v1beta/models/gemini-2.5-flash:generateContent",
                          params={"key": session.token}, json=body)
    assert as_query.status_code == 402  # the token in ?key= is known (else 401); the budget still refuses
    v1 = httpx.post(f"{gateway.url}/v1/models/gemini-2.5-flash:generateContent",
                    headers={"x-goog-api-key": session.token}, json=body)
    assert v1.status_code == 402  # the same API under /v1
    other = httpx.post(f"{gateway.url}/v1beta/models/gemini-2.5-flash:countTokens", params={"key": session.token},
                       json=body)
    assert other.status_code == 404
    assert other.json()["error"]["status"] == "NOT_FOUND"
    assert stub.stats.http_calls == 1


TOOLS = [{"type": "function", "function": {"name": "shell", "description": "run a command",
                                           "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}},
                                                          "required": ["cmd"]}}}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": '{"cmd": "ls -la data"}'}}


def test_openai_chat_forwards_tools_and_returns_tool_calls_plain_and_streamed(gateway, make_stub, tmp_path, upstream):
    import openai

    script = Recorder({"text": "", "tool_calls": [CALL]}, {"text": "", "tool_calls": [CALL]}, "the files are a, b")
    stub = make_stub(script)
    session = gateway.open_session("exec-tools", upstream(stub, use_cache=False))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    plain = sdk.chat.completions.create(model="m", messages=MSGS, tools=TOOLS, tool_choice="auto")
    assert plain.choices[0].finish_reason == "tool_calls"
    assert [c.model_dump() for c in plain.choices[0].message.tool_calls] == [CALL]
    assert script.requests[0]["tools"] == TOOLS
    assert script.requests[0]["tool_choice"] == "auto"

    chunks = list(sdk.chat.completions.create(model="m", messages=MSGS, tools=TOOLS, stream=True))
    fragments = [t for c in chunks if c.choices for t in (c.choices[0].delta.tool_calls or [])]
    assert len(fragments) == 1  # the upstream's two fragments, assembled at the door
    assert (fragments[0].id, fragments[0].function.name, fragments[0].function.arguments) == (
        "call_1", "shell", '{"cmd": "ls -la data"}')
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"

    # The next turn carries the assistant's tool call and the tool's result upstream unchanged.
    turn = [*MSGS, {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a\nb"}]
    final = sdk.chat.completions.create(model="m", messages=turn, tools=TOOLS)
    assert final.choices[0].message.content == "the files are a, b"
    upstream_turn = script.requests[2]["messages"]
    assert upstream_turn[2]["tool_calls"] == [CALL]
    assert upstream_turn[3] == turn[3]
    meter = gateway.close_session(session)
    _assert_metered(meter, stub.stats.usages, "openai")


RESPONSES_TOOLS = [{"type": "function", "name": "shell", "description": "run a command", "strict": False,
                    "parameters": TOOLS[0]["function"]["parameters"]},
                   {"type": "web_search"}]  # a built-in tool: not forwarded


def test_responses_api_forwards_function_tools_and_returns_function_calls(gateway, make_stub, tmp_path, upstream):
    import openai

    script = Recorder({"text": "", "tool_calls": [CALL]}, {"text": "let me look", "tool_calls": [CALL]},
                      {"text": "", "tool_calls": [CALL]}, "the files are a, b")
    stub = make_stub(script)
    session = gateway.open_session("exec-rtools", upstream(stub, use_cache=False))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    plain = sdk.responses.create(model="gpt-5-codex", input="list data", tools=RESPONSES_TOOLS, tool_choice="auto")
    assert [(o.type, o.call_id, o.name, o.arguments) for o in plain.output] == [
        ("function_call", "call_1", "shell", '{"cmd": "ls -la data"}')]
    assert script.requests[0]["tools"] == [{"type": "function", "function": {
        "name": "shell", "description": "run a command", "parameters": TOOLS[0]["function"]["parameters"],
        "strict": False}}]
    assert script.requests[0]["tool_choice"] == "auto"

    events = list(sdk.responses.create(model="gpt-5-codex", input="list data", tools=RESPONSES_TOOLS, stream=True))
    kinds = [e.type for e in events]
    assert kinds.count("response.output_text.delta") >= 1
    assert kinds[-5:] == ["response.output_item.added", "response.function_call_arguments.delta",
                          "response.function_call_arguments.done", "response.output_item.done", "response.completed"]
    assert [o.type for o in events[-1].response.output] == ["message", "function_call"]
    assert events[-1].response.output_text == "let me look"

    with sdk.responses.stream(model="gpt-5-codex", input="list data", tools=RESPONSES_TOOLS) as stream:
        final = stream.get_final_response()  # the SDK's accumulator accepts our item ids and indexes
    assert [(o.type, o.arguments) for o in final.output] == [("function_call", '{"cmd": "ls -la data"}')]

    # Codex's next turn: the call and its output go upstream as a tool_calls message and a tool message.
    history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list data"}]},
               {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": '{"cmd": "ls -la data"}'},
               {"type": "function_call_output", "call_id": "call_1", "output": "a\nb"}]
    answer = sdk.responses.create(model="gpt-5-codex", input=history, tools=RESPONSES_TOOLS)
    assert answer.output_text == "the files are a, b"
    upstream_turn = script.requests[3]["messages"]
    assert upstream_turn[1]["tool_calls"] == [CALL]
    assert upstream_turn[2] == {"role": "tool", "tool_call_id": "call_1", "content": "a\nb"}
    _assert_metered(gateway.close_session(session), stub.stats.usages, "responses")
