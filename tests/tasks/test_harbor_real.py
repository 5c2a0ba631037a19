"""Our Harbor interchange checked by Harbor itself (harbor 0.26 from PyPI, in a Python 3.12 venv that
tests/tasks/harbor_venv.sh creates and caches; .ci/run does that before the tests): `harbor lint` on the
built-in suite and on the Core export, Harbor's own pydantic TaskConfig on the export, and Harbor's ATIF
Trajectory model on what our ATIF exporter writes. Each test also shows Harbor rejecting a broken input,
so a check that cannot fail would be seen.

Without MM_HARBOR_PYTHON (and no cached venv) the tests skip and say how to get one; .ci/run sets
MM_HARBOR_UNAVAILABLE to the reason when the install itself failed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from matchmeter.runner.atif import to_atif
from matchmeter.schema import Trajectory
from matchmeter.tasks.loader import builtin_probes_dir, builtin_suite_dir, load_task, load_tasks
from tests.runner.test_atif import two_call_trajectory


def _harbor_python() -> str | None:
    if os.environ.get("MM_HARBOR_PYTHON"):
        return os.environ["MM_HARBOR_PYTHON"]
    proc = subprocess.run([str(Path(__file__).with_name("harbor_venv.sh")), "--cached"], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


HARBOR_PYTHON = _harbor_python()
pytestmark = pytest.mark.skipif(
    HARBOR_PYTHON is None,
    reason=os.environ.get("MM_HARBOR_UNAVAILABLE")
    or "Harbor not installed: `export MM_HARBOR_PYTHON=$(tests/tasks/harbor_venv.sh)` (needs Python >= 3.12)")


def harbor_lint(*args: str) -> list[dict]:
    proc = subprocess.run([HARBOR_PYTHON, "-c", "from harbor.cli.main import app; app()", "lint", "--json", *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip().startswith("["), proc.stderr[-800:]
    return json.loads(proc.stdout)


def in_harbor(code: str, payload: object) -> object:
    """Run `code` in Harbor's Python with `payload` (JSON) as the variable `data`; return what it prints (JSON)."""
    script = f"import json, sys\ndata = json.load(sys.stdin)\n{code}"
    proc = subprocess.run([HARBOR_PYTHON, "-c", script], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-1500:]
    return json.loads(proc.stdout)


def test_harbor_lint_accepts_the_core_export_and_flags_an_unknown_key(exported, tmp_path):
    dirs = sorted(exported.iterdir())
    assert len(dirs) >= 8
    assert harbor_lint(*map(str, dirs)) == []
    bad = tmp_path / dirs[0].name
    shutil.copytree(dirs[0], bad)
    (bad / "task.toml").write_text("subgoals = []\n" + (bad / "task.toml").read_text())
    assert "unknown-config-field" in {f.get("rule") for f in harbor_lint(str(bad))}


def test_harbor_lint_accepts_every_builtin_task_and_probe():
    dirs = [p.parent for p in sorted(builtin_suite_dir().glob("*/task.toml"))]
    dirs += [p.parent for p in sorted(builtin_probes_dir().glob("*/task.toml"))]
    assert len(dirs) >= 120
    # Our verifier grades the agent's /app, so it shares the agent's sandbox: the one rule we ignore.
    assert harbor_lint("--ignore", "shared-verifier", *map(str, dirs)) == []


def test_harbor_task_model_reads_the_export_as_we_wrote_it(exported):
    configs = {p.name: (p / "task.toml").read_text() for p in sorted(exported.iterdir())}
    got = in_harbor(
        "from harbor.models.task.config import TaskConfig\n"
        "out = {}\n"
        "for name, text in data.items():\n"
        "    c = TaskConfig.model_validate_toml(text)\n"
        "    out[name] = [c.verifier.timeout_sec, c.agent.timeout_sec, c.environment.cpus, c.environment.memory_mb,\n"
        "                 c.environment.network_mode.value if hasattr(c.environment, 'network_mode') else None,\n"
        "                 sorted(c.metadata), c.metadata['matchmeter']['source_family']]\n"
        "print(json.dumps(out))\n", configs)
    for name, (verify_s, agent_s, cpus, memory_mb, network, metadata, family) in got.items():
        task = load_task(builtin_suite_dir() / name)
        assert (verify_s, agent_s) == (task.timeouts.verify_s, task.timeouts.agent_s), name
        assert (cpus, memory_mb, family) == (task.environment.cpus, task.environment.memory_mb, task.source_family)
        assert network in (None, "no-network"), name
        assert metadata == ["category", "difficulty", "harbor", "matchmeter", "tags"], name
    refused = subprocess.run([HARBOR_PYTHON, "-c", "import sys; from harbor.models.task.config import TaskConfig\n"
                              "TaskConfig.model_validate_toml(sys.stdin.read())"],
                             input='[verifier]\ntimeout_sec = "soon"\n', capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0
    assert "timeout_sec" in refused.stderr


def _trajectories() -> dict[str, dict]:
    """Our ATIF export of each trajectory shape the runner writes: a model-driven run with commands and a
    tool call (known and unknown cost), a run without model calls (oracle, replay), and an empty one (nop)."""
    model = two_call_trajectory()
    shapes = {"model": model, "no-model": Trajectory(agent="oracle", steps=model.steps[:1]),
              "empty": Trajectory(agent="nop")}
    return {name: to_atif(t, session_id=f"k-{name}", agent_version="1.0", instruction="Do it.")
            for name, t in shapes.items()}


def test_harbor_atif_model_accepts_our_trajectories_and_rejects_the_old_shape():
    docs = _trajectories()
    docs["old-v1.2"] = {"schema_version": "ATIF-v1.2", "agent": {"name": "aider", "model_name": None},
                        "steps": [{"step_id": 1, "source": "agent", "tool_calls": [{"name": "bash", "command": "ls"}]}]}
    verdicts = in_harbor(
        "from harbor.models.trajectories import Trajectory\n"
        "out = {}\n"
        "for name, doc in data.items():\n"
        "    try:\n"
        "        Trajectory.model_validate(doc)\n"
        "        out[name] = 'ok'\n"
        "    except Exception as exc:\n"
        "        out[name] = str(exc)[:600]\n"
        "print(json.dumps(out))\n", docs)
    assert {k: v for k, v in verdicts.items() if k != "old-v1.2"} == {"model": "ok", "no-model": "ok", "empty": "ok"}
    assert verdicts["old-v1.2"] != "ok"
    assert "tool_calls" in verdicts["old-v1.2"]


def test_a_harbor_task_of_ours_needs_no_matchmeter_key(tmp_path):
    """The Harbor-layout fixture (no matchmeter field) is what Harbor itself accepts as a task."""
    fixture = Path(__file__).parent / "data" / "harbor-hello"
    # shared-verifier is advice to any task whose verifier shares the agent's container (Harbor's default).
    assert harbor_lint("--ignore", "shared-verifier", str(fixture)) == []
    assert load_task(fixture).source_family == "imported"
    assert load_tasks([fixture])[0].id == "harbor-hello"
