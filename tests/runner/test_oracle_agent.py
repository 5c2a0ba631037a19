"""The oracle agent runs a task's own solution/solve.sh (a Harbor-layout task) or, for a built-in task, which
keeps none, the solve.sh written from its first reference path (matchmeter/tasks/oracle.py); a task with
neither fails with one line."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.store import execution_key
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description, ExecutionResult, TaskSpec
from matchmeter.tasks import builtin_suite_dir, load_task
from matchmeter.tasks.oracle import solve_script, stage_oracle
from tests.helpers.tasks import write_task

BACKENDS = [pytest.param("local", id="local"), pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap)]
CHEAP_BUILTIN = "q-write-bytes-control"  # seeds in ~0.1 s, one reference command


def _oracle_trial(tmp_path: Path, backend: str, task: TaskSpec, seed: int = 0) -> ExecutionResult:
    config = configuration_from_flags("oracle", None)
    desc = Description.original(task)
    key = execution_key(config.digest(), task.digest, desc.sha256, seed, 0)
    return run_trial(TrialRequest(run_id="t", execution_key=key, configuration=config, task=task, description=desc,
                                  seed=seed, attempt=0, backend=get_backend(backend),
                                  logs_dir=tmp_path / "logs" / key)).result


@pytest.mark.parametrize("backend", BACKENDS)
def test_builtin_task_without_solve_sh_scores_one(tmp_path, backend):
    task_dir = builtin_suite_dir() / CHEAP_BUILTIN
    assert not (task_dir / "solution").exists(), "a built-in task keeps its oracle in task.toml only"
    task = load_task(task_dir)
    for seed in (0, 1):  # the ticket id differs by seed: the oracle reads it, never a memorised value
        result = _oracle_trial(tmp_path, backend, task, seed)
        assert (result.failure_mode, result.reward) == ("none", 1.0), result.error


@pytest.mark.parametrize("backend", BACKENDS)
def test_harbor_layout_task_runs_its_own_solve_sh(tmp_path, backend):
    # The reference path is wrong on purpose (content_right fails: 0.75); only the task's own solve.sh scores 1.0.
    task_dir = write_task(tmp_path / "tasks")
    toml = task_dir / "task.toml"
    toml.write_text(toml.read_text().replace('commands = ["cp data/input.txt out.txt"]', 'commands = ["echo wrong > out.txt"]'))
    (task_dir / "solution" / "solve.sh").write_text('bash "$(dirname "$0")/helper.sh"\n')
    (task_dir / "solution" / "helper.sh").write_text("cp data/input.txt out.txt\n")  # solution/ travels whole
    task = load_task(task_dir)
    assert task.reference_paths[0].commands == ["echo wrong > out.txt"]
    result = _oracle_trial(tmp_path, backend, task)
    assert (result.failure_mode, result.reward) == ("none", 1.0), result.error
    (task_dir / "solution" / "solve.sh").unlink()
    (task_dir / "solution" / "helper.sh").unlink()
    generated = _oracle_trial(tmp_path, backend, load_task(task_dir))  # now the reference path is the oracle
    assert (generated.failure_mode, generated.reward, generated.subgoal_scores) == (
        "none", 0.75, {"file_written": 1.0, "content_right": 0.0})


def test_generated_script_is_one_bash_c_per_command(tmp_path):
    task = load_task(builtin_suite_dir() / CHEAP_BUILTIN)
    solve = stage_oracle(task, tmp_path / "solution")
    lines = solve.read_text().splitlines()
    assert lines[0] == "#!/usr/bin/env bash"
    assert lines[3:5] == ["set -euo pipefail", 'cd "${MM_APP:-.}"']
    assert [shlex.split(line) for line in lines[5:]] == [["bash", "-c", c] for c in task.reference_paths[0].commands]
    assert solve.read_text() == solve_script(task.reference_paths[0].commands)
    assert solve_script(["echo 'a b'", "cd x"]).splitlines()[5:] == ["bash -c 'echo '\"'\"'a b'\"'\"''", "bash -c 'cd x'"]


def test_task_without_any_oracle_fails_with_one_line(tmp_path):
    task_dir = write_task(tmp_path / "tasks")
    (task_dir / "solution" / "solve.sh").unlink()
    task = load_task(task_dir).model_copy(update={"reference_paths": []})  # the loader itself refuses such a task
    line = (f"the task has no oracle: solution/solve.sh is missing and task.toml has no reference path ({task.path}): "
            "add solution/solve.sh, or a [[metadata.matchmeter.reference_paths]] entry")
    with pytest.raises(UserError) as info:
        stage_oracle(task, tmp_path / "staged")
    assert info.value.line() == line
    result = _oracle_trial(tmp_path, "local", task)
    assert (result.failure_mode, result.reward, result.error) == ("infra_error", 0.0, line)
