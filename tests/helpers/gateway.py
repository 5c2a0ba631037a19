"""Run one execution through the model gateway the way the trial will (runner/gateway_link.py's order)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple

from matchmeter.errors import MatchmeterError, SpendCapReached
from matchmeter.llm.gateway import Gateway
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents import get_agent
from matchmeter.runner.agents.adapters import host_paths
from matchmeter.runner.agents.session import AgentSession, GatewayAccess
from matchmeter.runner.gateway_link import open_execution, settle_execution
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.sandbox.egress_forwarder import IN_SANDBOX_SOCKET, start_egress_forwarder
from matchmeter.schema import ModelEndpoint
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task


def _task(tmp_path: Path, tokens: int | None = None, agent_s: float = 60):
    task_dir = write_task(tmp_path / "tasks", agent_s=agent_s)
    if tokens is not None:
        toml = task_dir / "task.toml"
        toml.write_text(toml.read_text().replace("steps = 10", f"steps = 10\ntokens = {tokens}", 1))
    return load_task(task_dir)


class Run(NamedTuple):
    failure: MatchmeterError | None
    session: AgentSession
    logs_dir: Path
    out_txt: str


def run_through_gateway(tmp_path: Path, gateway: Gateway, agent: str, stub: StubServer, *, backend: str = "local",
                        tokens: int | None = None, fake_cli: str | None = None, network: bool = False,
                        model: str = "stub/scripted", forwarder_port: int | None = None, agent_s: float = 60) -> Run:
    """One execution through the gateway, the way the trial will run it. `fake_cli`: a bash script put
    into the sandbox and run as the adapter's CLI (cli_path)."""
    task = _task(tmp_path, tokens, agent_s)
    logs_dir = tmp_path / "exec"
    # A real CLI's venv (and its Python) must be shown inside the isolated root, as the trial does.
    binds = [] if fake_cli is not None else host_paths(configuration_from_flags(agent, model))
    sandbox = get_backend(backend).create(SandboxRequest(
        task_id=task.id, environment_dir=Path(task.path) / "environment", environment=task.environment,
        network=network, env={"MM_SEED": "0"}, label="gw-test", readonly_binds=binds,
        gateway_socket=gateway.socket_path if forwarder_port is not None else None))
    try:
        options: dict[str, str] = {}
        if fake_cli is not None:
            (tmp_path / "fake-cli.sh").write_text("#!/bin/bash\n" + fake_cli)
            options["cli_path"] = sandbox.exec('printf %s "$MM_LOGS"', 30).output + "/fake-cli.sh"
            sandbox.upload(tmp_path / "fake-cli.sh", options["cli_path"])
            sandbox.exec(f"chmod +x {options['cli_path']}", 30)
        config = configuration_from_flags(agent, model, options=options, endpoint=ModelEndpoint(retry_wait_s=0.01))
        gw_session = open_execution(gateway, "key-1", config, task, 0, 0,
                                    config.endpoint.model_copy(update={"api_base": stub.api_base}))
        assert sandbox.exec((Path(task.path) / "environment" / "setup.sh").read_text(), 30).exit_code == 0
        # The CLI reaches the gateway through the in-sandbox forwarder when a port is given (the trial's path:
        # an isolated backend binds the socket at IN_SANDBOX_SOCKET), else over the gateway's loopback TCP.
        sandbox_url = gateway.url
        if forwarder_port is not None:
            assert gateway.socket_path is not None
            socket_path = IN_SANDBOX_SOCKET if sandbox.capabilities.isolated else str(gateway.socket_path)
            sandbox_url = start_egress_forwarder(sandbox, socket_path=socket_path, port=forwarder_port)
        session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                               deadline=time.monotonic() + agent_s,
                               gateway=GatewayAccess(gw_session, gateway.url, sandbox_url))
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


