"""bwrap trials when the harness itself runs as a normal user (issue: every trial was an infra error).

The suite runs as root in CI, so this test switches to the `nobody` user for one `matchmeter run`: the
system Python 3.11 with this checkout and the venv's site-packages on PYTHONPATH (same minor version,
so the venv's compiled wheels load), the root filesystem root built (MATCHMETER_ROOTFS_DIR), and a
run directory nobody can write. As a normal user bwrap takes the user-namespace path.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

import matchmeter
from matchmeter.runner.sandbox import rootfs
from tests.helpers.tasks import write_task

pytestmark = pytest.mark.bwrap
SYSTEM_PYTHON = Path("/usr/bin/python3")
ATTACKS = ("cat /etc/shadow; ls -la /root; cat /proc/1/environ; ls /var/lib/docker; echo id=$(id -u)", )


def _nobody_env(tmp: Path) -> dict[str, str]:
    repo = Path(matchmeter.__file__).resolve().parent.parent
    return {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(tmp), "LANG": "C.UTF-8", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": os.pathsep.join([str(repo), *site.getsitepackages()]),
        "MATCHMETER_ROOTFS_DIR": str(rootfs.rootfs_parent()), "MATCHMETER_CACHE_DIR": str(tmp / "cache"),
        "OPENAI_API_KEY": "sk-mmcanary-nonroot-0123456789",
    }


@pytest.fixture(scope="module")
def as_nobody():
    if os.geteuid() != 0:
        pytest.skip("already not root: every bwrap test in this run exercises the unprivileged path")
    if not SYSTEM_PYTHON.exists() or sys.version_info[:2] != (3, 11):
        pytest.skip("needs /usr/bin/python3 of the same minor version as this venv (3.11) to borrow its wheels")
    from rich.console import Console

    rootfs.ensure_base_rootfs(Console(stderr=True), from_image="matchmeter-base:latest")
    # Not under pytest's basetemp: its dirs are 0700 (nobody cannot traverse them).
    tmp = Path(tempfile.mkdtemp(prefix="mm-nonroot-"))
    tmp.chmod(0o777)
    nobody = pwd.getpwnam("nobody")
    probe = subprocess.run(["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "--",
                            str(SYSTEM_PYTHON), "-c", "import matchmeter.cli, pydantic, pandas"],
                           capture_output=True, text=True, env=_nobody_env(tmp), cwd=tmp)
    if probe.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip("`nobody` cannot read this checkout or its venv (a parent directory is private): "
                    f"{probe.stderr.strip()[-200:]}")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "--",
                str(SYSTEM_PYTHON), "-m", "matchmeter.cli", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=600, env=_nobody_env(tmp), cwd=tmp)

    run.python = lambda code: subprocess.run(  # type: ignore[attr-defined]
        ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "--", str(SYSTEM_PYTHON),
         "-c", code], capture_output=True, text=True, timeout=600, env=_nobody_env(tmp), cwd=tmp)
    yield tmp, run
    shutil.rmtree(tmp, ignore_errors=True)


def test_bwrap_trials_pass_as_a_normal_user(as_nobody):
    tmp, run = as_nobody
    tasks = tmp / "tasks"
    write_task(tasks, "copy-a")
    shutil.copytree(Path(matchmeter.__file__).parent / "tasks" / "suite" / "sqlite-order-totals", tasks / "sqlite-order-totals")
    for path in [tasks, *tasks.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    oracle = run("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "bwrap", "--seeds", "2",
                 "--out", str(tmp / "oracle"), "--quiet")
    assert oracle.returncode == 0, oracle.stderr
    table = pd.read_parquet(tmp / "oracle" / "results.parquet")
    assert list(table["failure_mode"].unique()) == ["none"]
    assert set(table["reward"]) == {1.0}
    nop = run("run", "--tasks", str(tasks), "--agent", "nop", "--backend", "bwrap", "--out", str(tmp / "nop"), "--quiet")
    assert nop.returncode == 0, nop.stderr
    assert set(pd.read_parquet(tmp / "nop" / "results.parquet")["reward"]) == {0.0}


def test_a_normal_users_sandbox_sees_none_of_the_hosts_secrets(as_nobody):
    tmp, run = as_nobody
    tasks = tmp / "tasks-attack"
    write_task(tasks, "copy-a")
    for path in [tasks, *tasks.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    replay = tmp / "attack.json"
    replay.write_text(json.dumps(list(ATTACKS)))
    replay.chmod(0o644)
    done = run("run", "--tasks", str(tasks), "--agent", "replay", "--replay", str(replay), "--backend", "bwrap",
               "--out", str(tmp / "attack"), "--quiet")
    assert done.returncode == 0, done.stderr
    (key,) = pd.read_parquet(tmp / "attack" / "results.parquet")["execution_key"]
    output = json.loads((tmp / "attack" / "executions" / key / "trajectory.json").read_text())["steps"][0]["output"]
    assert "root:" not in output  # no shadow line
    assert "sk-mmcanary" not in output
    assert f"id={pwd.getpwnam('nobody').pw_uid}" in output  # the agent is the unprivileged user itself
    for path in (tmp / "attack").rglob("*"):
        if path.is_file():
            assert b"sk-mmcanary" not in path.read_bytes(), path


HOST_SNAPSHOT_CHECK = """
import json, pathlib
from matchmeter.runner.sandbox import SandboxRequest, get_backend, host_snapshot
from tests.runner.test_host_snapshot import AGENT_TREE, PATH_SETS
b = get_backend("bwrap"); b.preflight()
sb = b.create(SandboxRequest(task_id="hs", environment_dir=pathlib.Path("none"), label="hs-nobody"))
try:
    assert sb.exec(AGENT_TREE, 60).exit_code == 0
    out = []
    for paths in PATH_SETS:
        host = host_snapshot.snapshot(paths, sb.dirs.app, "/app", None)
        out.append([paths, host, sb.snapshot_inside(paths), sb.snapshot(paths)])
    print(json.dumps(out))
finally:
    sb.destroy()
"""


def test_a_normal_users_host_snapshot_reads_what_the_script_inside_reads(as_nobody):
    """As a normal user the host walker reads as the harness's own uid, which the user namespace maps the agent to:
    the same dict as the script inside, on the adversarial workspace of test_host_snapshot.py."""
    _, run = as_nobody
    done = run.python(HOST_SNAPSHOT_CHECK)
    assert done.returncode == 0, done.stderr[-2000:]
    checked = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(checked) > 10
    for paths, host, inside, taken in checked:
        assert host is not None, paths
        assert host == inside == taken, paths
    (everything,) = [c for c in checked if c[0] == ["t"]]
    assert everything[1]["t/closed_file"] == "unreadable: Permission denied"
