"""Fixtures shared by the Harbor tests: the Core export, the one Harbor job they all read, and matchmeter's
own runs of the Harbor-format fixtures (multi-key reward.json, multi-step, an agent timeout in a step) on bwrap
and docker."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest
from typer.testing import CliRunner

from matchmeter.cli import app
from matchmeter.runner.sandbox import baseimage
from matchmeter.schema import ExecutionResult
from matchmeter.tasks.loader import builtin_suite_dir
from tests.helpers.root_verifier_task import write_root_verifier_task

ROOT = Path(__file__).parents[2]
DATA = Path(__file__).parent / "data"
FAMILIES = {"env-merge": "terminal", "bundle-decode-files": "skills", "checkout-funnel": "data-analysis",
            "q-env-line-h1": "quoting"}
STATE_FIXTURE = DATA / "harbor-state"
OFFLINE_ENV = "tests.tasks.harbor_offline_env:OfflineDockerEnvironment"
HARBOR_FIXTURES = ("harbor-multikey", "harbor-steps", "harbor-steps-timeout")
ROOT_TASK = "harbor-root-verifier"  # tests/helpers/root_verifier_task.py: scored 1.0 / 0.0 by matchmeter too


class HarborJob(NamedTuple):
    job_dir: Path  # jobs/<job name>, as `harbor run` wrote it
    trials: dict[tuple[str, str], dict]  # (task, agent) -> the trial's result.json


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The Core subset exported with `tasks export --format harbor --seed 3`."""
    out = tmp_path_factory.mktemp("harbor-export")
    result = CliRunner().invoke(app, ["tasks", "export", "--format", "harbor", "--seed", "3", "--core", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session", params=[pytest.param("bwrap", marks=pytest.mark.bwrap),
                                         pytest.param("docker", marks=pytest.mark.docker)])
def mm_fixture_runs(request, tmp_path_factory) -> dict[tuple[str, str], ExecutionResult]:
    """matchmeter's oracle and nop on the Harbor-format fixtures (HARBOR_FIXTURES) on one backend: one `run`
    per agent, results by (task, agent)."""
    if request.param == "docker":
        baseimage.build_base_image()
    out = tmp_path_factory.mktemp(f"mm-fixtures-{request.param}")
    found = {}
    for agent in ("oracle", "nop"):
        args = ["run", "--agent", agent, "--backend", request.param, "--out", str(out / agent), "--quiet"]
        for name in HARBOR_FIXTURES:
            args += ["--tasks", str(DATA / name)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        for path in (out / agent / "executions").glob("*/result.json"):
            got = ExecutionResult.model_validate_json(path.read_text())
            found[(got.task_id, agent)] = got
    return found


def _offline_probe(root: Path) -> Path:
    """A Harbor-layout task that scores 1 only when its solution ran and the container has no network
    interface but loopback: what `network_mode = "no-network"` must mean under the offline environment."""
    task = root / "offline-probe"
    for sub in ("environment", "solution", "tests"):
        (task / sub).mkdir(parents=True)
    (task / "task.toml").write_text('version = "1.0"\n\n[metadata]\ndifficulty = "easy"\ncategory = "probe"\n\n'
                                    "[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 60.0\n\n"
                                    '[environment]\nnetwork_mode = "no-network"\n')
    (task / "instruction.md").write_text("Create /app/done.\n")
    (task / "environment" / "Dockerfile").write_text(f"FROM {baseimage.BASE_IMAGE}\nWORKDIR /app\n")
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\ntouch /app/done\n")
    (task / "tests" / "test.sh").write_text(
        "#!/bin/bash\nls /sys/class/net > /logs/verifier/interfaces.txt\n"
        'if [ -e /app/done ] && [ "$(ls /sys/class/net)" = lo ]; then echo 1; else echo 0; fi'
        " > /logs/verifier/reward.txt\n")
    return task


def _left_behind(names: set[str]) -> dict[str, list[str]]:
    """Containers and images (dangling ones too) of a compose project named after one of our trials."""
    def ours(line: str) -> bool:
        project = line.partition(" ")[2]
        return any(project.startswith(n.lower() + "__") for n in names)

    found = {}
    for kind, ls, inspect in (("container", ["docker", "ps", "-aq"], ["docker", "inspect"]),
                              ("image", ["docker", "images", "-aq"], ["docker", "image", "inspect"])):
        ids = subprocess.run([*ls, "--filter", "label=com.docker.compose.project"], capture_output=True, text=True,
                             timeout=60).stdout.split()
        fmt = '{{.Id}} {{index .Config.Labels "com.docker.compose.project"}}'
        lines = subprocess.run([*inspect, "--format", fmt, *dict.fromkeys(ids)], capture_output=True, text=True,
                               timeout=60).stdout.splitlines() if ids else []
        found[kind] = [line.split()[0] for line in lines if ours(line)]
    return found


@pytest.fixture(scope="session")
def harbor_job(tmp_path_factory) -> HarborJob:
    """One `harbor run` (oracle and nop) shared by every test that needs Harbor's own results
    (test_harbor_oracle.py, test_harbor_parity.py): each job costs minutes, so there is one."""
    from tests.tasks.test_harbor_real import HARBOR_PYTHON

    assert HARBOR_PYTHON is not None  # the tests that use this fixture skip without Harbor
    baseimage.build_base_image()  # cached: returns at once when the image is here
    out = tmp_path_factory.mktemp("harbor-run")
    export = out / "tasks"
    args = ["tasks", "export", "--format", "harbor", "--seed", "0", "--path", str(builtin_suite_dir()),
            "--path", str(STATE_FIXTURE)]
    for task_id in [*FAMILIES, STATE_FIXTURE.name]:
        args += ["--task", task_id]
    result = CliRunner().invoke(app, [*args, str(export)])
    assert result.exit_code == 0, result.output
    _offline_probe(export)
    write_root_verifier_task(export)  # test.sh apt-get installs a local .deb as root
    for name in HARBOR_FIXTURES:  # Harbor-format tasks as they are: multi-key reward.json, multi-step (with a timeout)
        shutil.copytree(DATA / name, export / name)
    names = {p.name for p in export.iterdir()}
    # Harbor removes each trial's container and image (delete); the oracle and nop trials of a task build
    # from the same context, so the second build is a layer-cache hit.
    config = {"job_name": "oracle-nop", "jobs_dir": str(out / "jobs"), "n_concurrent_trials": 2, "quiet": True,
              "agents": [{"name": "oracle"}, {"name": "nop"}], "datasets": [{"path": str(export)}],
              "environment": {"import_path": OFFLINE_ENV, "delete": True}}
    (out / "job.json").write_text(json.dumps(config))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    try:
        proc = subprocess.run([HARBOR_PYTHON, "-c", "from harbor.cli.main import app; app()", "run", "-c",
                               str(out / "job.json"), "-y"], capture_output=True, text=True, timeout=900, env=env,
                              cwd=out)
    finally:
        left = _left_behind(names)
        for kind, ids in left.items():
            if ids:
                subprocess.run(["docker", "rm" if kind == "container" else "rmi", "-f", *ids], capture_output=True,
                               timeout=120)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    # Harbor's own `delete` sometimes leaves a trial's container or image under load (its compose down racing
    # the other trial of the same task); that is Harbor's cleanup, not our export, so the test removes what is
    # left (above) and does not fail on it.
    job = out / "jobs" / "oracle-nop"
    found = {}
    for path in sorted(job.glob("*/result.json")):
        trial = json.loads(path.read_text())
        found[(trial["task_name"], trial["agent_info"]["name"])] = trial
    return HarborJob(job, found)


