"""read_verdict: matchmeter's reward.txt/subgoals.json first, then Harbor's verifier/reward.json, then
verifier/reward.txt; every bad file is a VerifierError naming it. Runs in a real local sandbox."""

from __future__ import annotations

import secrets
import shlex

import pytest

from matchmeter.errors import VerifierError
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.verdict import prepare_command, read_verdict
from matchmeter.schema import Subgoal, TaskSpec

TASK = TaskSpec(id="t", source_family="imported", category="c", difficulty="easy", instruction="x",
                subgoals=[Subgoal(name="a", weight=3), Subgoal(name="b", weight=1)])


@pytest.fixture
def box(tmp_path):
    sb = get_backend("local").create(SandboxRequest(task_id="verdict", environment_dir=tmp_path / "none",
                                                    label=f"verdict-{secrets.token_hex(3)}"))
    yield sb
    sb.destroy()


def verdict_after(box, files: dict[str, str]):
    logs = box.exec('printf %s "$MM_LOGS"', 10).output
    assert box.exec(prepare_command(logs), 10).exit_code == 0
    for name, text in files.items():
        assert box.exec(f"printf %s {shlex.quote(text)} > {shlex.quote(f'{logs}/{name}')}", 10).exit_code == 0
    return read_verdict(box, logs, TASK)


def test_ours_wins_and_subgoals_are_weighted(box):
    v = verdict_after(box, {"reward.txt": "0.75\n", "subgoals.json": '{"a": 1, "b": 0}',
                            "verifier/reward.txt": "0"})
    assert v == (0.75, {"a": 1.0, "b": 0.0}, 0.75, "reward.txt")


def test_harbor_reward_txt(box):
    assert verdict_after(box, {"verifier/reward.txt": "1\n"}) == (1.0, {}, 1.0, "verifier/reward.txt")
    assert verdict_after(box, {"verifier/reward.txt": "1.5"}).graded == 1.0  # clamped, raw kept


def test_harbor_reward_json_is_preferred_over_its_txt(box):
    v = verdict_after(box, {"verifier/reward.json": '{"reward": 0.25}', "verifier/reward.txt": "1"})
    assert v == (0.25, {}, 0.25, "verifier/reward.json")


def test_harbor_reward_json_with_subgoal_keys_is_graded_by_weight(box):
    assert verdict_after(box, {"verifier/reward.json": '{"a": 0, "b": 1}'}) == (
        0.25, {"a": 0.0, "b": 1.0}, 0.25, "verifier/reward.json")
    assert verdict_after(box, {"verifier/reward.json": '{"accuracy": 0.5}'}).graded == 0.5  # one value: the reward


@pytest.mark.parametrize(("files", "message"), [
    ({}, "the verifier wrote no reward file"),
    ({"verifier/reward.txt": "yes"}, "verifier/reward.txt is not a number: 'yes'"),
    ({"verifier/reward.json": "{"}, "verifier/reward.json is not JSON"),
    ({"verifier/reward.json": '{"reward": "1"}'}, "verifier/reward.json: reward is not a finite number"),
    ({"verifier/reward.json": '{"x": 1, "y": 0}'}, "has no `reward` key and its keys ['x', 'y'] name no subgoal"),
    ({"reward.txt": "1", "subgoals.json": '{"zz": 1}'}, "subgoals.json names unknown subgoals ['zz']"),
])
def test_bad_or_missing_reward_is_a_verifier_error(box, files, message):
    with pytest.raises(VerifierError) as info:
        verdict_after(box, files)
    assert message in str(info.value)
