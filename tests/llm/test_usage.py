"""The one usage reader (llm/usage.py): OpenAI-shaped counts into disjoint classes, untrusted counts clamped, and
the LM client, the gateway's client and the CLI adapters all reading usage through it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

from matchmeter.llm import usage
from matchmeter.llm.client import parse_response
from matchmeter.llm.gateway_client import GatewayClient
from matchmeter.runner.agents.adapters import base, kimi, mini_swe_agent
from matchmeter.schema import TokenUsage

FULL = {"prompt_tokens": 100, "completion_tokens": 50, "prompt_tokens_details": {"cached_tokens": 30},
        "completion_tokens_details": {"reasoning_tokens": 20}}
# An endpoint that says more was cached than was sent, more was reasoning than was written, and worse.
LYING = {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 40},
         "completion_tokens_details": {"reasoning_tokens": 9}}


def test_inclusive_totals_become_disjoint_classes():
    assert usage.read_openai_usage(FULL) == (TokenUsage(input=70, cached_input=30, output=30, reasoning=20), True)
    as_object = SimpleNamespace(prompt_tokens=100, completion_tokens=50,
                                prompt_tokens_details=SimpleNamespace(cached_tokens=30),
                                completion_tokens_details=SimpleNamespace(reasoning_tokens=20))
    assert usage.read_openai_usage(as_object) == usage.read_openai_usage(FULL)  # litellm's objects read the same


def test_counts_an_endpoint_gets_wrong_are_clamped_never_negative():
    assert usage.openai_usage(LYING) == TokenUsage(input=0, cached_input=10, output=0, reasoning=5)
    assert usage.openai_usage({"prompt_tokens": -7, "completion_tokens": "many"}) == TokenUsage()
    assert usage.inclusive_usage(-3, 2, 4, -1) == TokenUsage(input=0, cached_input=0, output=4, reasoning=0)
    assert usage.read_openai_usage(None) == (TokenUsage(), False)
    assert usage.read_openai_usage({"prompt_tokens": 0, "completion_tokens": 0}).reported is False


def test_the_lm_client_reads_usage_through_it():
    reply = {"choices": [{"message": {"content": "hi"}}], "model": "m", "usage": LYING}
    _, _, tokens, reported = parse_response(reply, "m")
    assert (tokens, reported) == (TokenUsage(input=0, cached_input=10, output=0, reasoning=5), True)


def test_the_adapters_parsers_read_usage_through_it():
    for module in (base, kimi, mini_swe_agent):
        assert module.openai_usage is usage.openai_usage
    assert base.inclusive_usage is usage.inclusive_usage


class _OneReply(BaseHTTPRequestHandler):
    """Answers every chat request with the gateway's JSON shape, usage as LYING."""

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "ok"}}], "usage": LYING,
                           "matchmeter": {"cost_usd": 0.5, "model_answered": "m", "latency_s": 0.1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def test_the_gateway_client_clamps_too():
    """On the old code the gateway's client read usage itself, unclamped: this reply made a negative input count
    (10 - 40), which TokenUsage refuses (a ValidationError in the middle of the bash agent's turn)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OneReply)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        reply = GatewayClient(f"http://127.0.0.1:{server.server_address[1]}", "tok", "m").complete(
            [{"role": "user", "content": "hi"}])
    finally:
        server.shutdown()
        server.server_close()
    assert reply.tokens == TokenUsage(input=0, cached_input=10, output=0, reasoning=5)
    assert reply.cost.usd == 0.5
