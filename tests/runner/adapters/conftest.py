"""Fixtures for CLI adapter tests: cached CLI venvs (installed once per machine) and a trial runner."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents import AGENTS
from matchmeter.runner.agents.adapters import cli_install
from matchmeter.runner.agents.adapters.npm import TARBALLS_ENV, host_node, packed_name
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import baseimage, clilayer, get_backend
from matchmeter.runner.trial import TrialOutcome, TrialRequest, run_trial
from matchmeter.schema import AgentSpec, Configuration, Description, ModelEndpoint
from matchmeter.tasks.loader import load_task
from tests.helpers.clis import machine_clis_dir
from tests.helpers.tasks import write_task

LIVE_CLIS = {"mini-swe-agent": ("mini-swe-agent", "2.4.6", "mini"), "aider": ("aider", "0.86.2", "aider")}


@pytest.fixture(scope="session")
def cli_venvs() -> dict[str, Any]:
    """Install mini-swe-agent and aider from PyPI into the machine's CLI cache (about a minute each, once).

    The cache survives test sessions (~/.cache/matchmeter/clis, or MATCHMETER_TEST_CLIS_DIR), so only
    the first session on a machine pays for the installs.
    """
    from matchmeter.runner.agents.adapters.install import ensure_installed, install_seconds

    root = machine_clis_dir()
    found: dict[str, Any] = {"root": root}
    for agent in LIVE_CLIS:
        from matchmeter.runner.agents.adapters import adapter_class

        spec = adapter_class(agent).profile().install  # type: ignore[union-attr]
        started = time.monotonic()
        found[agent] = ensure_installed(spec.package, spec.version, spec.executable, root)
        found[f"{agent}:install_s"] = install_seconds(spec.package, spec.version, root)
        found[f"{agent}:this_session_s"] = time.monotonic() - started
    return found


def layers_on_base(agents: Iterable[str], model: str) -> dict[str, Any]:
    """Each agent's install fetched into the machine's CLI cache and its layer built on the base image (once
    per machine; later calls find both): {"root": the cache, "base_id": the base image's id, agent:
    (CliInstall, layer tag), "<agent>:s": seconds this call took for it}."""
    root = machine_clis_dir()
    previous = os.environ.get("MATCHMETER_CLIS_DIR")
    os.environ["MATCHMETER_CLIS_DIR"] = str(root)
    client = baseimage.docker_client()
    try:
        base_id = client.images.get(baseimage.BASE_IMAGE).id.removeprefix("sha256:")[:12]
        found: dict[str, Any] = {"root": root, "base_id": base_id}
        for agent in agents:
            started = time.monotonic()
            cli = cli_install(configuration_from_flags(agent, model))
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
def clis(cli_venvs, monkeypatch):
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(cli_venvs["root"]))
    return cli_venvs


class LiveRun(NamedTuple):
    outcome: TrialOutcome
    stats: dict[str, Any]
    logs_dir: Path


def run_cli_trial(tmp_path: Path, agent: str, replies: list[Any], *, backend: str = "local",
                  model: str = "openai/stub/scripted", allow_incompatible: bool = False,
                  api_key_env: str | None = None) -> LiveRun:
    """One full trial of the copy-file task with `agent` pointed at a scripted loopback stub."""
    task = load_task(write_task(tmp_path / "tasks", steps=10, agent_s=240))
    # An isolated sandbox reaches its model only through the gateway, as in every real run: a network-on bwrap
    # sandbox has no route to the host's loopback, where the stub listens (sandbox/netns.py). The unisolated
    # local backend keeps the CLI's direct road to the stub, which the key-handling tests read.
    with StubServer(replies) as stub, contextlib.ExitStack() as stack:
        gateway = None if backend == "local" else stack.enter_context(Gateway(socket_path=tmp_path / "gw.sock"))
        config = Configuration(id=f"{model}+{agent}", model=model, agent=AgentSpec(name=agent),
                               endpoint=ModelEndpoint(api_base=stub.api_base, api_key_env=api_key_env))
        logs = tmp_path / "logs"
        outcome = run_trial(TrialRequest(
            run_id="adapters-test", execution_key=f"k-{agent}", configuration=config, task=task,
            description=Description.original(task), seed=0, attempt=0, backend=get_backend(backend),
            logs_dir=logs, allow_incompatible=allow_incompatible, gateway=gateway,
        ))
        return LiveRun(outcome, stub.stats.to_json(), logs)


# ------------------------------------------------------------------ built-in tasks through `matchmeter run` with sim/

SIM_TASKS = ("cleanup-old-tmp", "commit-special-message")
# In the host's environment during a sim run: must reach neither the sandbox nor any stored file.
HOST_KEYS = {"ANTHROPIC_API_KEY": "sk-ant-live-HOST-KEY-4f1c0e", "OPENAI_API_KEY": "sk-live-HOST-KEY-9b2e71"}


def sim_run(clis_root: Path, out: Path, agent: str, persona: str, backend: str, seeds: int = 1,
            tasks: tuple[str, ...] = SIM_TASKS) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """`matchmeter run --agent AGENT --model sim/PERSONA` on built-in tasks with HOST_KEYS set: (result,
    trajectory) of each execution, as stored; the run's wall is printed."""
    import json

    from tests.helpers.warm_cli import run_matchmeter

    env = {**os.environ, "MATCHMETER_CLIS_DIR": str(clis_root), **HOST_KEYS}
    started = time.monotonic()
    proc = run_matchmeter("run", "--agent", agent, "--model", f"sim/{persona}", "--backend", backend,
                          "--seeds", seeds, *[a for t in tasks for a in ("--task", t)], "--out", out, env=env,
                          timeout=900)
    print(f"\n{agent} x sim/{persona} on {backend}: {len(tasks) * seeds} trials in {time.monotonic() - started:.1f} s")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SIMULATED" in proc.stdout
    runs = [(json.loads((e / "result.json").read_text()), json.loads((e / "trajectory.json").read_text()))
            for e in sorted((out / "executions").iterdir())]
    assert sorted(r["task_id"] for r, _ in runs) == sorted(tasks * seeds)
    return runs


def plan_commands(task_id: str, persona: str, seed: int = 0) -> list[str]:
    """The commands of the persona's plan (the original description): what the bash agent would run."""
    from matchmeter.llm.sim import build_plan
    from matchmeter.tasks.loader import builtin_suite_dir, load_tasks

    [task] = [t for t in load_tasks([builtin_suite_dir()]) if t.id == task_id]
    return [a.command for a in build_plan(task, seed, persona, Description.original(task).text) if a.kind == "command"]


def assert_no_secret_stored(out: Path) -> None:
    """No host key and no gateway token in any file under `out`."""
    from matchmeter.llm.gateway import TOKEN_PREFIX

    stored = [p for p in out.rglob("*") if p.is_file()]
    assert stored
    for path in stored:
        data = path.read_bytes()
        for value in (*HOST_KEYS.values(), TOKEN_PREFIX):
            assert value.encode() not in data, f"{value[:12]}… stored in {path}"


# ------------------------------------------------------------------ the npm install path, offline

NPM_HELLO_DIR = Path(__file__).resolve().parents[2] / "data" / "npm-hello-cli"
# A separately installed agent package (module + dist-info with a `matchmeter.adapters` entry point).
HELLO_PLUGIN_DIR = Path(__file__).resolve().parents[2] / "data" / "mm-hello-plugin"


def pack_npm_hello(dest: Path) -> Path:
    """`npm pack` of tests/data/npm-hello-cli with npm from PyPI's Node wheel (the host's own Node, if any, is
    not used); returns the tarball."""
    node = host_node(machine_clis_dir())
    npm_cli = node.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    proc = subprocess.run([str(node), str(npm_cli), "pack", "--pack-destination", str(dest)], cwd=NPM_HELLO_DIR,
                          capture_output=True, text=True, env={**os.environ, "npm_config_cache": str(dest / ".npm")},
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-500:]
    return dest / packed_name("mm-hello-cli", "1.0.0")


@pytest.fixture(scope="session")
def npm_hello_tarballs(tmp_path_factory) -> Path:
    """A directory holding the packed npm-hello tarball, as MATCHMETER_NPM_TARBALLS would name it. Its content
    digest is part of the install's and the layer's identity, so a changed tests/data/npm-hello-cli is
    installed and layered anew, and an unchanged one reuses the machine's layer."""
    dest = tmp_path_factory.mktemp("npm-tarballs")
    assert pack_npm_hello(dest).is_file()
    return dest


@pytest.fixture
def npm_hello(npm_hello_tarballs, monkeypatch) -> Path:
    """Agent `npm-hello` installed as a separate package (on sys.path, found through its entry point only),
    its CLI's tarball served offline, npm's cache private."""
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(machine_clis_dir()))
    monkeypatch.setenv(TARBALLS_ENV, str(npm_hello_tarballs))
    monkeypatch.setenv("npm_config_cache", str(npm_hello_tarballs / ".npm"))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing may come from a registry
    monkeypatch.syspath_prepend(str(HELLO_PLUGIN_DIR))
    assert "npm-hello" not in AGENTS
    return npm_hello_tarballs
