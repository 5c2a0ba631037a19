"""The gateway's pass-through (llm/gateway_passthrough.py): a request whose upstream speaks the agent's protocol is
forwarded as it is, and metered exactly as the litellm path meters it. The upstream is llm/canned_upstream.py
(fixed usage in all three protocols); the agents are the real OpenAI and Anthropic SDKs."""

from __future__ import annotations

import json

import httpx
import pytest

from matchmeter.llm import canned_upstream as canned
from matchmeter.llm.canned_upstream import CannedUpstream
from matchmeter.llm.gateway import Gateway, Upstream
from matchmeter.llm.meter import ExecutionBudget
from matchmeter.llm.spend import SpendLedger
from matchmeter.schema import ModelEndpoint, TokenUsage

PRICES = """
[[price]]
pattern = "openai/canned"
input = 2.0
cached_input = 0.5
output = 8.0
reasoning = 8.0
source = "test"
date = "2026-11-01"

[[price]]
pattern = "anthropic/canned"
input = 3.0
cached_input = 0.3
output = 15.0
reasoning = 15.0
source = "test"
date = "2026-11-01"
"""
MSGS = [{"role": "user", "content": "list the files"}]
# canned usage: 37 prompt (5 cached), 11 completion (2 reasoning); Anthropic: 32 input + 5 cache read, 11 output
OPENAI_TOKENS = TokenUsage(input=32, cached_input=5, output=9, reasoning=2)
ANTHROPIC_TOKENS = TokenUsage(input=32, cached_input=5, output=11, reasoning=0)
PATHS = {"openai": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}


@pytest.fixture(scope="module")
def up():
    with CannedUpstream() as server:
        yield server


@pytest.fixture
def prices(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_text(PRICES)
    return path


@pytest.fixture
def open_session(gateway, up, prices, tmp_path):
    """A session on the canned upstream: `api` picks the model (anthropic/canned or openai/canned)."""

    def make(api: str, mode: str = "ok", passthrough: bool = True, budget=None, gw=None, **endpoint):
        anthropic = api == "anthropic"
        endpoint = {"retry_wait_s": 0.01, "timeout_s": 10, "use_cache": False, **endpoint}
        upstream = Upstream(model="anthropic/canned" if anthropic else "openai/canned", cache_dir=tmp_path / "cache",
                            passthrough=passthrough, upstream_responses=True,
                            endpoint=ModelEndpoint(api_base=up.base(mode, anthropic), prices=str(prices), **endpoint))
        return (gw or gateway).open_session(f"exec-{api}-{mode}-{passthrough}", upstream, budget)

    return make


def _call(gateway, session, api: str, stream: bool, tools: bool = False, **extra) -> list:
    """One call with the protocol's real SDK; returns the reply (plain) or its events (streamed)."""
    import anthropic
    import openai

    tool = {"type": "function", "function": {"name": "shell", "parameters": {"type": "object"}}}
    if api == "anthropic":
        sdk = anthropic.Anthropic(base_url=gateway.url, api_key=session.token, max_retries=0)
        kwargs = {"tools": [{"name": "shell", "input_schema": {"type": "object"}}]} if tools else {}
        return sdk.messages.create(model="claude-agent", max_tokens=64, messages=MSGS, stream=stream, **kwargs, **extra)
    sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
    if api == "responses":
        kwargs = {"tools": [{"type": "function", "name": "shell", "parameters": {"type": "object"}}]} if tools else {}
        return sdk.responses.create(model="gpt-agent", input="list the files", stream=stream, **kwargs, **extra)
    kwargs = {"tools": [tool]} if tools else {}
    return sdk.chat.completions.create(model="gpt-agent", messages=MSGS, stream=stream, **kwargs, **extra)


def _text(api: str, reply, stream: bool) -> str:
    if not stream:
        if api == "anthropic":
            return "".join(b.text for b in reply.content if b.type == "text")
        return reply.output_text if api == "responses" else reply.choices[0].message.content
    events = list(reply)
    if api == "anthropic":
        return "".join(e.delta.text for e in events if e.type == "content_block_delta" and e.delta.type == "text_delta")
    if api == "responses":
        return "".join(e.delta for e in events if e.type == "response.output_text.delta")
    return "".join(c.choices[0].delta.content or "" for c in events if c.choices)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("api", ["openai", "responses", "anthropic"])
def test_usage_is_read_from_the_reply_and_the_request_reaches_the_upstream_as_sent(gateway, up, open_session, api,
                                                                                   stream):
    session = open_session(api)
    before = len(up.requests)
    assert _text(api, _call(gateway, session, api, stream), stream) == "canned reply"
    meter = gateway.close_session(session)
    call = meter.calls[0]
    tokens = ANTHROPIC_TOKENS if api == "anthropic" else OPENAI_TOKENS
    assert (call.status, call.api, call.stream, call.tokens, call.model_answered, call.upstream_attempts) == (
        200, api, stream, tokens, canned.MODEL, 1)
    rates = (3.0, 0.3, 15.0) if api == "anthropic" else (2.0, 0.5, 8.0)
    usd = (tokens.input * rates[0] + tokens.cached_input * rates[1] + (tokens.output + tokens.reasoning) * rates[2]) / 1e6
    assert call.cost.usd == pytest.approx(usd, abs=1e-15)
    [sent] = up.requests[before:]
    assert sent["path"] == "/ok" + PATHS[api]  # the native protocol: no translation to chat completions
    assert sent["body"]["model"] == "canned"  # the configured model, not the agent's
    assert sent["body"].get("stream", False) is stream
    if api == "anthropic":
        assert sent["body"]["messages"] == MSGS
        assert sent["body"]["max_tokens"] == 64
    if api == "openai" and stream:
        assert sent["body"]["stream_options"] == {"include_usage": True}  # asked upstream, as LMClient.stream did


@pytest.mark.parametrize("api", ["openai", "responses", "anthropic"])
def test_streamed_bytes_reach_the_agent_unchanged(gateway, up, open_session, api):
    session = open_session(api)
    body = {"model": "x", "stream": True, "max_tokens": 64}
    body.update({"input": "hi"} if api == "responses" else {"messages": MSGS})
    if api == "openai":
        body["stream_options"] = {"include_usage": True}
    direct = httpx.post(up.base("ok", api == "anthropic") + PATHS[api].removeprefix("/v1") if api != "anthropic"
                        else up.base("ok", True) + PATHS[api], json={**body, "model": "canned"}, timeout=10)
    key = {"x-api-key": session.token} if api == "anthropic" else {"Authorization": f"Bearer {session.token}"}
    through = httpx.post(gateway.url + PATHS[api], json=body, headers=key, timeout=10)
    assert through.headers["content-type"].startswith("text/event-stream")
    assert through.content == direct.content
    assert len(through.content.split(b"\n\n")) >= 6
    gateway.close_session(session)


@pytest.mark.parametrize("api", ["openai", "responses", "anthropic"])
def test_a_plain_reply_reaches_the_agent_as_the_upstreams_bytes_with_the_meter_block_last(gateway, up, open_session,
                                                                                          api):
    session = open_session(api)
    body = {"model": "x", "max_tokens": 64, **({"input": "hi"} if api == "responses" else {"messages": MSGS})}
    base = up.base("ok", api == "anthropic")
    direct = httpx.post(base + (PATHS[api] if api == "anthropic" else PATHS[api].removeprefix("/v1")),
                        json={**body, "model": "canned"}, timeout=10)
    key = {"x-api-key": session.token} if api == "anthropic" else {"Authorization": f"Bearer {session.token}"}
    through = httpx.post(gateway.url + PATHS[api], json=body, headers=key, timeout=10)
    gateway.close_session(session)
    assert through.status_code == 200
    assert through.content.startswith(direct.content.rstrip()[:-1])  # not re-encoded: the upstream's own bytes
    answer = through.json()
    assert list(answer)[-1] == "matchmeter"
    assert answer["matchmeter"]["call_index"] == 0
    assert {k: v for k, v in answer.items() if k != "matchmeter"} == direct.json()


def test_the_block_is_spliced_into_the_upstreams_own_bytes_whatever_their_spacing_and_order():
    from matchmeter.llm.gateway_passthrough import with_meta

    raw = b'{"z":1,"id":"r",\n  "choices":[{"message":{"content":"\\u00e9"}}]}  \n'
    out = with_meta(raw, json.loads(raw), {"call_index": 3})
    assert out == raw.rstrip()[:-1] + b', "matchmeter": {"call_index": 3}}'
    assert json.loads(out) == {**json.loads(raw), "matchmeter": {"call_index": 3}}


@pytest.mark.parametrize(("raw", "why"), [(b'{"id": "r", "matchmeter": {"call_index": 99}}', "its own block"),
                                          (b"{}", "empty"), ('{"id": "r"}'.encode("utf-16"), "not UTF-8"),
                                          (b'\xef\xbb\xbf{"id": "r"}', "a byte-order mark")])
def test_a_reply_that_cannot_take_the_block_spliced_in_is_encoded_anew_with_it(raw, why):
    from matchmeter.llm.gateway_passthrough import with_meta

    body = json.loads(raw)
    out = json.loads(with_meta(raw, body, {"call_index": 3}))
    assert out == {**body, "matchmeter": {"call_index": 3}}, why


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(("api", "mode"), [("openai", "ok"), ("openai", "no-usage"), ("responses", "ok"),
                                           ("responses", "no-usage"), ("anthropic", "ok")])
def test_metering_equals_the_litellm_path_on_the_same_replies(gateway, up, open_session, api, stream, mode):
    """Same canned reply, once forwarded and once translated through litellm: the same tokens, cost, answering
    model and tool calls. Without usage a plain reply's cost is unknown (never 0) on both paths; a stream's usage
    is counted by litellm's tokenizer on both. (An Anthropic message always carries usage.)"""
    metered = []
    for passthrough in (True, False):
        session = open_session(api, mode, passthrough=passthrough)
        before = len(up.requests)
        assert _text(api, _call(gateway, session, api, stream, tools=False), stream) == "canned reply"
        assert len(up.requests) == before + 1
        native = up.requests[-1]["path"].endswith(PATHS[api])
        assert native or (api == "responses" and not passthrough)  # translated Responses go to chat completions
        metered.append(gateway.close_session(session).calls[0])
    forwarded, translated = metered
    assert forwarded.tokens == translated.tokens
    assert (forwarded.cost.usd, forwarded.cost.null_reason) == (translated.cost.usd, translated.cost.null_reason)
    assert forwarded.model_answered == translated.model_answered == canned.MODEL
    if mode == "no-usage" and not stream:
        assert forwarded.cost.usd is None
        assert forwarded.tokens == TokenUsage()
    elif mode == "no-usage":
        assert forwarded.tokens.total > 0
        assert forwarded.tokens != OPENAI_TOKENS


@pytest.mark.parametrize("api", ["openai", "anthropic", "responses"])
def test_tool_calls_are_forwarded_and_cached_like_the_translated_path(gateway, up, open_session, api, tmp_path):
    session = open_session(api, use_cache=True)
    plain = _call(gateway, session, api, False, tools=True)
    if api == "anthropic":
        assert [(b.name, b.input) for b in plain.content if b.type == "tool_use"] == [("shell", {"cmd": "ls"})]
    elif api == "responses":
        assert [(i.name, i.arguments) for i in plain.output if i.type == "function_call"] == [("shell", '{"cmd": "ls"}')]
    else:
        assert [(c.function.name, c.function.arguments) for c in plain.choices[0].message.tool_calls] == [
            ("shell", '{"cmd": "ls"}')]
    before = len(up.requests)
    events = list(_call(gateway, session, api, True, tools=True))  # a hit: served by the gateway, not the upstream
    assert len(up.requests) == before
    assert events
    meter = gateway.close_session(session)
    assert [c.cache_hit for c in meter.calls] == [False, True]
    assert meter.calls[1].cost == meter.calls[0].cost
    assert meter.calls[1].tokens == meter.calls[0].tokens


def test_a_chat_streams_tool_call_fragments_reach_the_agent_whole(gateway, up, open_session):
    session = open_session("openai")
    chunks = list(_call(gateway, session, "openai", True, tools=True))
    fragments = [t for c in chunks if c.choices for t in (c.choices[0].delta.tool_calls or [])]
    assert [(f.id, f.function.name, f.function.arguments) for f in fragments] == [("call_canned", "shell", '{"cmd": "ls"}')]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert gateway.close_session(session).calls[0].tokens == OPENAI_TOKENS


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_budget_crossed_mid_run_refuses_the_next_call_before_the_upstream(gateway, up, open_session, stream):
    session = open_session("openai", budget=ExecutionBudget(tokens=60))
    before = len(up.requests)
    _text("openai", _call(gateway, session, "openai", stream), stream)  # 48 tokens
    _text("openai", _call(gateway, session, "openai", stream), stream)  # admitted (48 + prompt <= 60), crosses: 96
    import openai

    with pytest.raises(openai.APIStatusError) as refused:
        _text("openai", _call(gateway, session, "openai", stream), stream)
    assert refused.value.status_code == 402
    assert len(up.requests) == before + 2
    meter = gateway.close_session(session)
    assert [c.status for c in meter.calls] == [200, 200, 402]
    assert meter.calls[2].error_kind == "budget_exceeded"
    assert meter.refusal is not None
    assert meter.refusal.failure_mode == "budget_exceeded"


def test_the_runs_spend_cap_stops_pass_through_calls(tmp_path, up, open_session):
    import openai

    ledger = SpendLedger(cap_usd=1e-5)  # one canned call costs 8.6e-5
    with Gateway(socket_path=tmp_path / "gw.sock", ledger=ledger) as gw:
        session = open_session("openai", gw=gw)
        _call(gw, session, "openai", False)
        with pytest.raises(openai.APIStatusError) as refused:
            _call(gw, session, "openai", False)
        meter = gw.close_session(session)
    assert refused.value.status_code == 402
    assert [(c.status, c.error_kind) for c in meter.calls] == [(200, None), (402, "spend_cap_reached")]
    assert ledger.spent_usd == pytest.approx(meter.calls[0].cost.usd)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_an_upstream_5xx_is_the_endpoints_failure_and_later_calls_are_not_sent(gateway, up, open_session, stream):
    import openai

    session = open_session("openai", "503")
    before = len(up.requests)
    with pytest.raises(openai.APIStatusError) as first:
        _text("openai", _call(gateway, session, "openai", stream), stream)
    with pytest.raises(openai.APIStatusError) as later:
        _text("openai", _call(gateway, session, "openai", stream), stream)
    assert (first.value.status_code, later.value.status_code) == (503, 424)
    assert len(up.requests) == before + 4  # the one retry layer: 4 attempts, then nothing more
    meter = gateway.close_session(session)
    assert [(c.status, c.upstream_attempts, c.error_kind) for c in meter.calls] == [
        (503, 4, "upstream_unavailable"), (424, 0, "upstream_unavailable")]
    assert "ServiceUnavailableError persisted after 4 attempts" in meter.calls[0].error
    assert up.base("503") in meter.calls[0].error


def test_a_hung_upstream_times_out_per_attempt_and_is_cut_at_the_deadline(gateway, up, open_session):
    import time

    import anthropic

    session = open_session("anthropic", "hang", timeout_s=0.3, retry_attempts=2)
    with pytest.raises(anthropic.APIStatusError) as timed_out:
        _call(gateway, session, "anthropic", False)
    assert timed_out.value.status_code == 503
    assert "Timeout persisted after 2 attempts" in gateway.close_session(session).calls[0].error
    session = open_session("anthropic", "hang", timeout_s=60)
    session.deadline = time.monotonic() + 1.0
    t0 = time.monotonic()
    with pytest.raises(anthropic.APIStatusError) as cut:
        _call(gateway, session, "anthropic", True)
    assert time.monotonic() - t0 < 5
    assert cut.value.status_code == 402
    call = gateway.close_session(session).calls[0]
    assert call.error_kind == "agent_deadline"
    assert "the task's agent deadline passed while waiting" in call.error


def test_a_stream_cut_after_its_first_bytes_ends_in_an_error_event_and_latches_the_endpoint(gateway, up, open_session):
    import openai

    session = open_session("openai", "cut")
    received: list[str] = []

    def consume() -> None:
        for chunk in _call(gateway, session, "openai", True):
            received.extend(c.delta.content for c in chunk.choices if c.delta.content)

    with pytest.raises(openai.APIError):
        consume()
    assert received  # the bytes before the cut reached the agent
    meter = gateway.close_session(session)
    assert (meter.calls[0].status, meter.calls[0].error_kind) == (503, "upstream_unavailable")
    assert "the stream broke off" in meter.calls[0].error


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_the_agents_token_never_reaches_the_upstream_and_the_endpoints_key_does(gateway, up, open_session, api,
                                                                               monkeypatch):
    monkeypatch.setenv("CANNED_KEY", "sk-the-endpoints-key")
    session = open_session(api, api_key_env="CANNED_KEY")
    before = len(up.requests)
    key = {"x-api-key": session.token} if api == "anthropic" else {"Authorization": f"Bearer {session.token}"}
    body = {"model": "../../../admin", "max_tokens": 8, "messages": MSGS}
    for index in range(2):  # the first reply sets an upstream cookie: the second request must not carry it
        reply = httpx.post(gateway.url + PATHS[api] + "?api_base=http://evil/", json=body, timeout=10,
                           headers={**key, "Host": "evil.example", "X-Forwarded-Host": "evil.example",
                                    "anthropic-version": "2023-06-01", "OpenAI-Organization": "org-agent"})
        assert reply.status_code == 200
        assert reply.json()["matchmeter"]["call_index"] == index
    [_, sent] = up.requests[before:]
    headers = {k.lower(): v for k, v in sent["headers"].items()}
    assert session.token not in json.dumps(sent)
    assert sent["path"] == "/ok" + PATHS[api]
    assert sent["body"]["model"] == "canned"
    assert "cookie" not in headers  # the canned upstream set one on every earlier plain reply: not carried
    assert "x-forwarded-host" not in headers
    assert "openai-organization" not in headers
    assert headers["host"] == f"127.0.0.1:{up.port}"
    if api == "anthropic":
        assert (headers["x-api-key"], "authorization" in headers) == ("sk-the-endpoints-key", False)
        assert headers["anthropic-version"] == "2023-06-01"
    else:
        assert (headers["authorization"], "x-api-key" in headers) == ("Bearer sk-the-endpoints-key", False)
    gateway.close_session(session)


def test_an_unset_key_variable_is_the_gateways_misconfiguration_and_nothing_is_sent(gateway, up, open_session,
                                                                                  monkeypatch):
    monkeypatch.delenv("CANNED_KEY_UNSET", raising=False)
    session = open_session("openai", api_key_env="CANNED_KEY_UNSET")
    before = len(up.requests)
    reply = httpx.post(gateway.url + PATHS["openai"], json={"messages": MSGS}, timeout=10,
                       headers={"Authorization": f"Bearer {session.token}"})
    assert reply.status_code == 500
    assert reply.json()["error"]["type"] == "gateway_misconfigured"
    assert "CANNED_KEY_UNSET" in reply.json()["error"]["message"]
    assert len(up.requests) == before
    gateway.close_session(session)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_requests_that_differ_upstream_never_share_a_cache_entry(gateway, up, open_session, api):
    """The parsed conversation is the same, but what goes upstream is not (a field the translation drops):
    each is its own cache entry; the same request again is a hit."""
    session = open_session(api, use_cache=True)
    extra = ({"response_format": {"type": "json_object"}} if api == "openai" else
             {"metadata": {"user_id": "u-1"}})
    key = {"x-api-key": session.token} if api == "anthropic" else {"Authorization": f"Bearer {session.token}"}
    body = {"model": "m", "max_tokens": 32, "messages": MSGS}
    before = len(up.requests)
    for sent in (body, {**body, **extra}, {**body, **extra}, body):
        assert httpx.post(gateway.url + PATHS[api], json=sent, headers=key, timeout=10).status_code == 200
    assert len(up.requests) == before + 2
    assert up.requests[-1]["body"].get(next(iter(extra))) == extra[next(iter(extra))]  # forwarded as sent
    assert [c.cache_hit for c in gateway.close_session(session).calls] == [False, False, True, True]


# ------------------------------------------------------------------ the environment's proxy and netrc


def test_a_proxy_from_the_environment_carries_the_calls_and_is_read_once_per_origin(gateway, up, prices, tmp_path,
                                                                                    monkeypatch):
    """HTTP_PROXY names the canned server; the upstream's own host does not resolve, so an answer means the call
    went through the proxy (which gets the absolute URL: its Host is the upstream's). Three calls, one read."""
    from matchmeter.llm import gateway_passthrough

    reads, real = [], gateway_passthrough.env_route
    monkeypatch.setattr(gateway_passthrough, "env_route", lambda url: reads.append(url) or real(url))
    monkeypatch.setenv("HTTP_PROXY", f"http://{up.host}:{up.port}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # the SDK's own road to the gateway stays direct
    monkeypatch.delenv("no_proxy", raising=False)
    upstream = Upstream(model="openai/canned", cache_dir=tmp_path / "cache", passthrough=True, upstream_responses=True,
                        endpoint=ModelEndpoint(api_base="http://upstream.invalid:9/ok/v1", prices=str(prices),
                                               retry_wait_s=0.01, timeout_s=10, use_cache=False))
    session = gateway.open_session("exec-proxy", upstream)
    before = len(up.requests)
    for stream in (False, True, False):
        assert _text("openai", _call(gateway, session, "openai", stream), stream) == "canned reply"
    meter = gateway.close_session(session)
    assert [c.status for c in meter.calls] == [200, 200, 200]
    sent = up.requests[before:]
    assert [r["path"] for r in sent] == ["/ok/v1/chat/completions"] * 3
    assert {r["headers"]["Host"] for r in sent} == {"upstream.invalid:9"}
    assert reads == ["http://upstream.invalid:9/ok/v1/chat/completions"]


def test_no_proxy_sends_the_call_direct(gateway, up, open_session, monkeypatch):
    """A proxy that does not answer, and NO_PROXY naming the upstream: the call goes straight to it."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", up.host)
    session = open_session("openai")
    assert _text("openai", _call(gateway, session, "openai", False), False) == "canned reply"
    assert [c.status for c in gateway.close_session(session).calls] == [200]


def test_env_route_reads_the_netrc_file_and_the_proxy_credentials(tmp_path, monkeypatch):
    from matchmeter.llm.gateway_passthrough import env_route

    netrc = tmp_path / "netrc"
    netrc.write_text("machine models.example login team password s3cret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("HTTPS_PROXY", "http://proxyuser:pw@proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "direct.example")
    route = env_route("https://models.example/v1/chat/completions")
    assert (str(route.proxy), route.proxy_auth.login, route.proxy_auth.password) == (
        "http://proxy.example:3128", "proxyuser", "pw")
    assert (route.netrc_auth.login, route.netrc_auth.password) == ("team", "s3cret")
    direct = env_route("https://direct.example/v1/messages")
    assert (direct.proxy, direct.proxy_auth, direct.netrc_auth) == (None, None, None)
