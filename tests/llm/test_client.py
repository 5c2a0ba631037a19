"""The LM client over real HTTP to the stub: usage classes, exact cost, cache, retries, errors, spend cap, secrets."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from matchmeter.errors import AgentError, EndpointError, InfraError, SpendCapReached, UserError
from matchmeter.llm.cache import cache_key
from matchmeter.llm.pricing import PriceTable
from matchmeter.llm.spend import SpendLedger
from matchmeter.llm.stub_server import StubReply

MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say something."}]
STUB_PRICE = PriceTable.load().lookup("stub/scripted")  # 1.00 / 0.10 / 4.00 / 4.00 USD per 1M (simulated)


def _priced(usage: dict) -> float:
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
    micro = ((usage["prompt_tokens"] - cached) * 1.00 + cached * 0.10
             + (usage["completion_tokens"] - reasoning) * 4.00 + reasoning * 4.00)
    return micro / 1_000_000


def test_usage_is_split_into_classes_and_priced_from_the_table(make_stub, make_client):
    stub = make_stub([StubReply(text="a" * 41, cached_tokens=3, reasoning_tokens=7)])
    reply = make_client(stub).complete(MESSAGES)
    usage = stub.stats.usages[0]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (19, 18)  # (4+4)+(4+4)+3 ; 11+7
    assert reply.tokens.model_dump() == {"input": 16, "cached_input": 3, "output": 11, "reasoning": 7}
    assert reply.cost.usd == 0.0000883 == pytest.approx(_priced(usage), abs=1e-15)  # 16 + 0.3 + 44 + 28 µUSD
    assert reply.text == "a" * 41
    assert (reply.reported_model, reply.cache_hit, reply.new_spend_usd) == ("stub/scripted", False, reply.cost.usd)
    call = reply.to_model_call(4)
    assert (call.index, call.model, call.tokens, call.cost) == (4, "stub/scripted", reply.tokens, reply.cost)


def test_identical_request_is_served_from_cache_with_zero_http_calls(make_stub, make_client):
    stub = make_stub(["first answer"])
    client = make_client(stub)
    first = client.complete(MESSAGES, temperature=0.0)
    second = client.complete(MESSAGES, temperature=0.0)
    assert stub.stats.http_calls == 1
    assert (client.stats.hits, client.stats.misses, client.stats.http_calls) == (1, 1, 1)
    assert second.cache_hit
    assert second.text == first.text
    # A hit reports the original usage and its priced cost, but spends nothing new.
    assert (second.tokens, second.cost) == (first.tokens, first.cost)
    assert second.new_spend_usd == 0.0
    assert client.spend.spent_usd == first.cost.usd
    # The same model name on another endpoint (another stub) never shares a reply: the endpoint is in the key.
    other = make_stub(["the other server's answer"])
    third = make_client(other).complete(MESSAGES, temperature=0.0)
    assert (third.cache_hit, third.text, other.stats.http_calls) == (False, "the other server's answer", 1)
    again = make_client(stub).complete(MESSAGES, temperature=0.0)  # and the first server's entry is intact
    assert (again.cache_hit, again.text, stub.stats.http_calls) == (True, "first answer", 1)


def test_served_identity_recorded_at_preflight_separates_cache_entries(make_stub, make_client, tmp_path):
    """A local server that now serves other weights under the same name (preflight sees the reported
    model change) gets new cache keys, so old replies are not reused."""
    from matchmeter.llm.preflight import Endpoint, preflight_endpoints

    stub = make_stub([{"text": "OK", "model": "qwen-7b.gguf"}, "from 7b",
                      {"text": "OK", "model": "qwen-14b.gguf"}, "from 14b"])
    cache_dir = tmp_path / "cache"
    endpoint = Endpoint("stub/local", stub.api_base)
    assert preflight_endpoints([endpoint], cache_dir=cache_dir)[0].served == "qwen-7b.gguf"
    assert make_client(stub, "stub/local").complete(MESSAGES).text == "from 7b"
    assert make_client(stub, "stub/local").complete(MESSAGES).cache_hit
    assert preflight_endpoints([endpoint], cache_dir=cache_dir)[0].served == "qwen-14b.gguf"
    fresh = make_client(stub, "stub/local").complete(MESSAGES)
    assert (fresh.cache_hit, fresh.text, stub.stats.http_calls) == (False, "from 14b", 4)


def test_cache_key_covers_model_messages_sampling_salt_endpoint_and_served_model():
    base = cache_key("m", MESSAGES, {"temperature": 0.0}, "s")
    assert base == cache_key("m", [dict(m) for m in MESSAGES], {"temperature": 0.0, "top_p": None}, "s")
    assert base != cache_key("m2", MESSAGES, {"temperature": 0.0}, "s")
    assert base != cache_key("m", MESSAGES, {"temperature": 0.5}, "s")
    assert base != cache_key("m", MESSAGES, {"temperature": 0.0}, "s2")
    assert base != cache_key("m", MESSAGES[:1], {"temperature": 0.0}, "s")
    at_a = cache_key("m", MESSAGES, {}, "s", "http://127.0.0.1:8000/v1")
    assert at_a == cache_key("m", MESSAGES, {}, "s", "http://127.0.0.1:8000/v1/")
    assert at_a != cache_key("m", MESSAGES, {}, "s", "http://127.0.0.1:8001/v1")
    assert at_a != cache_key("m", MESSAGES, {}, "s", "http://127.0.0.1:8000/v1", served="other-weights")


@pytest.mark.parametrize("fault", ["429", "503", "500", "timeout"])
def test_transient_faults_are_retried_then_succeed(make_stub, make_client, fault):
    stub = make_stub([{"fault": fault}, "recovered"], timeout_sleep_s=1.0)
    client = make_client(stub, timeout_s=0.3)
    reply = client.complete(MESSAGES)
    assert reply.text == "recovered"
    assert stub.stats.http_calls == 2
    assert (client.stats.http_calls, client.stats.retries) == (2, 1)


def test_persistent_fault_is_infra_error_and_never_cached(make_stub, make_client):
    stub = make_stub([{"fault": "503"}] * 3 + ["finally"])
    client = make_client(stub)
    with pytest.raises(InfraError, match="persisted after 3 attempts"):
        client.complete(MESSAGES)
    assert stub.stats.http_calls == 3
    assert client.complete(MESSAGES).text == "finally"  # the error was not cached
    assert stub.stats.http_calls == 4


@pytest.mark.parametrize("fault", ["malformed", "no_choices"])
def test_malformed_reply_is_the_endpoints_fault_retried_like_a_5xx(make_stub, make_client, fault):
    """On the old code a malformed body was AgentError after one request: the model was scored 0 for the
    server's fault. It is the endpoint's fault (EndpointError, infra_error), retried, and the error's
    attempt count is what the server received."""
    stub = make_stub([{"fault": fault}, "recovered"])
    assert make_client(stub).complete(MESSAGES).text == "recovered"
    assert stub.stats.http_calls == 2
    stub = make_stub(lambda request: StubReply(fault=fault))
    with pytest.raises(EndpointError, match=rf"malformed reply from model stub/scripted at {stub.api_base} .*3 attempts"):
        make_client(stub).complete(MESSAGES)
    assert stub.stats.http_calls == 3


def test_client_error_is_agent_error_without_retry(make_stub, make_client):
    stub = make_stub([])  # exhausted script → HTTP 400
    with pytest.raises(AgentError, match="BadRequestError"):
        make_client(stub).complete(MESSAGES)
    assert stub.stats.http_calls == 1


def test_unknown_price_is_null_with_reason_and_counted_unpriced(make_stub, make_client):
    stub = make_stub(["x"])
    client = make_client(stub, model="openai/unpriced-model")
    reply = client.complete(MESSAGES)
    assert reply.cost.usd is None
    assert reply.cost.null_reason == ("no price for model openai/unpriced-model in price table 2026-11-01 "
                                      "(custom endpoint: add an exact entry with --prices FILE)")
    assert (client.spend.spent_usd, client.spend.unpriced_calls) == (0.0, 1)


def test_spend_cap_stops_new_calls_and_a_persisted_ledger_resumes(make_stub, make_client, tmp_path):
    ledger_path = tmp_path / "spend.json"
    stub = make_stub(["one", "two", "three"])
    client = make_client(stub, spend=SpendLedger(ledger_path, cap_usd=1e-6))
    first = client.complete(MESSAGES)  # spent 0 < cap: allowed, and it crosses the cap
    with pytest.raises(SpendCapReached, match="spend cap reached"):
        client.complete([*MESSAGES, {"role": "user", "content": "again"}])
    assert stub.stats.http_calls == 1
    assert client.complete(MESSAGES).cache_hit  # cached replies spend nothing and stay available
    assert json.loads(ledger_path.read_text())["spent_usd"] == first.cost.usd
    resumed = make_client(stub, spend=SpendLedger(ledger_path, cap_usd=1.0))
    assert resumed.spend.spent_usd == first.cost.usd
    assert resumed.complete([*MESSAGES, {"role": "user", "content": "again"}]).text == "two"


def test_missing_key_variable_is_a_user_error(make_stub, make_client, monkeypatch):
    monkeypatch.delenv("MM_ABSENT_KEY", raising=False)
    with pytest.raises(UserError, match="MM_ABSENT_KEY is not set"):
        make_client(make_stub(["x"]), api_key_env="MM_ABSENT_KEY").complete(MESSAGES)


def test_api_key_and_authorization_never_reach_cache_or_logs(make_stub, make_client, tmp_path, monkeypatch, caplog):
    secret = "sk-live-SECRET-7f3a9c"
    monkeypatch.setenv("MM_TEST_KEY", secret)
    caplog.set_level(logging.DEBUG)
    stub = make_stub(["ok", {"fault": "429"}, "ok2", *[{"fault": "malformed"}] * 3])
    client = make_client(stub, api_key_env="MM_TEST_KEY")
    client.complete(MESSAGES)
    client.complete([*MESSAGES, {"role": "user", "content": "more"}])
    with pytest.raises(EndpointError) as err:
        client.complete([*MESSAGES, {"role": "user", "content": "broken"}])
    client.close()
    assert stub.stats.authorized_calls == 6  # the key was sent on every request...
    stored = b"".join(p.read_bytes() for p in Path(tmp_path / "cache").rglob("*") if p.is_file())
    texts = [stored, caplog.text.encode(), str(err.value).encode(), json.dumps(stub.stats.to_json()).encode()]
    for blob in texts:  # ...and appears in no stored file, log line, error or stat
        assert secret.encode() not in blob
        assert b"Authorization" not in blob
        assert b"Bearer" not in blob


def test_importing_the_client_and_bash_agent_does_not_import_litellm():
    code = ("import sys, matchmeter.llm.client, matchmeter.llm.stub_server, matchmeter.llm.sim, "
            "matchmeter.runner.agents.bash; print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_import_litellm_pauses_the_collector_and_restores_it_as_it_was(tmp_path):
    # In fresh interpreters, against a stand-in `litellm` package first on the path: its module body records
    # whether the collector runs while it executes, which is what import_litellm() promises (paused for the
    # import, then back to how it was). The real package takes 7-8 CPU-s to import on the 2-core machine, twice
    # here; every test that calls a model imports the real one through the same function.
    package = tmp_path / "stand-in" / "litellm"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import gc\nCOLLECTING_DURING_IMPORT = gc.isenabled()\n")
    code = ("import gc, sys; from matchmeter.llm.client import import_litellm; {before}; litellm = import_litellm(); "
            "print(litellm.__file__, litellm.COLLECTING_DURING_IMPORT, gc.isenabled(), litellm.suppress_debug_info)")
    for before, after in (("pass", "True"), ("gc.disable()", "False")):
        out = subprocess.run([sys.executable, "-c", code.format(before=before)], capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONPATH": str(package.parent)}).stdout
        assert out.split() == [str(package / "__init__.py"), "False", after, "True"], (before, out)


def test_client_accepts_an_injected_price_table(make_stub, make_client):
    table = PriceTable(table_id="test-table", price=[STUB_PRICE.model_copy(update={"input": 2.0})])
    reply = make_client(make_stub(["abcd"]), price_table=table).complete(MESSAGES)
    assert reply.cost.usd == (19 * 2.0 + 1 * 4.0) / 1_000_000


def test_ledgers_sharing_a_file_never_lose_spend(tmp_path):
    import threading

    path = tmp_path / "spend.json"
    ledgers = [SpendLedger(path, cap_usd=10.0) for _ in range(4)]

    def charge(ledger: SpendLedger) -> None:
        for _ in range(50):
            ledger.charge(0.25)

    threads = [threading.Thread(target=charge, args=(ledger,)) for ledger in ledgers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert json.loads(path.read_text())["spent_usd"] == 50.0
    with pytest.raises(SpendCapReached):
        SpendLedger(path, cap_usd=50.0).check()
    SpendLedger(path, cap_usd=50.25).check()
