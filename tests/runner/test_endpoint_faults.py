"""A model server that breaks mid-run is the endpoint's fault, never the model's (issue 31, items 3-5).

Every test runs a real run (local backend, the bash agent through the model gateway) against
tests/helpers/misbehaving_server.py, which answers preflight and then misbehaves, and counts what the
server received: one retry layer means the error's "N attempts" is the server's count.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run
from matchmeter.schema import ModelEndpoint
from tests.helpers.misbehaving_server import MisbehavingServer
from tests.helpers.tasks import write_task

COPY = "THOUGHT: copy it.\n```bash\ncp data/input.txt out.txt\n```"
SUBMIT = "THOUGHT: done.\n```bash\nsubmit\n```"


def solver(request: dict) -> str:
    return SUBMIT if len(request["messages"]) > 2 else COPY


def _run(tasks: Path, out: Path, api_base: str, *, resume: bool = False, retry_failed: list[str] | None = None,
         model: str = "openai/coder", timeout_s: float = 120.0):
    endpoint = ModelEndpoint(api_base=api_base or None, retry_wait_s=0.05, timeout_s=timeout_s)
    config = configuration_from_flags("bash", model, endpoint=endpoint)
    return execute_run(RunRequest(tasks=[str(tasks)], configurations=[config], backend="local", out=str(out),
                                  resume=resume, retry_failed=retry_failed or []), progress=False)


def _stored(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "executions").glob("*/result.json"))]


@pytest.mark.parametrize("fault", ["malformed", "503"])
def test_a_server_fault_mid_run_is_infra_error_sent_once_per_attempt_and_resumable(tmp_path, fault):
    """On the old code a malformed reply was stored as agent_error after one request (the model scored 0 for
    the server's fault), and a persisting 503 reached the server 12 times for "4 attempts" (the executor
    reran the trial 3 times around the client's 4 attempts). Now: infra_error naming the endpoint, the server
    receives exactly the 4 attempts the error reports, and `--resume --retry-failed infra_error` reruns it."""
    tasks = tmp_path / "tasks"
    write_task(tasks)
    with MisbehavingServer(solver) as server:
        server.fault = fault
        summary = _run(tasks, tmp_path / "run", server.api_base)
        [result] = _stored(tmp_path / "run")
        assert (server.count("ok"), server.count(fault)) == (1, 4)  # the preflight ping, then 4 attempts
        assert result["failure_mode"] == "infra_error"
        assert server.api_base in result["error"]
        assert "4 attempts" in result["error"]
        assert summary.infra_failures == summary.executed == 1
        server.fault = "ok"
        resumed = _run(tasks, tmp_path / "run", server.api_base, resume=True, retry_failed=["infra_error"])
    assert resumed.retried == 1
    [result] = _stored(tmp_path / "run")
    assert (result["failure_mode"], result["reward"]) == ("none", 1.0)


@pytest.mark.parametrize("fault", ["401", "404"])
def test_a_key_revoked_or_model_unloaded_mid_run_is_infra_error_without_retries(tmp_path, fault):
    tasks = tmp_path / "tasks"
    write_task(tasks)
    with MisbehavingServer(solver) as server:
        server.fault = fault
        _run(tasks, tmp_path / "run", server.api_base)
        assert server.count(fault) == 1  # not retried: retrying cannot fix a key or a model name
    [result] = _stored(tmp_path / "run")
    assert result["failure_mode"] == "infra_error"
    assert server.api_base in result["error"]


def test_a_hung_server_is_cut_at_the_tasks_deadline_and_the_message_names_the_endpoint(tmp_path):
    """On the old code the gateway's call to a hung server outlived the task's deadline (4 attempts of the
    120 s per-call timeout), the trial was rerun 3 times around it, and the message blamed "the model
    gateway". Now the call in flight is cut at the deadline: agent_timeout while no attempt had failed yet
    (the per-call timeout had not passed), infra_error once one had; the message names the endpoint; the
    agent phase lasts the task's limit and started_at is when the execution started."""
    tasks = tmp_path / "tasks"
    write_task(tasks, agent_s=5)
    with MisbehavingServer(solver) as server:
        server.fault = "hang"
        _run(tasks, tmp_path / "slow", server.api_base)
        [slow] = _stored(tmp_path / "slow")
        first_request = min(t for t, f, _ in server.requests if f == "hang")
        _run(tasks, tmp_path / "down", server.api_base, timeout_s=1.5)  # per-call timeout below the limit
        [down] = _stored(tmp_path / "down")
    assert slow["failure_mode"] == "agent_timeout"
    assert f"the task's agent deadline passed while waiting 5s for model openai/coder at {server.api_base}" \
        in slow["error"]
    assert down["failure_mode"] == "infra_error"
    assert f"model openai/coder at {server.api_base} did not answer before the task's agent deadline" in down["error"]
    for result in (slow, down):
        agent = next(p for p in result["phases"] if p["phase"] == "agent")
        agent_s = (datetime.fromisoformat(agent["ended_at"]) - datetime.fromisoformat(agent["started_at"])).total_seconds()
        assert 4.5 <= agent_s <= 8.0, result["phases"]
    assert datetime.fromisoformat(slow["started_at"]).timestamp() <= first_request
    wall = datetime.fromisoformat(slow["ended_at"]) - datetime.fromisoformat(slow["started_at"])
    assert wall.total_seconds() < 30  # one trial, not three reruns of it


def test_an_unknown_sim_persona_is_refused_before_anything_is_stored(tmp_path):
    """On the old code sim/nobody passed preflight and every execution was stored as agent_error."""
    tasks = tmp_path / "tasks"
    write_task(tasks)
    with pytest.raises(UserError, match=r"unknown sim persona 'nobody' \(--model sim/nobody\): choose one of: sim/expert"):
        _run(tasks, tmp_path / "run", "", model="sim/nobody")
    assert not (tmp_path / "run").exists()


def _gateway_session(tmp_path: Path, server: MisbehavingServer):
    from matchmeter.llm.gateway import Gateway, Upstream

    gateway = Gateway(socket_path=tmp_path / "gw.sock").start()
    upstream = Upstream(model="openai/coder",
                        endpoint=ModelEndpoint(api_base=server.api_base, retry_wait_s=0.05, use_cache=False))
    return gateway, gateway.open_session("exec-1", upstream)


def test_a_cli_sdks_own_retries_do_not_reach_a_failed_endpoint(tmp_path):
    """What a CLI adapter's OpenAI SDK does (max_retries=2 by default: it retries 5xx). On the old code each of
    its 3 tries set off the gateway's 4 attempts: the server received 12 requests for "4 attempts". Now the
    gateway answers the SDK's retries 424 without calling the failed endpoint again: the server receives 4."""
    import openai

    with MisbehavingServer(solver) as server:
        server.fault = "503"
        gateway, session = _gateway_session(tmp_path, server)
        try:
            sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token)  # the SDK's default retries
            with pytest.raises(openai.APIStatusError) as err:
                sdk.chat.completions.create(model="coder", messages=[{"role": "user", "content": "go"}])
            assert server.count("503") == 4
            assert err.value.status_code == 424
            meter = gateway.close_session(session)
        finally:
            gateway.stop()
    assert [(c.status, c.upstream_attempts) for c in meter.calls][0] == (503, 4)
    assert all((c.status, c.upstream_attempts) == (424, 0) for c in meter.calls[1:])
    assert "ServiceUnavailableError persisted after 4 attempts" in meter.calls[0].error


def test_the_gateway_cuts_any_agents_call_in_flight_at_the_tasks_deadline(tmp_path):
    """For every agent (here an OpenAI SDK, as a CLI inside the sandbox holds): the call to a hung server
    ends at the deadline the trial set on the session, not after the 120 s per-call timeout (on the old
    code the gateway had no deadline: the SDK waited out its own 600 s timeout)."""
    import time

    import openai

    with MisbehavingServer(solver) as server:
        server.fault = "hang"
        gateway, session = _gateway_session(tmp_path, server)
        try:
            session.deadline = time.monotonic() + 3
            sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, timeout=60)
            t0 = time.monotonic()
            with pytest.raises(openai.APIStatusError) as err:
                sdk.chat.completions.create(model="coder", messages=[{"role": "user", "content": "go"}])
            waited = time.monotonic() - t0
            gateway.close_session(session)
        finally:
            gateway.stop()
    assert 2.5 <= waited <= 8
    assert err.value.status_code == 402
    assert "the task's agent deadline passed while waiting" in str(err.value)
    assert f"s for model openai/coder at {server.api_base}" in str(err.value)
    assert server.count("hang") == 1


def test_a_trickling_stream_is_cut_at_the_deadline_too(tmp_path):
    """A server that streams a chunk a second resets every read timeout: the stream (6 s in all) is cut at the
    session's 3 s deadline all the same (on the old code it ran to its end, past the task's limit)."""
    import time

    import openai

    from matchmeter.llm.client import import_litellm
    from matchmeter.llm.gateway import Gateway, Upstream
    from matchmeter.llm.stub_server import StubReply, StubServer

    import_litellm()  # its first import takes seconds: not inside the 3 s this test gives the call
    words = " ".join(f"w{i}" for i in range(30))
    with StubServer(lambda request: StubReply(text=words, chunk_delay_s=1.0)) as stub, \
            Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        session = gateway.open_session("exec-t", Upstream(model="stub/scripted",
                                                          endpoint=ModelEndpoint(api_base=stub.api_base, use_cache=False)))
        session.deadline = time.monotonic() + 3
        sdk = openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=session.token, max_retries=0)
        received: list[str] = []

        def consume() -> None:
            for chunk in sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}],
                                                     stream=True):
                received.extend(c.delta.content for c in chunk.choices if c.delta.content)

        t0 = time.monotonic()
        with pytest.raises(openai.APIError, match="deadline passed while model stub/scripted at"):
            consume()
        waited = time.monotonic() - t0
        meter = gateway.close_session(session)
    assert waited < 5  # the whole stream takes 6 s (7 chunks, 1 s apart)
    assert meter.calls[0].error_kind == "agent_deadline"
