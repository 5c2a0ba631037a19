"""Bad --out targets and bad inputs are one line, exit 2, and lose or half-write nothing (issue 31, items 7-8).

Each test here failed on the old code: the non-run --out was written into (a user's results.parquet
overwritten), the others were tracebacks (optimize without trajectories left a half-written --out), a
Harbor result.json ran as an empty replay, `--spend-cap -1`/`nan` were accepted, and `[[price]]` in an
error printed as `[]`. A full disk and a read-only --out are real mounts: a tmpfs in a user+mount namespace.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

ROOT = Path(__file__).resolve().parents[2]


def _one_line_error(proc: subprocess.CompletedProcess[str], *parts: str) -> str:
    assert proc.returncode == 2, proc.stderr + proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip() and "NOT isolated" not in line]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), proc.stderr
    flat = " ".join(proc.stderr.split())
    for part in parts:
        assert part in flat, flat
    return flat


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(root.rglob("*"))}


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    for task_id in ("copy-a", "copy-b", "copy-c"):
        write_task(tmp_path / "tasks", task_id)
    return tmp_path / "tasks"


def test_out_into_a_users_directory_is_refused_by_run_evaluate_and_optimize(tmp_path, tasks):
    mine = tmp_path / "my-results"
    mine.mkdir()
    (mine / "results.parquet").write_bytes(b"the user's own table")
    (mine / "notes.txt").write_text("keep me")
    before = _tree(mine)
    commands = {
        "run": ["run", "--tasks", tasks, "--agent", "oracle", "--backend", "local", "--out", mine],
        "evaluate": ["evaluate", "--descriptions", tmp_path / "descset", "--target", "bash:sim/expert",
                     "--out", mine],
        "optimize": ["optimize", "--run", tmp_path / "run", "--rewriter-model", "sim/rewriter",
                     "--judge-model", "sim/judge", "--out", mine],
    }
    for args in commands.values():
        _one_line_error(run_matchmeter(*args), "--out is a directory that holds files but no matchmeter output",
                        str(mine), "choose a new or empty directory")
        assert _tree(mine) == before


def test_out_a_file_is_one_line(tmp_path, tasks):
    target = tmp_path / "a-file"
    target.write_text("not a directory")
    _one_line_error(run_matchmeter("run", "--tasks", tasks, "--agent", "oracle", "--backend", "local", "--out", target),
                    "--out is a file, not a directory", str(target))
    assert target.read_text() == "not a directory"


def test_a_non_utf8_instruction_is_one_line_naming_the_file(tmp_path, tasks):
    (tasks / "copy-b" / "instruction.md").write_bytes(b"Copy the file \xff\xfe to out.txt\n")
    _one_line_error(run_matchmeter("run", "--tasks", tasks, "--agent", "oracle", "--backend", "local",
                                   "--out", tmp_path / "run"),
                    "instruction.md is not UTF-8 text (byte 0xff at offset 14)", str(tasks / "copy-b" / "instruction.md"))
    assert not (tmp_path / "run").exists()


def test_optimize_on_a_run_without_trajectories_writes_nothing(tmp_path, tasks):
    run = tmp_path / "run"
    assert run_matchmeter("run", "--tasks", tasks, "--agent", "oracle", "--backend", "local", "--out", run,
                          "--quiet").returncode == 0
    before = _tree(run)
    _one_line_error(run_matchmeter("evaluate", "--descriptions", tmp_path / "descset", "--target", "bash:sim/expert",
                                   "--out", run),
                    "--out holds another matchmeter command's output (manifest.json), not this command's")
    assert _tree(run) == before
    for path in run.glob("executions/*/trajectory.json"):
        path.unlink()
    out = tmp_path / "descset"
    _one_line_error(run_matchmeter("optimize", "--run", run, "--rewriter-model", "sim/rewriter", "--judge-model",
                                   "sim/judge", "--out", out, "--quiet"),
                    "the source run's trajectory cannot be read", "trajectory.json")
    assert not out.exists()


def test_replay_of_a_file_that_is_not_a_trajectory_is_refused(tmp_path, tasks):
    harbor = tmp_path / "result.json"  # a Harbor job's result.json: a JSON object, not a trajectory
    harbor.write_text(json.dumps({"id": "4f1c", "task_name": "copy-a", "trial_name": "copy-a__x",
                                  "verifier_result": {"rewards": {"reward": 1.0}}, "exception_info": None}))
    atif2 = tmp_path / "atif2.json"
    atif2.write_text(json.dumps({"schema_version": "ATIF-v2.0", "steps": []}))
    for path in (harbor, atif2):
        _one_line_error(run_matchmeter("run", "--tasks", tasks, "--agent", "replay", "--replay", path, "--backend",
                                       "local", "--out", tmp_path / "run"),
                        "replay file is neither a trajectory, an ATIF v1.x file nor a list of commands", str(path))
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("cap", ["-1", "0", "nan", "inf"])
def test_spend_cap_must_be_positive_and_finite(tmp_path, tasks, cap):
    _one_line_error(run_matchmeter("run", "--tasks", tasks, "--model", "sim/expert", "--backend", "local",
                                   "--spend-cap", cap, "--out", tmp_path / "run"),
                    "--spend-cap must be a positive number of USD")
    _one_line_error(run_matchmeter("optimize", "--run", tmp_path / "run", "--rewriter-model", "sim/rewriter",
                                   "--judge-model", "sim/judge", "--spend-cap", cap, "--out", tmp_path / "descset"),
                    "--spend-cap must be a positive number of USD")
    assert not (tmp_path / "run").exists()
    assert not (tmp_path / "descset").exists()


def test_square_brackets_in_an_error_are_printed_literally(tmp_path, tasks):
    _one_line_error(run_matchmeter("run", "--tasks", tasks, "--model", "sim/expert", "--prices", tmp_path / "nope.toml",
                                   "--out", tmp_path / "run"),
                    "price file not found", "pass a TOML file with [[price]] entries")


def _in_mount_namespace(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `script` (sh) as root of a new user+mount namespace, where it may mount a tmpfs of its own."""
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "-rm", "sh", "-c", f"mount -t tmpfs tmpfs {tmp_path}"],
                           capture_output=True, text=True) if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.skip(f"no user+mount namespace to mount a small tmpfs in: {probe.stderr.strip() if probe else 'no unshare'}")
    return subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)


def test_a_full_disk_mid_run_is_one_line_with_the_resume_command_and_resume_finishes(tmp_path, tasks):
    disk = tmp_path / "disk"
    disk.mkdir()
    out = disk / "run"
    run = f"{sys.executable} -m matchmeter.cli run --tasks {tasks} --agent oracle --backend local --out {out} --quiet"
    # 40 KiB: the manifest fits, the executions (about 6 pages each) do not
    proc = _in_mount_namespace(f"mount -t tmpfs -o size=40k tmpfs {disk} && {run} 2>{tmp_path}/first.err; "
                               f"echo $? > {tmp_path}/first.rc; ls {out}/executions > {tmp_path}/stored; "
                               f"mount -o remount,size=10m {disk} && {run} --resume --json", tmp_path)
    first = subprocess.CompletedProcess([], int((tmp_path / "first.rc").read_text()), "",
                                        (tmp_path / "first.err").read_text())
    _one_line_error(first, "cannot write: No space left on device", str(out),
                    f"then resume with: matchmeter run --tasks {tasks} --agent oracle --backend local --out {out} "
                    "--quiet --resume")
    assert len((tmp_path / "stored").read_text().split()) < 3 + 1  # stopped mid-run (a .partial- dir at most extra)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["executed"] + summary["skipped"] == 3
    assert summary["failure_modes"] == {"none": summary["executed"]}


def test_a_read_only_out_is_one_line(tmp_path, tasks):
    ro = tmp_path / "ro"
    ro.mkdir()
    proc = _in_mount_namespace(f"mount -t tmpfs -o ro tmpfs {ro} && {sys.executable} -m matchmeter.cli run "
                               f"--tasks {tasks} --agent oracle --backend local --out {ro}/run", tmp_path)
    _one_line_error(proc, f"--out cannot be created: {ro} is not a writable directory", f"{ro}/run")
