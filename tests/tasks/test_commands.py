"""`matchmeter tasks list` and `tasks import` through the real CLI entry point."""

from __future__ import annotations

import subprocess
import sys

from matchmeter.tasks import builtin_suite_dir, load_tasks
from matchmeter.tasks.commands import task_rows
from tests.tasks.test_importer import make_tb1


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "matchmeter.cli", *args], capture_output=True, text=True,
                          timeout=120, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


def test_rows_count_subgoals_and_paths():
    rows = {r["id"]: r for r in task_rows(load_tasks([]))}
    assert rows["status-service"]["subgoals"] == 4
    assert rows["status-service"]["reference_paths"] == 1
    assert rows["status-service"]["budgets"] == "40 steps · 400k tok · $1.5 · 600s"
    assert rows["exact-payload"]["family"] == "quoting"


def test_list_builtin_suite_and_core():
    import tomllib

    index = tomllib.loads((builtin_suite_dir() / "index.toml").read_text())
    proc = cli("tasks", "list")
    assert proc.returncode == 0, proc.stderr
    assert f"{len(index['tasks'])} task(s)" in proc.stdout
    for task_id in ("sort-inbox", "status-service", "latency-percentile", "exact-payload"):
        assert task_id in proc.stdout
    core = cli("tasks", "list", "--core")
    assert core.returncode == 0
    assert f"{len(index['core'])} task(s) (core)" in core.stdout
    outside = sorted(set(index["tasks"]) - set(index["core"]))[0]
    assert outside not in core.stdout.split()


def test_list_task_dir_and_bad_path(tmp_path):
    proc = cli("tasks", "list", str(builtin_suite_dir() / "ini-to-json"))
    assert proc.returncode == 0
    assert "1 task(s)" in proc.stdout
    bad = cli("tasks", "list", str(tmp_path / "nope"))
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nope'} does not exist ({tmp_path / 'nope'}): pass a task directory or a suite directory"
    ]


def test_import_command(tmp_path):
    src = make_tb1(tmp_path)
    proc = cli("tasks", "import", str(src), str(tmp_path / "suite"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "suite" / "hello-ready" / "task.toml").is_file()
    listed = cli("tasks", "list", str(tmp_path / "suite"))
    assert "hello-ready" in listed.stdout
    again = cli("tasks", "import", str(src), str(tmp_path / "suite"))
    assert again.returncode == 2
    assert "already exists and is not empty" in again.stderr
