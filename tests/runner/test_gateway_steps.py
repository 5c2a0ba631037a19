"""One gateway session across the steps of a multi-step execution (runner/gateway_link.settle_step), over real
HTTP to the gateway and the scripted stub: each call carries its step, a step is judged over its own calls,
the door is shut between steps, and the execution's record keeps every call."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

from matchmeter.errors import AgentError
from matchmeter.llm.gateway import Gateway
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents.session import AgentSession, GatewayAccess
from matchmeter.runner.gateway_link import GATEWAY_LOG, open_execution, settle_execution, settle_step
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.schema import ModelEndpoint
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task


def _call(url: str, token: str, text: str = "hi") -> tuple[int, dict]:
    body = json.dumps({"model": "stub/scripted", "messages": [{"role": "user", "content": text}]}).encode()
    request = urllib.request.Request(f"{url}/v1/chat/completions", body, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_one_session_spans_the_steps_and_each_step_is_judged_on_its_own_calls(tmp_path: Path):
    task = load_task(write_task(tmp_path / "tasks"))
    config = configuration_from_flags("bash", "stub/scripted", endpoint=ModelEndpoint(retry_wait_s=0.01))
    sandbox = get_backend("local").create(SandboxRequest(
        task_id=task.id, environment_dir=Path(task.path) / "environment", environment=task.environment,
        label="gw-steps-test"))
    try:
        with StubServer(["one", "two", "three"]) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
            gw = open_execution(gateway, "key-steps", config, task, 0, 0,
                                config.endpoint.model_copy(update={"api_base": stub.api_base}))
            session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                                   deadline=time.monotonic() + 60, gateway=GatewayAccess(gw, gateway.url))
            # step one: two answered calls, then the step ends
            session.step = gw.step = "one"
            gw.deadline = time.monotonic() + 60
            # (different prompts: an identical one would be served by the response cache, not the stub)
            assert [_call(gateway.url, gw.token, f"call {i}")[0] for i in range(2)] == [200, 200]
            assert settle_step(session, None) is None
            assert [c.step for c in session.trajectory.model_calls] == ["one", "one"]
            # between steps (the verifier runs): refused, still recorded under the step that just ended
            status, body = _call(gateway.url, gw.token)
            assert (status, body["error"]["type"]) == (402, "agent_deadline")
            # step two: the same token and meter; an agent that makes no call in it fails that step alone
            session.step = gw.step = "two"
            gw.deadline = time.monotonic() + 60
            failure = settle_step(session, None)
            assert isinstance(failure, AgentError)
            assert "ended step 'two' without a single model call" in str(failure)
            assert settle_execution(gateway, session, tmp_path, None) is None  # the execution as a whole did call
            assert _call(gateway.url, gw.token)[0] == 401  # the execution's end revokes the token
            stats = stub.stats.to_json()
    finally:
        sandbox.destroy()
    calls = [json.loads(line) for line in (tmp_path / GATEWAY_LOG).read_text().splitlines()]
    assert [(c["step"], c["status"]) for c in calls] == [("one", 200), ("one", 200), ("one", 402)]
    assert stats["http_calls"] == 2  # the refused call never reached the model
    assert len(session.trajectory.model_calls) == 2
    assert session.trajectory.tokens.total == sum(c.tokens.total for c in session.trajectory.model_calls) > 0
