"""Install kinds without a sandbox (issue 38): the refusals a run gives before any trial when a CLI cannot be
fetched or cannot run here, what `agents profiles` says about each install, and how a wheel's payload is
unpacked; and an agent's requirements read from its class, built-in or entry point (issue 37). The layers
themselves, on docker and bwrap, are in test_cli_layer.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from matchmeter.cli import app
from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.agents import get_agent, requirements
from matchmeter.runner.agents.adapters import host_paths, install_spec, needs_network, npm
from matchmeter.runner.agents.adapters.npm import TARBALLS_ENV
from matchmeter.runner.agents.requirements import AgentRequirements, requirements_of
from matchmeter.runner.agents.session import AgentSession
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, clilayer, get_backend
from matchmeter.schema import AgentSpec, Configuration
from matchmeter.tasks.loader import load_task
from tests.helpers.clis import machine_clis_dir
from tests.helpers.tasks import write_task
from tests.runner.adapters.conftest import HELLO_PLUGIN_DIR, NPM_HELLO_DIR, pack_npm_hello

ROOT = Path(__file__).resolve().parents[3]


def _run(tmp_path: Path, agent: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "matchmeter.cli", "run", "--agent", agent, "--model", "sim/expert", "--task",
         "cleanup-old-tmp", "--backend", "local", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MATCHMETER_CLIS_DIR": str(tmp_path / "clis"), **env})


def test_a_cli_that_cannot_be_fetched_stops_the_run_before_any_trial(tmp_path):
    """Failed on the old code: the run went on, scored the missing Codex CLI as the agent's failure
    (agent_error, reward 0) and exited 0."""
    proc = _run(tmp_path, "codex", PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_NO_CACHE_DIR="1", PIP_RETRIES="0")
    assert proc.returncode == 2
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("error:")]  # (local warns it is not isolated)
    assert line.startswith("error: cannot fetch the CLI openai-codex-cli-bin==0.163.0 from PyPI "
                           "(http://127.0.0.1:9/simple): the index cannot be reached (")
    assert "pip download --no-deps --only-binary=:all: -d DIR 'openai-codex-cli-bin==0.163.0'" in line
    assert "PIP_FIND_LINKS=DIR PIP_NO_INDEX=1" in line
    assert not (tmp_path / "run").exists()  # nothing stored
    assert not list((tmp_path / "clis" / "wheelhouse").glob("*/*"))  # no half-fetched wheelhouse left


def test_a_cli_that_cannot_run_here_is_refused_with_its_reason(tmp_path):
    proc = _run(tmp_path, "kimi")
    assert proc.returncode == 2
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("error:")]  # (local warns it is not isolated)
    assert line.startswith("error: the kimi CLI cannot run here: kimi-cli needs Python >= 3.12")
    assert not (tmp_path / "run").exists()


def test_agents_profiles_says_each_install_kind_and_whether_it_can_happen_now(tmp_path, monkeypatch):
    wheels, tarballs = tmp_path / "wheels", tmp_path / "tarballs"
    wheels.mkdir()
    tarballs.mkdir()
    (wheels / "claude_agent_sdk-0.2.184-py3-none-manylinux_2_17_x86_64.whl").write_bytes(b"")
    (tarballs / "google-gemini-cli-0.61.0.tgz").write_bytes(b"")  # what `npm pack @google/gemini-cli@0.61.0` writes
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(tmp_path / "clis"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("MATCHMETER_NPM_TARBALLS", str(tarballs))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/profiles-test/")
    out = CliRunner().invoke(app, ["agents", "profiles", "--json"])
    assert out.exit_code == 0
    listed = {p["name"]: p for p in json.loads(out.stdout)}
    kinds = {name: (p["install"]["kind"], p["install"]["version"]) for name, p in listed.items()}
    assert kinds == {"mini-swe-agent": ("pypi", "2.4.6"), "aider": ("pypi", "0.86.2"),
                     "codex": ("pypi-binary", "0.163.0"), "claude-code": ("pypi-binary", "0.2.184"),
                     "qwen-code": ("npm", "0.24.4"), "gemini-cli": ("npm", "0.61.0"), "kimi": ("pypi", "1.51.0"),
                     "opencode": ("npm", "1.18.33")}
    ready = {name: p["runs_here"]["ready"] for name, p in listed.items()}
    assert ready == {"mini-swe-agent": False, "aider": False, "codex": False, "claude-code": True,
                     "qwen-code": False, "gemini-cli": True, "kimi": False, "opencode": False}
    reasons = {name: p["runs_here"]["reason"] for name, p in listed.items()}
    assert reasons["claude-code"] == f"pre-fetched in PIP_FIND_LINKS={wheels}"
    assert reasons["codex"] == "PIP_NO_INDEX is set and PIP_FIND_LINKS holds no wheel of it"
    assert reasons["gemini-cli"] == f"local tarball {tarballs / 'google-gemini-cli-0.61.0.tgz'}"
    assert reasons["qwen-code"].startswith("npm registry unreachable (http://127.0.0.1:9/profiles-test/: ")
    assert "npm pack @qwen-code/qwen-code@0.24.4" in reasons["qwen-code"]
    assert reasons["kimi"].startswith("kimi-cli needs Python >= 3.12")
    assert listed["claude-code"]["install"]["cli_version"] == "2.1.327"
    table = CliRunner().invoke(app, ["agents", "profiles"], env={"COLUMNS": "250"})
    assert "pypi-binary:openai-codex-cli-bin==0.163.0" in table.stdout
    assert "no: npm registry unreachable" in table.stdout


def _wheel(path: Path, entries: dict[str, tuple[bytes, int]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, (data, mode) in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return path


def test_a_wheels_payload_is_unpacked_at_its_wheel_paths_readable_and_executable_by_all(tmp_path):
    wheel = _wheel(tmp_path / "tool_bin-1.0-py3-none-any.whl", {
        "tool_bin/bin/tool": (b"#!/bin/sh\necho tool\n", 0o700), "tool_bin/data.txt": (b"x", 0o600),
        "tool_bin-1.0.dist-info/METADATA": (b"", 0o644), "other/x": (b"", 0o644)})
    assert clilayer.the_wheel(tmp_path, "tool-bin") == wheel
    unpacked = clilayer.unpack_payload(wheel, "tool_bin", tmp_path / "out")
    assert sorted(unpacked) == ["tool_bin/bin/tool", "tool_bin/data.txt"]
    assert (tmp_path / "out" / "tool_bin" / "bin" / "tool").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "out" / "tool_bin" / "data.txt").stat().st_mode & 0o777 == 0o644
    assert not (tmp_path / "out" / "other").exists()


def test_a_wheel_entry_that_would_leave_the_layer_dir_is_refused(tmp_path):
    wheel = _wheel(tmp_path / "evil-1.0-py3-none-any.whl", {"evil/../../escaped": (b"x", 0o644)})
    with pytest.raises(SandboxError, match="outside the wheel's tree"):
        clilayer.unpack_payload(wheel, "evil", tmp_path / "out" / "deep")
    assert not (tmp_path / "escaped").exists()
    assert not (tmp_path / "out" / "escaped").exists()


def test_requirements_are_read_from_the_agent_class_wherever_it_was_registered(monkeypatch):
    """Failed on the old code: needs_network and the install were looked up by name in the built-in adapter
    table, so an adapter registered through the `matchmeter.adapters` entry point got no install (and, calling
    a model, no network and no gateway)."""
    monkeypatch.syspath_prepend(str(HELLO_PLUGIN_DIR))  # a separately installed package with an entry point

    def config(agent: str) -> Configuration:
        return Configuration(id=agent, model="openai/m", agent=AgentSpec(name=agent))

    plugin = requirements_of(config("npm-hello"))
    assert (plugin.model_in_sandbox, plugin.install.kind, plugin.install.package) == (False, "npm", "mm-hello-cli")
    assert install_spec(config("npm-hello")) == plugin.install
    codex = requirements_of(config("codex"))
    assert (codex.model_in_sandbox, codex.install.kind, codex.blocked) == (True, "pypi-binary", "")
    assert needs_network(config("codex")) is True
    assert requirements_of(config("bash")) == AgentRequirements()  # declares nothing: needs nothing
    assert requirements_of(config("kimi")).blocked.startswith("kimi-cli needs Python >= 3.12")
    cli_path = Configuration(id="c", model="openai/m", agent=AgentSpec(name="codex", options={"cli_path": "/x"}))
    assert install_spec(cli_path) is None


def test_a_class_that_declares_requirements_of_the_wrong_type_is_a_user_error(monkeypatch):
    class Sloppy:
        @classmethod
        def requirements(cls) -> dict:
            return {"model_in_sandbox": True}

    monkeypatch.setattr(requirements, "agent_class", lambda name: Sloppy)
    with pytest.raises(UserError, match=r"Sloppy.requirements\(\) returned dict"):
        requirements_of(Configuration(id="c", model="m", agent=AgentSpec(name="sloppy")))


def test_a_repacked_npm_tarball_of_the_same_version_is_installed_anew(tmp_path, monkeypatch):
    """The layer is keyed by package and version; a local tarball's content digest joins the key, so a CLI
    re-packed under the same version is not served from the stale install (nor its stale layer)."""
    source = tmp_path / "src"
    shutil.copytree(NPM_HELLO_DIR, source)
    packs = tmp_path / "packs"
    packs.mkdir()
    monkeypatch.setenv(TARBALLS_ENV, str(packs))
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setattr("tests.runner.adapters.conftest.NPM_HELLO_DIR", source)
    root = tmp_path / "clis"
    node_root, original_node = machine_clis_dir(), npm.host_node  # Node's unpacked wheel is shared
    monkeypatch.setattr(npm, "host_node", lambda _root=None: original_node(node_root))
    script = source / "bin" / "mm-hello.js"
    original = script.read_text()
    digests, outputs = [], []
    for greeting in ("first", "second"):
        script.write_text(original.replace("console.log(`node ", f"console.log(`{greeting} node "))
        pack_npm_hello(packs)
        prefix = npm.ensure_npm_prefix("mm-hello-cli", "1.0.0", "mm-hello", root)
        digests.append(npm.installed_digest(prefix))
        outputs.append(subprocess.run([str(prefix / "bin" / "mm-hello")], capture_output=True, text=True).stdout)
    assert digests[0] != digests[1]
    assert outputs[0].startswith("first node v24.19.0")
    assert outputs[1].startswith("second node v24.19.0")  # the re-packed content, not the first install


@pytest.mark.live_cli
@pytest.mark.parametrize("backend", ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_pypi_binary_cli_with_no_layer_runs_from_its_unpacked_wheel_shown_read_only(tmp_path, monkeypatch,
                                                                                      backend):
    """Where no layer can be built (bwrap with no Docker engine; local), the wheel's files are unpacked under the
    CLI cache and that one directory is shown to the sandbox read-only; setup finds the CLI there and proves
    it runs (`--version`), and that version becomes ATIF's agent.version."""
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(machine_clis_dir()))
    config = configuration_from_flags("codex", "openai/m")
    task_dir = write_task(tmp_path / "tasks")
    task = load_task(task_dir)
    paths = host_paths(config)
    assert paths == [machine_clis_dir() / "openai-codex-cli-bin-0.163.0"]
    box = get_backend(backend).create(SandboxRequest(
        task_id=task.id, environment_dir=task_dir / "environment", environment=task.environment,
        label="unpacked-binary", readonly_binds=paths))
    try:
        adapter = get_agent(config, task)
        session = AgentSession(sandbox=box, configuration=config, task=task, budgets=task.budgets,
                               deadline=time.monotonic() + 120)
        adapter.setup(session)
        # bwrap shows it read-only (local is not isolated: it writes nothing there on purpose)
        written = box.exec(f"touch {paths[0]}/planted 2>&1; echo $?", 30).output if backend == "bwrap" else "1"
    finally:
        box.destroy()
    assert adapter.executable == str(paths[0] / "codex_cli_bin" / "bin" / "codex")
    assert session.trajectory.agent_version == "codex-cli 0.163.0"
    assert written.split()[-1] != "0"
    assert not (paths[0] / "planted").exists()
