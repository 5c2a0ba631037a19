"""The loopback stub: OpenAI-shaped replies over real HTTP, usage numbers, streaming, stats, process mode."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from matchmeter.llm.stub_server import StubReply
from matchmeter.llm.tokens import count_prompt_tokens, count_text_tokens


def _post(url: str, body: dict, headers: dict | None = None):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read().decode()


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


MESSAGES = [{"role": "system", "content": "x" * 40}, {"role": "user", "content": "abcdefgh"}]


def test_token_counter_is_the_documented_approximation():
    assert count_text_tokens("") == 0
    assert count_text_tokens("abcd") == 1
    assert count_text_tokens("abcde") == 2
    # (10 + 4) + (2 + 4) + 3 priming
    assert count_prompt_tokens(MESSAGES) == 23


def test_reply_carries_usage_model_and_details(make_stub):
    stub = make_stub(["hello world reply", StubReply(text="hi", model="other-model", cached_tokens=5,
                                                     reasoning_tokens=7)])
    status, _, body = _post(f"{stub.api_base}/chat/completions", {"model": "m1", "messages": MESSAGES})
    data = json.loads(body)
    assert status == 200
    assert data["model"] == "m1"
    assert data["choices"][0]["message"]["content"] == "hello world reply"
    assert data["usage"]["prompt_tokens"] == 23
    assert data["usage"]["completion_tokens"] == 5
    _, _, body = _post(f"{stub.api_base}/chat/completions", {"model": "m1", "messages": MESSAGES})
    data = json.loads(body)
    assert data["model"] == "other-model"
    assert data["usage"]["prompt_tokens_details"] == {"cached_tokens": 5}
    assert data["usage"]["completion_tokens"] == 1 + 7
    assert data["usage"]["completion_tokens_details"] == {"reasoning_tokens": 7}
    stats = _get(f"{stub.url}/stats")
    assert stats["http_calls"] == 2 == stub.stats.http_calls
    assert [u["prompt_tokens"] for u in stats["usages"]] == [23, 23]


def test_cache_prefix_reports_all_but_the_last_message_as_cached(make_stub):
    stub = make_stub([StubReply(text="ok", cache_prefix=True)])
    _, _, body = _post(f"{stub.api_base}/chat/completions", {"model": "m", "messages": MESSAGES})
    assert json.loads(body)["usage"]["prompt_tokens_details"]["cached_tokens"] == 14


def test_streaming_sends_content_then_a_final_usage_chunk_when_asked(make_stub):
    stub = make_stub(["streamed reply text", "streamed reply text", "no usage asked"])
    _, headers, body = _post(f"{stub.api_base}/chat/completions",
                             {"model": "m", "messages": MESSAGES, "stream": True,
                              "stream_options": {"include_usage": True}})
    assert headers["Content-Type"] == "text/event-stream"
    events = [line.removeprefix("data: ") for line in body.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "streamed reply text"
    assert chunks[-1]["choices"] == []
    _, _, plain = _post(f"{stub.api_base}/chat/completions", {"model": "m", "messages": MESSAGES})
    assert chunks[-1]["usage"] == json.loads(plain)["usage"]
    _, _, bare = _post(f"{stub.api_base}/chat/completions", {"model": "m", "messages": MESSAGES, "stream": True})
    assert '"usage"' not in bare  # as with OpenAI: no usage chunk unless stream_options.include_usage
    assert stub.stats.streams_started == stub.stats.streams_finished == 2


def test_faults_and_exhaustion_are_http_errors(make_stub):
    stub = make_stub([{"fault": "429"}, {"fault": "503"}])
    for code in (429, 503, 400):
        with pytest.raises(urllib.error.HTTPError) as err:
            _post(f"{stub.api_base}/chat/completions", {"model": "m", "messages": MESSAGES})
        assert err.value.code == code
    assert stub.stats.faults == {"429": 1, "503": 1}
    assert stub.stats.http_calls == 3


def test_unknown_fault_name_is_rejected():
    with pytest.raises(ValueError, match="unknown stub fault"):
        StubReply.coerce({"fault": "418"})


def test_models_endpoint_lists_seen_models_and_sim_personas(make_stub):
    stub = make_stub(["a"])
    _post(f"{stub.api_base}/chat/completions", {"model": "seen-model", "messages": MESSAGES})
    ids = {m["id"] for m in _get(f"{stub.api_base}/models")["data"]}
    assert {"seen-model", "sim/expert", "sim/explorer", "sim/sloppy", "sim/quitter"} <= ids


def test_runs_as_a_process_from_a_script_file(tmp_path):
    script = tmp_path / "replies.yaml"
    script.write_text("- first reply\n- text: second\n  model: reported-x\n")
    port_file = tmp_path / "port"
    proc = subprocess.Popen([sys.executable, "-m", "matchmeter.llm.stub_server", "--port", "0",
                             "--script", str(script), "--port-file", str(port_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{int(port_file.read_text())}"
        replies = [json.loads(_post(f"{base}/v1/chat/completions", {"model": "m", "messages": MESSAGES})[2])
                   for _ in range(2)]
        assert [r["choices"][0]["message"]["content"] for r in replies] == ["first reply", "second"]
        assert replies[1]["model"] == "reported-x"
        assert _get(f"{base}/stats")["http_calls"] == 2
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_client_that_resets_its_connection_prints_no_traceback(capfd):
    """An idle keep-alive connection dropped with a reset (as a pooled client does) is not an error on stderr."""
    import socket
    import struct
    import time

    from matchmeter.llm.stub_server import StubServer

    with StubServer(["ok"]) as stub:
        host, port = stub.api_base.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
        sock.sendall(b"POST /v1/chat")  # a request line begun, then the connection reset mid-read
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        time.sleep(0.3)
        assert stub.stats.http_calls == 0
    assert "Traceback" not in capfd.readouterr().err
