"""Agents through the model gateway, in real sandboxes, against the loopback stub over real HTTP.

Each test runs the trial's steps around the gateway as runner/gateway_link.py documents them
(open_execution → sandbox → GatewayAccess on the session → agent.run → settle_execution), because
runner/trial.py does not yet open gateway sessions (the lead wires it; see gateway_link's docstring).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from matchmeter.errors import MatchmeterError, SpendCapReached
from matchmeter.llm.gateway import Gateway
from matchmeter.llm.spend import SpendLedger
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents import get_agent
from matchmeter.runner.agents.session import AgentSession, GatewayAccess
from matchmeter.runner.gateway_link import AGENT_OUTPUT_LOG, GATEWAY_LOG, open_execution, settle_execution
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task

COPY = "THOUGHT: copy it.\n\n```bash\ncp data/input.txt out.txt\n```"
SUBMIT = "THOUGHT: done.\n\n```bash\nsubmit\n```"
BACKENDS = ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)]
SECRET = "sk-live-PROVIDER-KEY-9c1e77"


def _price(usage: dict) -> float:  # stub/* in prices.toml: 1.00 USD / 1M input, 4.00 / 1M output
    return (usage["prompt_tokens"] * 1 + usage["completion_tokens"] * 4) / 1_000_000


def _task(tmp_path: Path, tokens: int | None = None):
    task_dir = write_task(tmp_path / "tasks")
    if tokens is not None:
        toml = task_dir / "task.toml"
        toml.write_text(toml.read_text().replace("steps = 10", f"steps = 10\ntokens = {tokens}", 1))
    return load_task(task_dir)


class Run(NamedTuple):
    failure: MatchmeterError | None
    session: AgentSession
    logs_dir: Path
    out_txt: str


def _execute(tmp_path: Path, gateway: Gateway, agent: str, stub: StubServer, *, backend: str = "local",
             tokens: int | None = None, fake_cli: str | None = None, network: bool = False) -> Run:
    """One execution through the gateway, the way the trial will run it. `fake_cli`: a bash script put
    into the sandbox and run as the adapter's CLI (cli_path)."""
    task = _task(tmp_path, tokens)
    logs_dir = tmp_path / "exec"
    sandbox = get_backend(backend).create(SandboxRequest(
        task_id=task.id, environment_dir=Path(task.path) / "environment", environment=task.environment,
        network=network, env={"MM_SEED": "0"}, label="gw-test"))
    try:
        options = {"retry_wait_s": "0.01"}
        if fake_cli is not None:
            (tmp_path / "fake-cli.sh").write_text("#!/bin/bash\n" + fake_cli)
            options["cli_path"] = sandbox.exec('printf %s "$MM_LOGS"', 30).output + "/fake-cli.sh"
            sandbox.upload(tmp_path / "fake-cli.sh", options["cli_path"])
            sandbox.exec(f"chmod +x {options['cli_path']}", 30)
        config = configuration_from_flags(agent, "stub/scripted", options=options)
        gw_session = open_execution(gateway, "key-1", config, task, 0, 0, api_base=stub.api_base)
        assert sandbox.exec((Path(task.path) / "environment" / "setup.sh").read_text(), 30).exit_code == 0
        session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                               deadline=time.monotonic() + 60, gateway=GatewayAccess(gw_session, gateway.url,
                                                                                      gateway.url))
        agent_obj = get_agent(config, task)
        failure: MatchmeterError | None = None
        try:
            agent_obj.setup(session)
            agent_obj.run(task.instruction, session)
        except SpendCapReached:
            raise
        except MatchmeterError as exc:
            failure = exc
        failure = settle_execution(gateway, session, logs_dir, failure)
        out = sandbox.exec("cat out.txt 2>/dev/null", 30).output
    finally:
        sandbox.destroy()
    return Run(failure, session, logs_dir, out)


@pytest.fixture
def gateway(tmp_path):
    with Gateway(socket_path=tmp_path / "gw.sock") as gw:
        yield gw


@pytest.mark.parametrize("backend", BACKENDS)
def test_bash_agent_tokens_and_cost_per_execution_equal_stub_usage_times_price(gateway, tmp_path, backend):
    with StubServer([COPY, SUBMIT]) as stub:
        failure, session, logs_dir, out_txt = _execute(tmp_path, gateway, "bash", stub, backend=backend)
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
        failure, session, logs_dir, _ = _execute(tmp_path, gateway, "bash", stub, tokens=400)
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
            _execute(tmp_path, gw, "bash", stub)
        assert stub.stats.http_calls == 1
    assert json.loads((tmp_path / "spend.json").read_text())["spent_usd"] == _price(stub.stats.usages[0])


def test_cli_that_exits_without_a_call_is_agent_error_with_output_kept(gateway, tmp_path):
    cli = 'echo "I am done already"; echo "warning: nothing to do" >&2; exit 0\n'
    with StubServer([COPY]) as stub:
        failure, session, logs_dir, _ = _execute(tmp_path, gateway, "aider", stub, fake_cli=cli)
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


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_adapter_gets_a_token_not_a_key_and_gateway_metering_wins(gateway, tmp_path, backend, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # a provider key in the harness's environment
    with StubServer(["hello from the model"]) as stub:
        failure, session, _, _ = _execute(tmp_path, gateway, "aider", stub, backend=backend,
                                          fake_cli=CLI_CALLS_GATEWAY, network=True)
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


PROC_SCAN_BACKENDS = ["local", pytest.param("bwrap", marks=[pytest.mark.bwrap, pytest.mark.xfail(
    strict=True, reason="today's bwrap backend starts its holder process with the harness's whole environment, "
    "so /proc/<pid>/environ inside the sandbox shows the provider key; the allow-listed environment of the "
    "trustworthy-trials rewrite (runner/sandbox/bwrap.py) removes it, and this xfail then fails as XPASS")])]


@pytest.mark.parametrize("backend", PROC_SCAN_BACKENDS)
def test_no_provider_key_in_any_process_environment_the_sandbox_can_read(gateway, tmp_path, backend, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with StubServer(["hello from the model"]) as stub:
        failure, session, _, _ = _execute(tmp_path, gateway, "aider", stub, backend=backend,
                                          fake_cli=CLI_CALLS_GATEWAY, network=True)
    assert failure is None
    assert "ENV-KEYS:0 PROC-KEYS:0" in session.agent_output
