"""`matchmeter --help` must not import heavy modules (litellm, docker, pandas, ray); a local run never imports ray."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("litellm", "docker", "pandas", "ray")


def _modules_after(argv: list[str]) -> tuple[int, set[str]]:
    code = (
        "import sys, json\n"
        "from matchmeter.cli import app\n"
        f"try:\n    app({argv!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print('MODULES=' + json.dumps(sorted(sys.modules)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("MODULES=")][-1]
    return proc.returncode, set(json.loads(line.removeprefix("MODULES=")))


def test_help_imports_no_heavy_module():
    rc, modules = _modules_after(["--help"])
    assert rc == 0
    assert not {m for m in modules if m.split(".")[0] in HEAVY}


def test_a_local_run_never_imports_ray(tmp_path):
    from tests.helpers.tasks import write_task

    task = write_task(tmp_path / "tasks", "copy-a")
    rc, modules = _modules_after(["run", "--tasks", str(task), "--agent", "oracle", "--backend", "local",
                                  "--out", str(tmp_path / "run"), "--quiet"])
    assert rc == 0
    assert (tmp_path / "run" / "results.parquet").exists()
    assert "matchmeter.runner.trial" in modules  # the run did happen in that process (it no longer imports pandas)
    assert not {m for m in modules if m.split(".")[0] == "ray"}


def test_unknown_command_is_one_line_and_nonzero():
    proc = subprocess.run([sys.executable, "-m", "matchmeter.cli", "no-such-command"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "No such command" in proc.stderr
