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

from matchmeter.tasks.loader import builtin_suite_dir, load_task
from tests.tasks.conftest import FAMILIES, HARBOR_FIXTURES, ROOT_TASK, STATE_FIXTURE
from tests.tasks.test_harbor_real import HARBOR_PYTHON


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
# Every test that drives Harbor's own `harbor run` (here and test_harbor_parity.py) needs these.
HARBOR_RUN_MARKS = [
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.skipif(HARBOR_PYTHON is None, reason=os.environ.get("MM_HARBOR_UNAVAILABLE") or
                       "Harbor not installed: `export MM_HARBOR_PYTHON=$(tests/tasks/harbor_venv.sh)`"),
    pytest.mark.skipif(COMPOSE_MISSING is not None, reason=f"Harbor's `harbor run` needs Compose v2: {COMPOSE_MISSING}"),
]
pytestmark = HARBOR_RUN_MARKS


@pytest.fixture(scope="module")
def trials(harbor_job) -> dict[tuple[str, str], dict]:
    """Harbor's trial results of the shared job (tests/tasks/conftest.py), by (task, agent)."""
    return harbor_job.trials


def test_harbor_oracle_scores_one_and_nop_below_on_each_family(trials):
    names = [*FAMILIES, STATE_FIXTURE.name, "offline-probe", ROOT_TASK]
    assert sorted(trials) == sorted((n, a) for n in [*names, *HARBOR_FIXTURES] for a in ("oracle", "nop"))
    errors = {key: t["exception_info"]["exception_type"] for key, t in trials.items() if t["exception_info"]}
    assert errors == {}
    rewards = {key: t["verifier_result"]["rewards"]["reward"] for key, t in trials.items() if key[0] in names}
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


def test_harbor_runs_the_root_verifier_task_as_matchmeter_does(trials):
    """The task whose test.sh installs its tool from a local .deb (tests/runner/test_verifier_root.py runs it on
    bwrap and docker): Harbor gives the same rewards, 1.0 and 0.0, after the same install as root."""
    rewards = {agent: trials[(ROOT_TASK, agent)]["verifier_result"]["rewards"]["reward"] for agent in ("oracle", "nop")}
    assert rewards == {"oracle": 1.0, "nop": 0.0}
    logs = Path(trials[(ROOT_TASK, "nop")]["trial_uri"].removeprefix("file://")) / "verifier"
    said = "".join(p.read_text(errors="replace") for p in logs.glob("*.txt"))
    assert "installed-by uid=0" in said, said[-1500:]
    assert "dpkg-status mm-answer-check install ok installed" in said, said[-1500:]
