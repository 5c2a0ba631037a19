"""CLI adapters from an image layer on the task image (runner/sandbox/clilayer.py): docker runs them, and
bwrap runs in the layer's exported filesystem with no host venv visible (issue 13, Build item 7).

Full trials (runner/trial.py) through the model gateway against the loopback stub: the gateway's socket is
the sandbox's only way out, so tokens and cost per execution are the stub's usage × the price table.
Each layer image is built once per machine (tagged by CLI + version + base image id) and exported once for
bwrap; the session fixture pays for that before the first trial.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents.adapters import cli_install
from matchmeter.runner.agents.adapters.install import venv_dir
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, baseimage, clilayer, get_backend, rootfs
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description
from matchmeter.tasks.loader import load_task
from tests.helpers.clis import machine_clis_dir
from tests.helpers.tasks import write_task
from tests.runner.adapters.test_live_cli import REPLIES, expected_cost_usd, expected_tokens

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.docker]
MODEL = "openai/stub/scripted"
BACKENDS = ["docker", pytest.param("bwrap", marks=pytest.mark.bwrap)]


@pytest.fixture(scope="session")
def cli_layers(tmp_path_factory) -> dict[str, Any]:
    """Both CLIs' wheelhouses and layer images on the base image (built once per machine), timed."""
    root = machine_clis_dir()
    previous = os.environ.get("MATCHMETER_CLIS_DIR")
    os.environ["MATCHMETER_CLIS_DIR"] = str(root)
    client = baseimage.docker_client()
    found: dict[str, Any] = {"root": root}
    try:
        for agent in REPLIES:
            started = time.monotonic()
            cli = cli_install(configuration_from_flags(agent, MODEL))
            assert cli is not None
            found[agent] = (cli, clilayer.layer_image(client, baseimage.BASE_IMAGE, cli))
            found[f"{agent}:s"] = time.monotonic() - started
    finally:
        client.close()
        if previous is None:
            os.environ.pop("MATCHMETER_CLIS_DIR", None)
        else:
            os.environ["MATCHMETER_CLIS_DIR"] = previous
    return found


@pytest.fixture
def layers(cli_layers, monkeypatch):
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(cli_layers["root"]))
    return cli_layers


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("agent", list(REPLIES))
def test_cli_from_its_layer_through_the_gateway_is_metered_at_the_door(layers, tmp_path, agent, backend, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-HOST-KEY-77c1")  # must never reach the CLI
    task = load_task(write_task(tmp_path / "tasks", steps=10, agent_s=300))
    sandbox_backend = get_backend(backend)
    sandbox_backend.preflight()
    requests: list[SandboxRequest] = []
    create = sandbox_backend.create
    monkeypatch.setattr(sandbox_backend, "create", lambda request: requests.append(request) or create(request))
    with StubServer(REPLIES[agent]) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        config = configuration_from_flags(agent, MODEL)
        outcome = run_trial(TrialRequest(
            run_id="cli-layer-test", execution_key=f"k-{agent}-{backend}", configuration=config, task=task,
            description=Description.original(task), seed=0, attempt=0, backend=sandbox_backend,
            logs_dir=tmp_path / "logs", api_base=stub.api_base, gateway=gateway))
        usages = stub.stats.usages
        assert stub.stats.authorized_calls == len(REPLIES[agent])
    result, trajectory = outcome.result, outcome.trajectory
    assert (result.failure_mode, result.error) == ("none", None)
    assert result.reward == 1.0
    # the trial asked for the layer, and showed no host path to the sandbox
    [request] = requests
    assert request.cli_install is not None
    assert (request.cli_install.package, request.readonly_binds) == (layers[agent][0].package, [])
    assert [c.tokens for c in trajectory.model_calls] == [expected_tokens(u) for u in usages]
    assert [c.cost.usd for c in trajectory.model_calls] == [expected_cost_usd(expected_tokens(u)) for u in usages]
    assert result.cost.usd == pytest.approx(sum(expected_cost_usd(expected_tokens(u)) for u in usages), abs=1e-15)
    assert trajectory.reported_models == ["stub/scripted"]
    assert trajectory.metering_disagreements == []


@pytest.mark.bwrap
def test_bwrap_in_the_layer_shows_no_host_venv(layers, tmp_path):
    cli, _tag = layers["mini-swe-agent"]
    host_venv = venv_dir(cli.package, cli.version)
    task_dir = write_task(tmp_path / "tasks")
    task = load_task(task_dir)
    box = get_backend("bwrap").create(SandboxRequest(
        task_id=task.id, environment_dir=task_dir / "environment", environment=task.environment,
        label="cli-layer-novenv", cli_install=cli))
    try:
        assert box.cli_executable == clilayer.executable_path(cli) == "/opt/matchmeter/cli/mini-swe-agent-2.4.6/bin/mini"
        assert box.root.name.startswith("image-")
        assert rootfs.is_complete(box.root)
        probe = box.exec(f'test -x {box.cli_executable} && echo in-image; ls -d {host_venv} {cli.wheelhouse} 2>&1; '
                         f'grep -c -e "{layers["root"]}" -e /mm-wheels /proc/self/mountinfo; ls /mm-wheels 2>&1; '
                         f'{box.cli_executable} --help >/dev/null 2>&1 && echo runs', 120)
    finally:
        box.destroy()
    lines = probe.output.splitlines()
    assert lines[0] == "in-image"
    assert lines[1].startswith(f"ls: cannot access '{host_venv}'")  # the image's own /root, not the host's
    assert lines[2].startswith(f"ls: cannot access '{cli.wheelhouse}'")
    assert lines[3] == "0"  # nothing of the host's CLI cache is mounted
    assert "No such file or directory" in lines[4]  # the wheelhouse was removed from the layer
    assert lines[5] == "runs"
