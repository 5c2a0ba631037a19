"""CLI adapters from an image layer on the task image (runner/sandbox/clilayer.py): docker runs them, and
bwrap runs in the layer's exported filesystem with no host venv visible (issue 13, Build item 7).

Full trials (runner/trial.py) through the model gateway against the loopback stub: the gateway's socket is
the sandbox's only way out, so tokens and cost per execution are the stub's usage × the price table.
Each layer image is built once per machine (tagged by CLI + version + base image id) and exported once for
bwrap; the session fixture pays for that before the first trial.

Install kinds (issue 38): Codex CLI and Claude Code from the wheels that carry their binaries (pypi-binary),
an npm CLI from a locally packed tarball on Node from PyPI (npm), the refusal when a registry cannot be
reached, and a CLI that is missing or broken in the sandbox scored as infra_error, never the agent's.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents.adapters.install import venv_dir
from matchmeter.runner.agents.adapters.npm import prefix_dir
from matchmeter.runner.executor import PlannedExecution, atif_of
from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run
from matchmeter.runner.sandbox import SandboxRequest, clilayer, get_backend, rootfs
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description, ModelEndpoint
from matchmeter.tasks.loader import load_task
from tests.helpers.clis import machine_clis_dir
from tests.helpers.tasks import write_task
from tests.runner.adapters.conftest import layers_on_base
from tests.runner.adapters.test_live_cli import REPLIES, expected_cost_usd, expected_tokens

pytestmark = [pytest.mark.live_cli, pytest.mark.slow, pytest.mark.docker]
MODEL = "openai/stub/scripted"
BACKENDS = ["docker", pytest.param("bwrap", marks=pytest.mark.bwrap)]


@pytest.fixture(scope="session")
def cli_layers(tmp_path_factory) -> dict[str, Any]:
    """Both CLIs' wheelhouses and layer images on the base image (built once per machine), timed."""
    return layers_on_base(REPLIES, MODEL)


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
            logs_dir=tmp_path / "logs", endpoint=ModelEndpoint(api_base=stub.api_base), gateway=gateway))
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


# ------------------------------------------------------------------ install kinds pypi-binary and npm (issue 38)

# What each pypi-binary CLI prints for `--version` inside the sandbox, and its layer's executable.
BINARY_CLIS = {
    "codex": ("codex-cli 0.163.0", "/opt/matchmeter/cli/openai-codex-cli-bin-0.163.0/codex_cli_bin/bin/codex"),
    "claude-code": ("2.1.327 (Claude Code)",
                    "/opt/matchmeter/cli/claude-agent-sdk-0.2.184/claude_agent_sdk/_bundled/claude"),
}


@pytest.fixture(scope="session")
def binary_layers() -> dict[str, Any]:
    """Codex CLI's and Claude Code's wheels (pip download, ~150 MB each) and layers on the base image, once per
    machine (about 40 s of cold build each)."""
    return layers_on_base(BINARY_CLIS, MODEL)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("agent", list(BINARY_CLIS))
def test_a_pypi_binary_cli_runs_from_its_layer_with_no_python(binary_layers, tmp_path, agent, backend):
    cli, tag = binary_layers[agent]
    version, executable = BINARY_CLIS[agent]
    assert cli.kind == "pypi-binary"
    assert [p.name for p in cli.wheelhouse.glob("*.whl")] == [clilayer.the_wheel(cli.wheelhouse, cli.package).name]
    # the tag names kind, package, version and the image it was built on
    assert tag == f"matchmeter-cli-pypi-binary-{cli.package}-{cli.version}:{binary_layers['base_id']}"
    task_dir = write_task(tmp_path / "tasks")
    task = load_task(task_dir)
    box = get_backend(backend).create(SandboxRequest(
        task_id=task.id, environment_dir=task_dir / "environment", environment=task.environment,
        label="cli-layer-binary", cli_install=cli))
    try:
        assert box.cli_executable == executable
        probe = box.exec(f"mkdir -p /tmp/h && HOME=/tmp/h {executable} --version </dev/null 2>/dev/null | tail -1; "
                         f"ls {clilayer.venv_path(cli)}; find {clilayer.venv_path(cli)} -name '*python*' | wc -l", 120)
    finally:
        box.destroy()
    lines = probe.output.splitlines()
    assert lines[0] == version
    assert lines[1] == clilayer.payload_dir(cli).split("/")[0]  # the wheel's payload only: no venv, no dist-info
    assert lines[2] == "0"


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_npm_cli_from_a_packed_tarball_installs_layers_and_solves_a_trial(npm_hello, tmp_path, backend,
                                                                               monkeypatch):
    """install (npm install --prefix from the npm-pack tarball, offline, Node from PyPI) → layer → a trial, of
    an adapter installed as a separate package and registered only through the `matchmeter.adapters` entry
    point: its install comes from its class's requirements (on the old code, looked up in the built-in table,
    it got none and its trial failed with "not installed")."""
    task = load_task(write_task(tmp_path / "tasks", steps=10, agent_s=120))
    sandbox_backend = get_backend(backend)
    sandbox_backend.preflight()
    requests: list[SandboxRequest] = []
    create = sandbox_backend.create
    monkeypatch.setattr(sandbox_backend, "create", lambda request: requests.append(request) or create(request))
    config = configuration_from_flags("npm-hello", MODEL)
    item = PlannedExecution(f"k-npm-{backend}", config, task, Description.original(task), 0, 0)
    outcome = run_trial(TrialRequest(
        run_id="cli-layer-npm", execution_key=item.key, configuration=config, task=task,
        description=item.description, seed=0, attempt=0, backend=sandbox_backend, logs_dir=tmp_path / "logs"))
    result, trajectory = outcome.result, outcome.trajectory
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    [request] = requests
    cli = request.cli_install
    assert cli is not None
    assert (cli.kind, cli.package, cli.version) == ("npm", "mm-hello-cli", "1.0.0")
    tarball = npm_hello / "mm-hello-cli-1.0.0.tgz"
    installed = json.loads((cli.wheelhouse / ".matchmeter-npm").read_text())
    assert cli.digest == installed["digest"] == hashlib.sha256(tarball.read_bytes()).hexdigest()[:12]
    assert installed["source"].endswith("/mm-hello-cli-1.0.0.tgz")  # from a tarball; the registry is a closed port
    assert clilayer.layer_tag(cli, "x") == f"matchmeter-cli-npm-mm-hello-cli-1.0.0-{cli.digest}:x"
    assert trajectory.steps[0].output.startswith("copied data/input.txt to out.txt on node v24.19.0")
    # ATIF's agent.version is the CLI's own, as it reported it in the sandbox, not matchmeter's
    assert trajectory.agent_version == "mm-hello 1.0.0"
    assert atif_of(item, outcome)["agent"]["version"] == "mm-hello 1.0.0"
    box = create(request)
    try:
        layer = box.exec(f"ls {clilayer.venv_path(cli)}/node/bin; command -v node npm || echo no-node-on-path", 60)
    finally:
        box.destroy()
    assert layer.output.split() == ["node", "no-node-on-path"]  # Node's binary only, reached by the wrapper


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cli_path", ["/nonexistent/codex", "/bin/false"])
def test_a_missing_or_broken_cli_is_an_infra_error_never_the_agents(tmp_path, backend, cli_path):
    """Failed on the old code: setup raised AgentError for a missing CLI (agent_error, reward 0, exit 0), and a
    broken one ran as the agent (exit 1 without a model call: agent_error). Now setup proves the CLI runs in
    the sandbox (`--version`) and a CLI that does not is infra_error, with nothing of the agent scored."""
    tasks = tmp_path / "tasks"
    write_task(tasks)
    with StubServer(["unused"]) as stub:
        config = configuration_from_flags("codex", MODEL, options={"cli_path": cli_path},
                                          endpoint=ModelEndpoint(api_base=stub.api_base))
        summary = execute_run(RunRequest(tasks=[str(tasks)], configurations=[config], backend=backend,
                                         out=str(tmp_path / "run")), progress=False)
        assert stub.stats.requests == 0  # the agent never ran
    [result] = summary.results
    assert result.failure_mode == "infra_error"
    assert summary.infra_failures == summary.executed == 1
    why = "is not executable inside this sandbox" if cli_path.startswith("/nonexistent") else "does not run in the sandbox"
    assert why in (result.error or "")


def test_an_npm_cli_whose_registry_cannot_be_reached_stops_the_run_before_any_trial(tmp_path):
    """Failed on the old code: `install: npm` had no install path; the run scored the missing Qwen Code as the
    agent's failure (agent_error) and exited 0."""
    root = Path(__file__).resolve().parents[3]
    proc = subprocess.run(
        [sys.executable, "-m", "matchmeter.cli", "run", "--agent", "qwen-code", "--model", "sim/expert", "--task",
         "cleanup-old-tmp", "--backend", "docker", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300, cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "MATCHMETER_CLIS_DIR": str(machine_clis_dir()),
             "npm_config_registry": "http://127.0.0.1:9/", "npm_config_cache": str(tmp_path / "npm-cache")})
    assert proc.returncode == 2
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("error:")]
    assert line.startswith("error: cannot fetch the CLI @qwen-code/qwen-code@0.24.4 from the npm registry "
                           "(http://127.0.0.1:9/): ")
    assert "ECONNREFUSED" in line
    assert "npm pack @qwen-code/qwen-code@0.24.4` and set MATCHMETER_NPM_TARBALLS" in line
    assert not (tmp_path / "run").exists()  # nothing stored
    assert not prefix_dir("@qwen-code/qwen-code", "0.24.4", machine_clis_dir()).exists()
