"""`optimize`'s source side opens its run directory like `run` does (runner/context.py): it preflights the
source configurations before --out is written, and a resume prunes what a killed optimize left behind."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.optimizer.pipeline import optimize, state_path
from matchmeter.runner.sandbox import policy
from tests.optimizer.conftest import SOURCE
from tests.optimizer.test_optimize import request
from tests.runner.test_sandbox_conformance import host_pids_with, wait_until

# What a killed optimize leaves on the local backend: a sandbox of its source-side run (temp tree and a
# running process, both labelled with the run id) that nobody destroyed.
KILLED_SOURCE_SIDE = """
import os, sys, time
from pathlib import Path
from matchmeter.runner.sandbox import SandboxRequest, get_backend
label, token = sys.argv[1], os.environ["MM_TEST_TOKEN"]  # not in argv: the test finds the process by it
sb = get_backend("local").create(SandboxRequest(task_id="copy-two", environment_dir=Path("/nonexistent"), label=label))
sb.exec(f"sleep {token} >/dev/null 2>&1 &", 20)
print("ready", flush=True)
time.sleep(600)
"""


def _workspaces(label: str) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"{policy.TEMP_PREFIX}{policy.safe_label(label)}-*"))


def test_resume_prunes_what_a_killed_optimize_left(source_run, tmp_path):
    out = tmp_path / "ds"
    first = optimize(request(source_run, out), progress=False)
    assert first.source_side_executions == 4
    frozen = (out / "descriptions.json").read_bytes()
    run_id = json.loads((out / "source-runs" / "manifest.json").read_text())["run_id"]
    token = f"{secrets.randbelow(10**6) + 10**6}.7"
    child = subprocess.Popen([sys.executable, "-c", KILLED_SOURCE_SIDE, run_id], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "MM_TEST_TOKEN": token})
    try:
        assert child.stdout.readline() == "ready\n"
    finally:
        child.kill()  # kill -9 of the optimize process: its sandbox is never destroyed
        child.wait()
    assert len(host_pids_with(token)) == 1
    assert len(_workspaces(run_id)) == 1
    state_path(out, "copy-two", SOURCE).unlink()  # the unit the killed process was working on
    resumed = optimize(request(source_run, out), progress=False)
    assert wait_until(lambda: host_pids_with(token) == [])
    assert _workspaces(run_id) == []
    assert (resumed.units_run, resumed.units_skipped) == (1, 1)
    assert resumed.source_side_executions == 0  # every candidate execution was stored before the kill
    assert (out / "descriptions.json").read_bytes() == frozen


def test_source_configurations_are_preflighted_before_out_is_written(source_run, tmp_path):
    """A source configuration whose model endpoint does not answer fails at preflight, as in `run`."""
    copy = tmp_path / "src"
    shutil.copytree(source_run, copy, ignore=shutil.ignore_patterns(".writer.lock"))
    manifest = json.loads((copy / "manifest.json").read_text())
    for configuration in manifest["configurations"]:
        if configuration["id"] == SOURCE:
            configuration["model"] = "openai/unreachable"
            configuration["endpoint"]["api_base"] = "http://127.0.0.1:9/v1"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(UserError, match="preflight failed") as err:
        optimize(request(copy, tmp_path / "ds"), progress=False)
    assert "127.0.0.1:9" in str(err.value)
    assert not (tmp_path / "ds").exists()
