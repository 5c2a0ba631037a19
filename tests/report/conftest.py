"""Real runs for the report tests: three tiny tasks × three sim/ personas on the local backend, plus a
calibration, made once per session through the console entry point (as a user would)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

PERSONAS = ("expert", "sloppy", "quitter")


class RealRuns(NamedTuple):
    root: Path
    tasks: Path
    runs: list[Path]
    calibration: Path


def mm(*argv: object, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = run_matchmeter(*map(str, argv), env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture(scope="session")
def real_runs(tmp_path_factory) -> RealRuns:
    root = tmp_path_factory.mktemp("report-runs")
    env = {**os.environ, "MATCHMETER_HOME": str(root / "home"), "MATCHMETER_CACHE_DIR": str(root / "cache"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    suite = root / "suite"
    for task_id in ("copy-a", "copy-b", "copy-c"):
        write_task(suite, task_id)
    runs = []
    for persona in PERSONAS:
        out = root / "runs" / persona
        mm("run", "--agent", "bash", "--model", f"sim/{persona}", "--backend", "local", "--tasks", suite,
           "--attempts", "2", "--concurrency", "2", "--out", out, "--quiet", env=env)
        runs.append(out)
    cal = root / "calibration.json"
    mm("calibrate", *runs, "--out", cal, env=env)
    return RealRuns(root, suite, runs, cal)
