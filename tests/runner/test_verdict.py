"""read_verdict: a matchmeter task by reward.txt/subgoals.json alone, a task in Harbor format by Harbor's
verifier/reward.json, then verifier/reward.txt; every bad file, and a reward file that is not a regular file, is
a VerifierError naming it; check_finished refuses a verifier that timed out or was killed. Runs in a real local
sandbox."""

from __future__ import annotations

import secrets
import shlex

import pytest

from matchmeter.errors import VerifierError
from matchmeter.runner.sandbox import ExecResult, SandboxRequest, get_backend
from matchmeter.runner.verdict import check_finished, prepare_command, read_verdict
from matchmeter.schema import Subgoal, TaskSpec

TASK = TaskSpec(id="t", source_family="imported", category="c", difficulty="easy", instruction="x",
                subgoals=[Subgoal(name="a", weight=3), Subgoal(name="b", weight=1)])
NATIVE = TASK.model_copy(update={"source_family": "terminal"})


@pytest.fixture
def box(tmp_path):
    sb = get_backend("local").create(SandboxRequest(task_id="verdict", environment_dir=tmp_path / "none",
                                                    label=f"verdict-{secrets.token_hex(3)}"))
    yield sb
    sb.destroy()


def verdict_after(box, files: dict[str, str], task: TaskSpec = TASK, shell: str = ""):
    logs = box.exec('printf %s "$MM_LOGS"', 10).output
    assert box.exec(prepare_command(logs), 10).exit_code == 0
    for name, text in files.items():
        assert box.exec(f"printf %s {shlex.quote(text)} > {shlex.quote(f'{logs}/{name}')}", 10).exit_code == 0
    if shell:
        assert box.exec(shell, 10).exit_code == 0
    return read_verdict(box, logs, task)


def test_a_matchmeter_task_is_judged_by_reward_txt_and_subgoals_weighted(box):
    v = verdict_after(box, {"reward.txt": "0.75\n", "subgoals.json": '{"a": 1, "b": 0}',
                            "verifier/reward.txt": "0"}, NATIVE)
    assert v == (0.75, {"a": 1.0, "b": 0.0}, 0.75, "reward.txt", {"reward": 0.75})


def test_harbor_files_never_judge_a_matchmeter_task(box):
    """On main a matchmeter task without reward.txt fell back to Harbor's files (reward 1.0 here)."""
    with pytest.raises(VerifierError, match=r"wrote no reward file \(.*/reward.txt\)"):
        verdict_after(box, {"verifier/reward.json": '{"reward": 1}', "verifier/reward.txt": "1"}, NATIVE)


def test_our_reward_txt_never_judges_a_harbor_task(box):
    assert verdict_after(box, {"reward.txt": "1", "verifier/reward.txt": "0.5"}) == (
        0.5, {}, 0.5, "verifier/reward.txt", {"reward": 0.5})


@pytest.mark.parametrize("swap", [
    'mkdir "$MM_LOGS/reward.txt"', 'mkfifo "$MM_LOGS/reward.txt"', 'echo 1 > "$MM_LOGS/x"; ln -s x "$MM_LOGS/reward.txt"',
    'echo 1 > "$MM_LOGS/reward.txt"; mkdir "$MM_LOGS/subgoals.json"',
])
def test_a_reward_file_that_is_not_a_regular_file_is_a_verifier_error(box, swap):
    """On main a directory, fifo or link at reward.txt read as "absent" and the next file decided."""
    with pytest.raises(VerifierError, match="not a regular file"):
        verdict_after(box, {"verifier/reward.txt": "1"}, NATIVE, shell=swap)


def test_a_linked_harbor_verifier_dir_is_a_verifier_error(box):
    shell = 'rm -rf "$MM_LOGS/verifier"; mkdir "$MM_APP/v"; echo 1 > "$MM_APP/v/reward.txt"; ln -s "$MM_APP/v" "$MM_LOGS/verifier"'
    with pytest.raises(VerifierError, match="not a regular file"):
        verdict_after(box, {}, TASK, shell=shell)


@pytest.mark.parametrize(("result", "message"), [
    (ExecResult("", 124, 5.0, True), "the verifier timed out after 5s"),
    (ExecResult("", 137, 1.0, False), "the verifier was killed (exit status 137, signal 9)"),
    (ExecResult("", 143, 1.0, False), "signal 15"),
])
def test_a_verifier_that_did_not_finish_has_no_verdict(result, message):
    with pytest.raises(VerifierError) as info:
        check_finished(result, 5.0)
    assert message in str(info.value)
    check_finished(ExecResult("", 1, 1.0, False), 5.0)  # a verifier that exits 1 by itself finished


def test_harbor_reward_txt(box):
    assert verdict_after(box, {"verifier/reward.txt": "1\n"}) == (1.0, {}, 1.0, "verifier/reward.txt", {"reward": 1.0})
    assert verdict_after(box, {"verifier/reward.txt": "1.5"}).graded == 1.0  # clamped, raw kept


def test_harbor_reward_json_is_preferred_over_its_txt(box):
    v = verdict_after(box, {"verifier/reward.json": '{"reward": 0.25}', "verifier/reward.txt": "1"})
    assert v == (0.25, {}, 0.25, "verifier/reward.json", {"reward": 0.25})


def test_harbor_reward_json_with_subgoal_keys_is_graded_by_weight(box):
    assert verdict_after(box, {"verifier/reward.json": '{"a": 0, "b": 1}'}) == (
        0.25, {"a": 0.0, "b": 1.0}, 0.25, "verifier/reward.json", {"a": 0.0, "b": 1.0})
    assert verdict_after(box, {"verifier/reward.json": '{"accuracy": 0.5}'}).graded == 0.5  # one value: the reward


@pytest.mark.parametrize(("files", "message"), [
    ({}, "the verifier wrote no reward file"),
    ({"reward.txt": "1"}, "verifier/reward.txt; a task in Harbor format)"),  # ours is not Harbor's
    ({"verifier/reward.txt": "yes"}, "verifier/reward.txt is not a number: 'yes'"),
    ({"verifier/reward.json": "{"}, "verifier/reward.json is not JSON"),
    ({"verifier/reward.json": '{"reward": "1"}'}, "verifier/reward.json: reward is not a finite number"),
    ({"verifier/reward.json": '{"reward": 1, "style": true}'}, "verifier/reward.json: style is not a finite number"),
    ({"verifier/reward.json": '{"reward": 1, "perf": null}'}, "verifier/reward.json: perf is not a finite number"),
    ({"verifier/reward.json": "0.5"}, "verifier/reward.json is not a JSON object of reward keys"),
    ({"verifier/reward.json": "{}"}, "verifier/reward.json is not a JSON object of reward keys"),
])
def test_bad_or_missing_reward_is_a_verifier_error(box, files, message):
    with pytest.raises(VerifierError) as info:
        verdict_after(box, files)
    assert message in str(info.value)


def test_harbor_reward_json_with_several_keys_keeps_each_and_takes_harbors_scalar(box):
    """Harbor's primary reward: the `reward` key, else the only key; every key is kept unclamped. On main
    {"correctness": .., "performance": ..} was refused for naming no subgoal."""
    v = verdict_after(box, {"verifier/reward.json": '{"reward": 0.5, "correctness": 1, "performance": 1.25}'})
    assert v == (0.5, {}, 0.5, "verifier/reward.json", {"reward": 0.5, "correctness": 1.0, "performance": 1.25})
    v = verdict_after(box, {"verifier/reward.json": '{"correctness": 1, "performance": 0.25}'})
    # no Harbor scalar: the unweighted mean of the clamped keys, the keys kept as written
    assert v == (0.625, {}, 0.625, "verifier/reward.json", {"correctness": 1.0, "performance": 0.25})
    v = verdict_after(box, {"verifier/reward.json": '{"correctness": 3, "performance": -1}'})
    assert (v.graded, v.rewards) == (0.5, {"correctness": 3.0, "performance": -1.0})


def test_unknown_subgoals_are_a_verifier_error(box):
    with pytest.raises(VerifierError) as info:
        verdict_after(box, {"reward.txt": "1", "subgoals.json": '{"zz": 1}'}, NATIVE)
    message = "subgoals.json names unknown subgoals ['zz']"
    assert message in str(info.value)
