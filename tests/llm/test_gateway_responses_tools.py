"""The Responses wire carries Codex CLI's own tools both ways, built from the request bodies Codex 0.163.0 really
sent through the gateway (tests/data/cli_requests/codex-0.163.0-responses-tools.json, captured from the wheel's
binary: model gpt-5.5, whose tools include the custom `apply_patch` and `tool_search`, after one apply_patch call;
model gpt-5-codex, whose tools include the `multi_agent_v1` namespace group, after one exec_command call).

Function tools, the tools of a namespace group and custom (freeform) tools reach the upstream as chat function
tools; built-in ones (web_search, tool_search) do not. The model's calls come back in the shape the request
offered the tool, as plain JSON and as the event stream the real `openai` SDK parses and accumulates. Each of
these tests fails on the wire before custom and namespace tools were carried (function tools only)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.llm.test_gateway_apis import Recorder, _assert_metered

BODIES = json.loads((Path(__file__).parents[1] / "data" / "cli_requests" / "codex-0.163.0-responses-tools.json")
                    .read_text())
PATCHED = BODIES["gpt-5.5 after apply_patch"]
NAMESPACED = BODIES["gpt-5-codex after exec_command"]
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"
PATCH_CALL = {"id": "call_p", "type": "function", "function": {"name": "apply_patch",
                                                              "arguments": json.dumps({"input": PATCH})}}
SPAWN_CALL = {"id": "call_s", "type": "function", "function": {"name": "multi_agent_v1__spawn_agent",
                                                              "arguments": '{"message": "look around"}'}}


def _names(request):
    return [t["function"]["name"] for t in request["tools"]]


def test_codex_tools_reach_the_upstream_custom_and_namespaced_ones_included(gateway, make_stub, upstream):
    import httpx

    script = Recorder("ok", "ok")
    stub = make_stub(script)
    session = gateway.open_session("exec-codex-tools", upstream(stub, use_cache=False))
    for body in (PATCHED, NAMESPACED):
        sent = httpx.post(f"{gateway.url}/v1/responses", json={**body, "stream": False}, timeout=60,
                          headers={"Authorization": f"Bearer {session.token}"})
        assert sent.status_code == 200, sent.text
    patched, namespaced = script.requests
    # gpt-5.5: every function tool and the custom apply_patch; web_search and tool_search are built-ins, left out
    assert [t["type"] for t in PATCHED["tools"]].count("tool_search") == 1
    assert _names(patched) == ["exec_command", "write_stdin", "request_user_input", "apply_patch", "view_image",
                               "get_goal", "create_goal", "update_goal"]
    apply_patch = next(t["function"] for t in patched["tools"] if t["function"]["name"] == "apply_patch")
    assert apply_patch["parameters"]["required"] == ["input"]
    assert apply_patch["parameters"]["properties"]["input"]["type"] == "string"
    grammar = next(t for t in PATCHED["tools"] if t.get("name") == "apply_patch")["format"]["definition"]
    assert grammar in apply_patch["parameters"]["properties"]["input"]["description"]  # the model is told the grammar
    exec_command = next(t for t in PATCHED["tools"] if t.get("name") == "exec_command")
    assert patched["tools"][0]["function"]["parameters"] == exec_command["parameters"]
    # ... and its apply_patch call and output in the history go up as a tool call and a tool message
    assert patched["messages"][-2]["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "apply_patch", "arguments": json.dumps({"input": PATCH})}}]
    assert patched["messages"][-1]["role"] == "tool"
    assert patched["messages"][-1]["tool_call_id"] == "call_1"
    assert "Success. Updated the following files:\nA hello.txt" in patched["messages"][-1]["content"]
    # gpt-5-codex: the five tools of the multi_agent_v1 namespace, named <namespace>__<tool> upstream
    assert [n for n in _names(namespaced) if "__" in n] == [
        f"multi_agent_v1__{n}" for n in ("close_agent", "resume_agent", "send_input", "spawn_agent", "wait_agent")]
    assert "exec_command" in _names(namespaced)
    assert namespaced["messages"][-2]["tool_calls"][0]["function"]["name"] == "exec_command"
    assert namespaced["messages"][-1]["role"] == "tool"
    assert namespaced["tool_choice"] == "auto"
    assert namespaced["parallel_tool_calls"] is True
    _assert_metered(gateway.close_session(session), stub.stats.usages, "responses")


def test_custom_and_namespaced_calls_come_back_in_codex_shape_plain_and_streamed(gateway, make_stub, upstream):
    import openai

    replies = [{"text": "", "tool_calls": [PATCH_CALL]}, {"text": "patching", "tool_calls": [PATCH_CALL]},
               {"text": "", "tool_calls": [PATCH_CALL]}, {"text": "", "tool_calls": [SPAWN_CALL]},
               {"text": "", "tool_calls": [SPAWN_CALL]}]
    stub = make_stub(Recorder(*replies))
    session = gateway.open_session("exec-codex-calls", upstream(stub, use_cache=False))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    request = {k: PATCHED[k] for k in ("model", "input", "tools", "tool_choice", "parallel_tool_calls")}

    plain = sdk.responses.create(**request)
    assert [(o.type, o.call_id, o.name, o.input) for o in plain.output] == [("custom_tool_call", "call_p", "apply_patch",
                                                                           PATCH)]
    events = list(sdk.responses.create(**request, stream=True))
    kinds = [e.type for e in events]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert kinds[-5:] == ["response.output_item.added", "response.custom_tool_call_input.delta",
                          "response.custom_tool_call_input.done", "response.output_item.done", "response.completed"]
    assert kinds[2:4] == ["response.output_item.added", "response.content_part.added"]  # the text came first
    assert (events[-4].delta, events[-3].input) == (PATCH, PATCH)
    assert events[-5].item.type == "custom_tool_call"
    assert events[-5].output_index == events[-2].output_index == 1
    assert [o.type for o in events[-1].response.output] == ["message", "custom_tool_call"]
    with sdk.responses.stream(**request) as stream:  # the SDK's accumulator checks ids and indexes fit together
        final = stream.get_final_response()
    assert [(o.type, o.input) for o in final.output] == [("custom_tool_call", PATCH)]

    namespaced = {**request, "tools": NAMESPACED["tools"]}
    call = sdk.responses.create(**namespaced).output[0]
    assert (call.type, call.name, call.namespace, call.arguments) == (
        "function_call", "spawn_agent", "multi_agent_v1", '{"message": "look around"}')
    with sdk.responses.stream(**namespaced) as stream:
        streamed = stream.get_final_response().output[0]
    assert (streamed.type, streamed.name, streamed.namespace) == ("function_call", "spawn_agent", "multi_agent_v1")
    _assert_metered(gateway.close_session(session), stub.stats.usages, "responses")


def test_namespaced_call_in_the_history_goes_up_under_its_upstream_name(gateway, make_stub, upstream):
    import openai

    script = Recorder("spawned")
    stub = make_stub(script)
    session = gateway.open_session("exec-codex-ns", upstream(stub, use_cache=False))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
               {"type": "function_call", "call_id": "call_s", "name": "spawn_agent", "namespace": "multi_agent_v1",
                "arguments": "{}"},
               {"type": "function_call_output", "call_id": "call_s", "output": "agent a1"}]
    assert sdk.responses.create(model="gpt-5-codex", input=history, tools=NAMESPACED["tools"]).output_text == "spawned"
    [request] = script.requests
    assert request["messages"][1]["tool_calls"][0]["function"]["name"] == "multi_agent_v1__spawn_agent"
    assert request["messages"][2] == {"role": "tool", "tool_call_id": "call_s", "content": "agent a1"}
    gateway.close_session(session)
