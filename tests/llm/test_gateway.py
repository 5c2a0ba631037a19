"""The model gateway over real HTTP: OpenAI (SDK, streaming and not) and Anthropic wire formats, tokens,
metering = stub usage × price, budgets and the spend cap refused at the door, faults retried or clean."""

from __future__ import annotations

import json

import httpx
import pytest

from matchmeter.errors import BudgetExceeded, SpendCapReached
from matchmeter.llm.gateway import Gateway, Upstream
from matchmeter.llm.gateway_client import GatewayClient
from matchmeter.llm.meter import ExecutionBudget
from matchmeter.llm.spend import SpendLedger
from matchmeter.schema import ModelEndpoint

MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hello world please"}]


def _price(usage):  # stub/* prices.toml: 1.00 USD / 1M input, 4.00 / 1M output (simulated)
    return (usage["prompt_tokens"] * 1 + usage["completion_tokens"] * 4) / 1_000_000


def test_openai_sdk_plain_and_streaming_are_metered_as_stub_usage_times_price(gateway, make_stub, tmp_path, upstream):
    import openai

    stub = make_stub(["hello world", {"text": "streamed answer", "model": "stub/answered-2026"}])
    session = gateway.open_session("exec-1", upstream(stub))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    plain = sdk.chat.completions.create(model="what-the-cli-asked", messages=MSGS)
    assert plain.choices[0].message.content == "hello world"
    chunks = list(sdk.chat.completions.create(model="gpt-x", messages=MSGS[1:], stream=True,
                                              stream_options={"include_usage": True}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "streamed answer"
    assert chunks[-1].usage.total_tokens == stub.stats.usages[1]["total_tokens"]
    meter = gateway.close_session(session)
    usages = stub.stats.usages
    assert [c.model_asked for c in meter.calls] == ["what-the-cli-asked", "gpt-x"]
    assert [c.model_answered for c in meter.calls] == ["stub/scripted", "stub/answered-2026"]
    assert [c.stream for c in meter.calls] == [False, True]
    for call, usage in zip(meter.calls, usages, strict=True):
        assert call.tokens.input + call.tokens.cached_input == usage["prompt_tokens"]
        assert call.tokens.output + call.tokens.reasoning == usage["completion_tokens"]
        assert call.cost.usd == _price(usage)
        assert call.latency_s > 0
    assert meter.tokens.total == sum(u["total_tokens"] for u in usages)
    assert meter.cost.usd == pytest.approx(sum(_price(u) for u in usages), abs=1e-15)
    assert stub.stats.authorized_calls == 2  # the upstream got a (placeholder) key; the agent never had one


def test_anthropic_messages_plain_and_streaming(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["anthropic hi", {"text": "anthropic stream", "cache_prefix": True}])
    session = gateway.open_session("exec-a", upstream(stub, use_cache=False))
    body = {"model": "claude-x", "system": "be brief", "max_tokens": 50,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "say hello world please"}]}]}
    headers = {"x-api-key": session.token, "anthropic-version": "2023-06-01"}
    plain = httpx.post(f"{gateway.url}/v1/messages", json=body, headers=headers).json()
    assert plain["content"] == [{"type": "text", "text": "anthropic hi"}]
    assert plain["usage"]["input_tokens"] == stub.stats.usages[0]["prompt_tokens"]  # same prompt as MSGS
    events = httpx.post(f"{gateway.url}/v1/messages", json={**body, "stream": True}, headers=headers).text
    names = [line[7:] for line in events.splitlines() if line.startswith("event: ")]
    assert names[:2] == ["message_start", "content_block_start"]
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert set(names[2:-3]) == {"content_block_delta"}  # one per upstream delta
    deltas = [json.loads(line[6:]) for line in events.splitlines() if line.startswith("data: ")]
    assert "".join(d["delta"]["text"] for d in deltas[2:-3]) == "anthropic stream"
    deltas = [deltas[0], deltas[1], None, deltas[-3], deltas[-2], deltas[-1]]
    second = stub.stats.usages[1]
    # The upstream reports usage only at its end, so message_delta carries the whole metered usage.
    assert deltas[4]["usage"]["cache_read_input_tokens"] == second["prompt_tokens_details"]["cached_tokens"] > 0
    assert deltas[4]["usage"]["input_tokens"] + deltas[4]["usage"]["cache_read_input_tokens"] == second["prompt_tokens"]
    meter = gateway.close_session(session)
    assert [c.api for c in meter.calls] == ["anthropic", "anthropic"]
    cached = second["prompt_tokens_details"]["cached_tokens"]
    assert meter.calls[1].tokens.cached_input == cached
    assert meter.calls[0].cost.usd == _price(stub.stats.usages[0])
    # stub/* cached input is 0.10 USD / 1M
    assert meter.calls[1].cost.usd == pytest.approx(
        ((second["prompt_tokens"] - cached) * 1 + cached * 0.1 + second["completion_tokens"] * 4) / 1e6, abs=1e-15)


def test_unknown_or_revoked_token_gets_401_and_reaches_no_model(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["never"])
    session = gateway.open_session("exec-r", upstream(stub))
    for key in ("sk-real-looking-key", "mmgw-guessed"):
        response = httpx.post(f"{gateway.url}/v1/chat/completions", json={"messages": MSGS},
                              headers={"Authorization": f"Bearer {key}"})
        assert response.status_code == 401
    gateway.close_session(session)
    assert httpx.post(f"{gateway.url}/v1/chat/completions", json={"messages": MSGS},
                      headers={"Authorization": f"Bearer {session.token}"}).status_code == 401
    assert stub.stats.http_calls == 0


def test_token_budget_refuses_the_call_that_would_cross_and_the_agent_sees_why(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["a" * 40, "b" * 40, "c"])
    # MSGS is 19 prompt tokens at the stub's count, the reply 10 → 29; a 2nd call would need 29 + 19 = 48.
    session = gateway.open_session("exec-b", upstream(stub), ExecutionBudget(tokens=45))
    client = GatewayClient(gateway.url, session.token, "stub/scripted")
    first = client.complete(MSGS)
    assert first.tokens.total == 29
    with pytest.raises(BudgetExceeded, match="^tokens budget exceeded: used 48 of 45") as refused:
        client.complete(MSGS)
    assert refused.value.failure_mode == "budget_exceeded"
    assert stub.stats.http_calls == 1  # refused at the door: the model never saw the second call
    meter = gateway.close_session(session)
    assert isinstance(meter.refusal, BudgetExceeded)
    assert [(c.status, c.error_kind) for c in meter.calls] == [(200, None), (402, "budget_exceeded")]
    assert meter.tokens.total == 29


def test_usd_budget_crossed_by_a_reply_refuses_every_later_call(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["x" * 400, "y"])  # 100 output tokens = 400e-6 USD > the 100e-6 budget
    session = gateway.open_session("exec-u", upstream(stub), ExecutionBudget(usd=0.0001))
    client = GatewayClient(gateway.url, session.token, "stub/scripted")
    client.complete(MSGS)
    assert isinstance(session.meter.refusal, BudgetExceeded)
    with pytest.raises(BudgetExceeded, match="^usd budget exceeded"):
        client.complete(MSGS)
    assert stub.stats.http_calls == 1


def test_run_spend_cap_is_enforced_across_sessions(tmp_path, make_stub, upstream):
    stub = make_stub(["one two three four", "never", "never"])
    ledger = SpendLedger(tmp_path / "spend.json", cap_usd=1e-9)
    with Gateway(tcp=True, ledger=ledger) as gateway:
        first = gateway.open_session("e1", upstream(stub, salt="e1"))
        second = gateway.open_session("e2", upstream(stub, salt="e2"))
        GatewayClient(gateway.url, first.token, "stub/scripted").complete(MSGS)
        with pytest.raises(SpendCapReached, match="spend cap reached"):
            GatewayClient(gateway.url, second.token, "stub/scripted").complete(MSGS)
        assert isinstance(second.meter.refusal, SpendCapReached)
        assert second.meter.calls[0].error_kind == "spend_cap_reached"
    assert stub.stats.http_calls == 1
    assert json.loads((tmp_path / "spend.json").read_text())["spent_usd"] == first.meter.cost.usd


def test_faults_are_retried_or_clean_agent_errors_and_every_call_is_recorded(gateway, make_stub, tmp_path, upstream):
    stub = make_stub([{"fault": "429"}, "after 429", {"fault": "503"}, {"fault": "500"}, "after 5xx",
                      {"fault": "timeout"}, "after timeout", *[{"fault": "malformed"}] * 4, "never asked"],
                     timeout_sleep_s=1.5)
    session = gateway.open_session("exec-f", upstream(stub, timeout_s=0.5, use_cache=False))
    sdk_body = {"model": "m", "messages": MSGS}
    auth = {"Authorization": f"Bearer {session.token}"}
    texts = []
    for _ in range(3):
        response = httpx.post(f"{gateway.url}/v1/chat/completions", json=sdk_body, headers=auth, timeout=120)
        assert response.status_code == 200
        texts.append(response.json()["choices"][0]["message"]["content"])
    assert texts == ["after 429", "after 5xx", "after timeout"]
    broken = httpx.post(f"{gateway.url}/v1/chat/completions", json=sdk_body, headers=auth, timeout=120)
    assert broken.status_code == 503  # the endpoint's fault (retried), not the model's
    assert broken.json()["error"]["message"].startswith(f"malformed reply from model stub/scripted at {stub.api_base}")
    # the endpoint failed: a later call (an SDK's own retry) is answered without reaching the server
    again = httpx.post(f"{gateway.url}/v1/chat/completions", json=sdk_body, headers=auth, timeout=120)
    assert again.status_code == 424
    assert again.json()["error"]["message"].startswith("not sent: this execution's model endpoint already failed")
    meter = gateway.close_session(session)
    assert [c.upstream_attempts for c in meter.calls] == [2, 3, 2, 4, 0]
    assert [c.status for c in meter.calls] == [200, 200, 200, 503, 424]
    assert [c.error_kind for c in meter.calls[3:]] == ["upstream_unavailable"] * 2
    assert stub.stats.http_calls == 2 + 3 + 2 + 4
    assert meter.tokens.total == sum(u["total_tokens"] for u in stub.stats.usages)


def test_unix_socket_serves_the_same_api(gateway, make_stub, tmp_path, upstream):
    stub = make_stub(["over the socket"])
    session = gateway.open_session("exec-s", upstream(stub))
    transport = httpx.HTTPTransport(uds=str(gateway.socket_path))
    with httpx.Client(transport=transport, base_url="http://gateway") as client:
        body = client.post("/v1/chat/completions", json={"messages": MSGS},
                           headers={"Authorization": f"Bearer {session.token}"}).json()
    assert body["choices"][0]["message"]["content"] == "over the socket"
    assert oct(gateway.socket_path.stat().st_mode & 0o777) == "0o666"
    assert gateway.socket_path.is_socket()


def test_the_gateway_serves_on_uvloop_and_falls_back_to_asyncios_loop_without_it(gateway, make_stub, upstream,
                                                                                  monkeypatch):
    """uvloop is a dependency (pyproject.toml) for the gateway's loop alone; without it the gateway still serves."""
    import asyncio
    import sys

    from matchmeter.llm import gateway as gateway_module

    assert type(gateway._loop).__module__.startswith("uvloop")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` now raises ImportError
    loop = gateway_module.new_loop()
    assert type(loop) is type(asyncio.new_event_loop())
    loop.close()
    with Gateway(tcp=True) as plain:
        assert not type(plain._loop).__module__.startswith("uvloop")
        stub = make_stub(["on asyncio's loop"])
        session = plain.open_session("exec-a", upstream(stub))
        body = httpx.post(f"{plain.url}/v1/chat/completions", json={"messages": MSGS},
                          headers={"Authorization": f"Bearer {session.token}"}, timeout=10).json()
    assert body["choices"][0]["message"]["content"] == "on asyncio's loop"


def test_a_refusal_is_not_retried_by_the_openai_sdk(gateway, make_stub, tmp_path, upstream):
    import openai

    stub = make_stub(["a" * 40])
    session = gateway.open_session("exec-402", upstream(stub), ExecutionBudget(tokens=20))
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=2)
    sdk.chat.completions.create(model="m", messages=MSGS)
    with pytest.raises(openai.APIStatusError) as refused:
        sdk.chat.completions.create(model="m", messages=MSGS[1:])
    assert refused.value.status_code == 402
    assert "matchmeter gateway refused the call: tokens budget exceeded" in refused.value.message
    assert [c.status for c in gateway.close_session(session).calls] == [200, 402]  # one refusal, no SDK retry


def test_unknown_price_is_null_with_a_reason_never_zero(gateway, make_stub, tmp_path):
    stub = make_stub(["priced nowhere"])
    upstream = Upstream(model="openai/unpriced-model-x", endpoint=ModelEndpoint(api_base=stub.api_base),
                        cache_dir=tmp_path / "cache")
    session = gateway.open_session("exec-np", upstream, ExecutionBudget(usd=0.01))
    body = GatewayClient(gateway.url, session.token, "openai/unpriced-model-x").complete(MSGS)
    assert body.cost.usd is None
    meter = gateway.close_session(session)
    assert meter.calls[0].cost.usd is None
    assert meter.calls[0].cost.null_reason.startswith("no price for model openai/unpriced-model-x in price table 2026-11-01")
    assert meter.cost.usd is None
    assert meter.tokens.total == stub.stats.usages[0]["total_tokens"]
