"""Streaming through the gateway is streaming upstream: the agent gets the first delta while the upstream
is still mid-reply (the stub holds its stream until the test releases it: ordering, not wall-clock),
usage comes from the final upstream chunk, and budgets, the cache and broken streams stay coherent."""

from __future__ import annotations

import json

import httpx
import pytest

from matchmeter.llm.meter import ExecutionBudget
from matchmeter.llm.stub_server import StubReply

PROMPT = "say hello world please"


# (route, request body, the text of one SSE data object if it carries a delta)
def _chat_delta(data):
    return (data.get("choices") or [{}])[0].get("delta", {}).get("content") or None


WIRES = {
    "openai": ("/v1/chat/completions", {"model": "m", "stream": True, "messages": [{"role": "user", "content": PROMPT}]},
               _chat_delta),
    "responses": ("/v1/responses", {"model": "m", "stream": True, "input": PROMPT},
                  lambda d: d.get("delta") if d.get("type") == "response.output_text.delta" else None),
    "anthropic": ("/v1/messages", {"model": "m", "stream": True, "max_tokens": 50,
                                   "messages": [{"role": "user", "content": PROMPT}]},
                  lambda d: (d.get("delta") or {}).get("text") if d.get("type") == "content_block_delta" else None),
    "gemini": ("/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
               {"contents": [{"role": "user", "parts": [{"text": PROMPT}]}]},
               lambda d: d["candidates"][0]["content"]["parts"][0]["text"] or None if "candidates" in d else None),
}


def _usage_total(api, events):
    last = {"openai": lambda: events[-1]["usage"]["total_tokens"],
            "responses": lambda: events[-1]["response"]["usage"]["total_tokens"],
            "anthropic": lambda: next(e["usage"]["input_tokens"] + e["usage"]["output_tokens"]
                                      for e in events if e["type"] == "message_delta"),
            "gemini": lambda: events[-1]["usageMetadata"]["totalTokenCount"]}
    return last[api]()


@pytest.mark.parametrize("api", list(WIRES))
def test_first_delta_reaches_the_agent_before_the_upstream_finished(gateway, make_stub, tmp_path, api, upstream):
    stub = make_stub([StubReply(text="first second third fourth", hold=True)])
    session = gateway.open_session(f"exec-{api}", upstream(stub, timeout_s=10))
    path, body, delta_of = WIRES[api]
    events, seen_while_held = [], None
    with httpx.stream("POST", gateway.url + path, json=body, timeout=120,
                      headers={"Authorization": f"Bearer {session.token}"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            events.append(json.loads(line[6:]))
            if seen_while_held is None and delta_of(events[-1]):
                # The upstream has sent one content chunk and is held: it has not finished its reply.
                seen_while_held = (delta_of(events[-1]), stub.stats.streams_started, stub.stats.streams_finished)
                stub.stream_gate.set()
    assert seen_while_held is not None
    assert seen_while_held[1:] == (1, 0)
    assert "first second third fourth".startswith(seen_while_held[0])
    assert seen_while_held[0] != "first second third fourth"
    assert "".join(filter(None, map(delta_of, events))) == "first second third fourth"
    assert stub.stats.streams_finished == 1
    usage = stub.stats.usages[0]
    assert _usage_total(api, events) == usage["total_tokens"]  # read from the final upstream chunk
    meter = gateway.close_session(session)
    assert meter.calls[0].stream is True
    assert meter.calls[0].api == api
    assert meter.calls[0].tokens.total == usage["total_tokens"]
    assert meter.calls[0].cost.usd == (usage["prompt_tokens"] + usage["completion_tokens"] * 4) / 1e6


def test_openai_sdk_streams_and_the_usage_was_asked_upstream(gateway, make_stub, tmp_path, upstream):
    import openai

    stub = make_stub([StubReply(text="one two three", chunk_delay_s=0.01)])
    session = gateway.open_session("exec-sdk", upstream(stub, timeout_s=10))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    chunks = list(sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": PROMPT}],
                                              stream=True))
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(texts) == 3
    assert "".join(texts) == "one two three"
    # The stub sends a usage chunk only when asked: the gateway asked, so the meter has the stub's numbers.
    assert gateway.close_session(session).calls[0].tokens.total == stub.stats.usages[0]["total_tokens"] > 0


def test_a_budget_crossed_mid_stream_is_recorded_and_later_calls_are_refused(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["x" * 400, "never"])  # 100 output tokens = 400e-6 USD > the 100e-6 budget
    session = gateway.open_session("exec-bx", upstream(stub, timeout_s=10), ExecutionBudget(usd=0.0001))
    path, body, delta_of = WIRES["openai"]
    auth = {"Authorization": f"Bearer {session.token}"}
    crossing = httpx.post(gateway.url + path, json=body, headers=auth, timeout=120)
    assert crossing.status_code == 200
    assert "x" * 100 in crossing.text
    refused = httpx.post(gateway.url + path, json={**body, "messages": [{"role": "user", "content": "again"}]},
                         headers=auth, timeout=120)
    assert refused.status_code == 402  # refused before any delta: a plain error with its status
    assert refused.json()["error"]["type"] == "budget_exceeded"
    meter = gateway.close_session(session)
    assert [(c.status, c.stream) for c in meter.calls] == [(200, True), (402, True)]
    assert meter.refusal is not None
    assert meter.refusal.failure_mode == "budget_exceeded"
    assert stub.stats.http_calls == 1


def test_streamed_and_plain_requests_share_one_cache_entry(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["cached once", "second conversation"])
    session = gateway.open_session("exec-c", upstream(stub, timeout_s=10))
    path, body, delta_of = WIRES["openai"]
    auth = {"Authorization": f"Bearer {session.token}"}
    streamed = httpx.post(gateway.url + path, json=body, headers=auth, timeout=120).text
    plain = httpx.post(gateway.url + path, json={**body, "stream": False}, headers=auth, timeout=120).json()
    assert plain["choices"][0]["message"]["content"] == "cached once"
    assert plain["matchmeter"]["cache_hit"] is True
    again = httpx.post(gateway.url + path, json=body, headers=auth, timeout=120).text
    replayed = [json.loads(x[6:]) for x in again.splitlines() if x.startswith("data: {")]
    assert "".join(filter(None, map(delta_of, replayed))) == "cached once"  # a hit is one delta
    assert replayed[-1]["matchmeter"]["cache_hit"] is True
    first = [json.loads(x[6:]) for x in streamed.splitlines() if x.startswith("data: {")]
    assert "".join(filter(None, map(delta_of, first))) == "cached once"
    assert len(list(filter(None, map(delta_of, first)))) == 3  # the miss was relayed piece by piece
    meter = gateway.close_session(session)
    assert [c.cache_hit for c in meter.calls] == [False, True, True]
    assert len({c.cost.usd for c in meter.calls}) == 1  # a hit is priced as the original call
    assert stub.stats.http_calls == 1


def test_faults_before_the_first_delta_are_retried_and_a_cut_stream_is_a_recorded_error(gateway, make_stub, tmp_path, upstream):
    import openai

    stub = make_stub([{"fault": "503"}, "after a retry", {"text": "cut short here", "fault": "stream_cut"}])
    session = gateway.open_session("exec-sf", upstream(stub, use_cache=False, timeout_s=10))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    messages = [{"role": "user", "content": PROMPT}]
    chunks = list(sdk.chat.completions.create(model="m", messages=messages, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "after a retry"
    received: list[str] = []

    def consume() -> None:
        for chunk in sdk.chat.completions.create(model="m", messages=messages, stream=True):
            received.extend(c.delta.content for c in chunk.choices if c.delta.content)

    with pytest.raises(openai.APIError, match="the stream broke off after 1 deltas"):
        consume()
    assert received == ["cut s"]  # what came before the cut reached the agent
    meter = gateway.close_session(session)
    assert [(c.status, c.upstream_attempts) for c in meter.calls] == [(200, 2), (503, 1)]
    assert meter.calls[1].error_kind == "upstream_unavailable"  # the endpoint cut the stream: its fault
    assert meter.calls[1].tokens.total == 0


CUT_ENDS = {"openai": lambda e: e["error"]["type"], "responses": lambda e: e["response"]["error"]["code"],
            "anthropic": lambda e: e["error"]["type"], "gemini": lambda e: e["error"]["details"][0]["reason"]}


@pytest.mark.parametrize("api", list(WIRES))
def test_a_stream_cut_after_deltas_ends_with_the_protocols_error_event(gateway, make_stub, tmp_path, api, upstream):
    stub = make_stub([{"text": "cut short here", "fault": "stream_cut"}])
    session = gateway.open_session(f"exec-cut-{api}", upstream(stub, timeout_s=10))
    path, body, delta_of = WIRES[api]
    response = httpx.post(gateway.url + path, json=body, headers={"Authorization": f"Bearer {session.token}"},
                          timeout=120)
    assert response.status_code == 200  # the status went out with the first delta
    events = [json.loads(x[6:]) for x in response.text.splitlines() if x.startswith("data: {")]
    assert "".join(filter(None, map(delta_of, events[:-1]))) == "cut s"
    assert CUT_ENDS[api](events[-1]) == "upstream_unavailable"
    assert "[DONE]" not in response.text
    meter = gateway.close_session(session)
    assert [(c.status, c.error_kind) for c in meter.calls] == [(503, "upstream_unavailable")]
