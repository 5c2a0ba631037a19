"""Harbor's own `harbor run` on tasks we export: oracle must score 1.0 and nop below it, read from Harbor's
result files. One task per source family (terminal, skills, data-analysis, quoting), exported with
`tasks export --format harbor --seed 0`, plus the Harbor-layout fixture whose Dockerfile bakes state
(tests/tasks/data/harbor-state) exported the same way, run as one Harbor job with both agents.

Needs Harbor (tests/tasks/harbor_venv.sh), a Docker engine, Compose v2 (tests/tasks/compose_v2.sh; .ci/run
installs both) and the local base image. Nothing is pulled: Harbor builds each exported Dockerfile on
matchmeter-base:latest. Its no-network enforcement needs sidecar images from Docker Hub, so the job runs
Harbor's Docker environment through tests/tasks/harbor_offline_env.py, which gives the container no network
instead (a probe task here shows the container really has none). Harbor removes each trial's container
and image itself (--delete); whatever of its compose projects it leaves, the test removes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from matchmeter.cli import app
from matchmeter.runner.sandbox import baseimage
from matchmeter.tasks.loader import builtin_suite_dir, load_task
from tests.tasks.test_harbor_real import HARBOR_PYTHON

ROOT = Path(__file__).parents[2]
FAMILIES = {"env-merge": "terminal", "bundle-decode-files": "skills", "checkout-funnel": "data-analysis",
            "q-env-line-h1": "quoting"}
STATE_FIXTURE = Path(__file__).parent / "data" / "harbor-state"
OFFLINE_ENV = "tests.tasks.harbor_offline_env:OfflineDockerEnvironment"


def _compose_missing() -> str | None:
    if os.environ.get("MM_COMPOSE_UNAVAILABLE"):
        return os.environ["MM_COMPOSE_UNAVAILABLE"]
    try:
        proc = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`docker compose version` failed: {exc}"
    if proc.returncode != 0:
        return (f"`docker compose version` failed ({proc.stderr.strip()[:160]}): "
                "run tests/tasks/compose_v2.sh to install Compose v2")
    return None


COMPOSE_MISSING = _compose_missing()
pytestmark = [
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.skipif(HARBOR_PYTHON is None, reason=os.environ.get("MM_HARBOR_UNAVAILABLE") or
                       "Harbor not installed: `export MM_HARBOR_PYTHON=$(tests/tasks/harbor_venv.sh)`"),
    pytest.mark.skipif(COMPOSE_MISSING is not None, reason=f"Harbor's `harbor run` needs Compose v2: {COMPOSE_MISSING}"),
]


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


@pytest.fixture(scope="module")
def trials(tmp_path_factory) -> dict[tuple[str, str], dict]:
    """Harbor's trial results of the job, by (task, agent)."""
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
    return found


def test_harbor_oracle_scores_one_and_nop_below_on_each_family(trials):
    names = [*FAMILIES, STATE_FIXTURE.name, "offline-probe"]
    assert sorted(trials) == sorted((n, a) for n in names for a in ("oracle", "nop"))
    errors = {key: t["exception_info"]["exception_type"] for key, t in trials.items() if t["exception_info"]}
    assert errors == {}
    rewards = {key: t["verifier_result"]["rewards"]["reward"] for key, t in trials.items()}
    assert {n: rewards[(n, "oracle")] for n in names} == dict.fromkeys(names, 1.0)
    assert {n: rewards[(n, "nop")] < 1.0 for n in names} == dict.fromkeys(names, True), rewards
    assert sorted({load_task(builtin_suite_dir() / n).source_family for n in FAMILIES}) == \
        ["data-analysis", "quoting", "skills", "terminal"]


def test_harbor_reads_our_verifier_output_and_the_baked_state(trials, tmp_path):
    # Our verifier's per-subgoal scores reach Harbor's verifier log (MM_LOGS=/logs/verifier in the image).
    oracle = trials[("env-merge", "oracle")]
    logs = Path(oracle["trial_uri"].removeprefix("file://")) / "verifier"
    subgoals = json.loads((logs / "subgoals.json").read_text())
    assert len(subgoals) >= 2
    assert set(subgoals.values()) == {1.0}, subgoals
    # The offline probe saw loopback alone: no-network held under the offline environment.
    probe = Path(trials[("offline-probe", "oracle")]["trial_uri"].removeprefix("file://"))
    assert (probe / "verifier" / "interfaces.txt").read_text().split() == ["lo"]
