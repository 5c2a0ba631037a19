"""Agents through the model gateway, in real sandboxes, against the loopback stub over real HTTP.

Each test runs the trial's steps around the gateway as runner/gateway_link.py documents them
(open_execution → sandbox → GatewayAccess on the session → agent.run → settle_execution), because
runner/trial.py does not yet open gateway sessions (the lead wires it; see gateway_link's docstring).
"""

from __future__ import annotations

import json
import os

import pytest

from matchmeter.errors import SpendCapReached
from matchmeter.llm.gateway import Gateway
from matchmeter.llm.spend import SpendLedger
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.gateway_link import AGENT_OUTPUT_LOG, GATEWAY_LOG
from tests.helpers.gateway import run_through_gateway

COPY = "THOUGHT: copy it.\n\n```bash\ncp data/input.txt out.txt\n```"
SUBMIT = "THOUGHT: done.\n\n```bash\nsubmit\n```"
BACKENDS = ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)]
SECRET = "sk-live-PROVIDER-KEY-9c1e77"


def _price(usage: dict) -> float:  # stub/* in prices.toml: 1.00 USD / 1M input, 4.00 / 1M output
    return (usage["prompt_tokens"] * 1 + usage["completion_tokens"] * 4) / 1_000_000


@pytest.fixture
def gateway(tmp_path):
    with Gateway(socket_path=tmp_path / "gw.sock") as gw:
        yield gw


@pytest.mark.parametrize("backend", BACKENDS)
def test_bash_agent_tokens_and_cost_per_execution_equal_stub_usage_times_price(gateway, tmp_path, backend):
    with StubServer([COPY, SUBMIT]) as stub:
        failure, session, logs_dir, out_txt = run_through_gateway(tmp_path, gateway, "bash", stub, backend=backend)
        usages = stub.stats.usages
    assert failure is None
    assert out_txt.strip() == "seed-0"
    calls = session.trajectory.model_calls
    assert len(calls) == len(usages) == 2
    assert [c.cost.usd for c in calls] == [_price(u) for u in usages]
    assert session.trajectory.tokens.total == sum(u["total_tokens"] for u in usages)
    assert session.trajectory.cost.usd == pytest.approx(sum(_price(u) for u in usages), abs=1e-15)
    assert session.trajectory.steps[0].tokens == calls[0].tokens  # the per-step view keeps the same numbers
    assert session.trajectory.reported_models == ["stub/scripted"]
    stored = [json.loads(line) for line in (logs_dir / GATEWAY_LOG).read_text().splitlines()]
    assert [r["cost"]["usd"] for r in stored] == [_price(u) for u in usages]
    assert [r["model_asked"] for r in stored] == ["stub/scripted", "stub/scripted"]


def test_bash_agent_budget_crossing_ends_budget_exceeded(gateway, tmp_path):
    # The first turn costs ~290 tokens at the stub's count; the second prompt alone would cross 400.
    with StubServer([COPY, SUBMIT]) as stub:
        failure, session, logs_dir, _ = run_through_gateway(tmp_path, gateway, "bash", stub, tokens=400)
        assert stub.stats.http_calls == 1  # the crossing call never left the door
    assert failure is not None
    assert failure.failure_mode == "budget_exceeded"
    assert str(failure).startswith("tokens budget exceeded")
    stored = [json.loads(line) for line in (logs_dir / GATEWAY_LOG).read_text().splitlines()]
    assert [(r["status"], r["error_kind"]) for r in stored] == [(200, None), (402, "budget_exceeded")]
    assert session.trajectory.tokens.total <= 400


def test_spend_cap_stops_the_run_at_the_door(tmp_path):
    ledger = SpendLedger(tmp_path / "spend.json", cap_usd=1e-9)
    with StubServer([COPY, SUBMIT]) as stub, Gateway(socket_path=tmp_path / "gw.sock", ledger=ledger) as gw:
        with pytest.raises(SpendCapReached, match="^matchmeter gateway refused the call: spend cap reached"):
            run_through_gateway(tmp_path, gw, "bash", stub)
        assert stub.stats.http_calls == 1
    assert json.loads((tmp_path / "spend.json").read_text())["spent_usd"] == _price(stub.stats.usages[0])


def test_cli_that_exits_without_a_call_is_agent_error_with_output_kept(gateway, tmp_path):
    cli = 'echo "I am done already"; echo "warning: nothing to do" >&2; exit 0\n'
    with StubServer([COPY]) as stub:
        failure, session, logs_dir, _ = run_through_gateway(tmp_path, gateway, "aider", stub, fake_cli=cli)
        assert stub.stats.http_calls == 0
    assert failure is not None
    assert failure.failure_mode == "agent_error"
    assert "ended without a single model call" in str(failure)
    kept = (logs_dir / AGENT_OUTPUT_LOG).read_text()
    assert "I am done already" in kept
    assert "warning: nothing to do" in kept


CLI_CALLS_GATEWAY = """\
set -u
cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c "PROVIDER-KEY" > /tmp/mm-gw-procscan || true
body='{"model":"m","messages":[{"role":"user","content":"copy"}]}'
curl -s -H "Authorization: Bearer $OPENAI_API_KEY" -H 'Content-Type: application/json' -d "$body" \\
  "$OPENAI_API_BASE/chat/completions"
echo; echo "ENV-KEYS:$(env | grep -c PROVIDER-KEY) PROC-KEYS:$(cat /tmp/mm-gw-procscan)"
"""


def _via_forwarder(backend: str) -> int | None:
    """An isolated sandbox reaches the gateway through its socket and the in-sandbox forwarder, as in a trial: a
    network-on bwrap sandbox has a network namespace of its own, where the gateway's loopback URL is not the host's."""
    return None if backend == "local" else _free_port()


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_adapter_gets_a_token_not_a_key_and_gateway_metering_wins(gateway, tmp_path, backend, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # a provider key in the harness's environment
    with StubServer(["hello from the model"]) as stub:
        failure, session, _, _ = run_through_gateway(tmp_path, gateway, "aider", stub, backend=backend,
                                          fake_cli=CLI_CALLS_GATEWAY, network=True,
                                          forwarder_port=_via_forwarder(backend))
        assert stub.stats.usages, (failure, session.agent_output)
        usage = stub.stats.usages[0]
    assert failure is None
    assert "ENV-KEYS:0 " in session.agent_output  # the CLI's own environment holds the token, not the key
    assert SECRET not in session.agent_output
    assert "hello from the model" in session.agent_output
    assert [c.cost.usd for c in session.trajectory.model_calls] == [_price(usage)]
    assert session.trajectory.cli_model_calls == []  # the fake CLI printed no usage of its own
    assert session.trajectory.metering_disagreements == ["calls: gateway metered 1, the CLI reported 0"]
    assert os.environ["OPENAI_API_KEY"] == SECRET


PROC_SCAN_BACKENDS = ["local", pytest.param("bwrap", marks=[pytest.mark.bwrap])]


@pytest.mark.parametrize("backend", PROC_SCAN_BACKENDS)
def test_no_provider_key_in_any_process_environment_the_sandbox_can_read(gateway, tmp_path, backend, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with StubServer(["hello from the model"]) as stub:
        failure, session, _, _ = run_through_gateway(tmp_path, gateway, "aider", stub, backend=backend,
                                          fake_cli=CLI_CALLS_GATEWAY, network=True,
                                          forwarder_port=_via_forwarder(backend))
    assert failure is None
    assert "ENV-KEYS:0 PROC-KEYS:0" in session.agent_output


CLI_THREE_CALLS = """\
for i in 1 2 3; do
  curl -s -o /dev/null -w "call $i: HTTP %{http_code}\\n" -H "Authorization: Bearer $OPENAI_API_KEY" \\
    -H 'Content-Type: application/json' -d '{"model":"m","messages":[{"role":"user","content":"turn '$i'"}]}' \\
    "$OPENAI_API_BASE/chat/completions"
done
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_adapter_budget_crossing_ends_budget_exceeded_through_the_forwarder(gateway, tmp_path):
    # each call: 9 prompt tokens + 25 output = 34; the 2nd (34 + 9 = 43) would cross a 40-token budget
    with StubServer(["x" * 100, "y" * 100, "z" * 100]) as stub:
        failure, session, logs_dir, _ = run_through_gateway(tmp_path, gateway, "aider", stub, tokens=40,
                                                            fake_cli=CLI_THREE_CALLS, forwarder_port=_free_port())
        assert stub.stats.http_calls == 1
    assert failure is not None
    assert failure.failure_mode == "budget_exceeded"
    assert str(failure) == "tokens budget exceeded: used 43 of 40"
    assert "call 1: HTTP 200\ncall 2: HTTP 402\ncall 3: HTTP 402" in session.agent_output
    stored = [json.loads(line) for line in (logs_dir / GATEWAY_LOG).read_text().splitlines()]
    assert [r["status"] for r in stored] == [200, 402, 402]
    assert session.trajectory.tokens.total == 34


def test_spend_cap_stops_a_cli_run(tmp_path):
    ledger = SpendLedger(tmp_path / "spend.json", cap_usd=1e-9)
    with StubServer(["x" * 100, "y", "z"]) as stub, Gateway(socket_path=tmp_path / "gw.sock", ledger=ledger) as gw:
        with pytest.raises(SpendCapReached, match="^spend cap reached"):
            run_through_gateway(tmp_path, gw, "aider", stub, fake_cli=CLI_THREE_CALLS, forwarder_port=_free_port())
        assert stub.stats.http_calls == 1


CLI_SPEAKS_GEMINI = """\
body='{"contents":[{"role":"user","parts":[{"text":"copy"}]}]}'
curl -s -H "x-goog-api-key: $GEMINI_API_KEY" -H 'Content-Type: application/json' -d "$body" \\
  "$GOOGLE_GEMINI_BASE_URL/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
echo '{"response": "copied", "stats": {"models": {}}}'
"""


def test_a_cli_speaking_the_gemini_api_runs_through_the_forwarder_and_is_metered(gateway, tmp_path):
    with StubServer(["hello gemini cli"]) as stub:
        failure, session, logs_dir, _ = run_through_gateway(tmp_path, gateway, "gemini-cli", stub,
                                                            fake_cli=CLI_SPEAKS_GEMINI, forwarder_port=_free_port())
        usage = stub.stats.usages[0]
    events = [json.loads(line[6:]) for line in session.agent_output.splitlines() if line.startswith("data: {")]
    assert "".join(e["candidates"][0]["content"]["parts"][0]["text"] for e in events) == "hello gemini cli"
    assert events[-1]["usageMetadata"]["totalTokenCount"] == usage["total_tokens"]
    assert [c.cost.usd for c in session.trajectory.model_calls] == [_price(usage)]
    stored = [json.loads(line) for line in (logs_dir / GATEWAY_LOG).read_text().splitlines()]
    assert [(r["api"], r["stream"], r["model_asked"]) for r in stored] == [("gemini", True, "gemini-2.5-pro")]
    assert failure is None, failure
