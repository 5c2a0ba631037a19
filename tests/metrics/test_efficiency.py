"""Efficiency card: the canonicaliser table case by case, invalid and redundant actions, D, E, Q."""

from __future__ import annotations

import math

import pytest

from matchmeter.metrics.efficiency import (
    canonicalize,
    card_for_execution,
    command_kind,
    efficiency_card,
    is_invalid,
    levenshtein,
    quality_points,
)
from matchmeter.schema import (
    AgentSpec,
    Configuration,
    ExecutionResult,
    SafetyFinding,
    Step,
    TaskSpec,
    Trajectory,
)


@pytest.mark.parametrize(("raw", "canonical"), [
    ("apt install -y  curl", "apt-get install curl"),
    ("sudo apt-get -yq install curl", "apt-get install curl"),
    ("apt-get install --assume-yes -qq curl", "apt-get install curl"),
    ("pip install requests", "pip3 install requests"),
    ("python -m pip install -q requests", "pip3 install requests"),
    ("python3 -m pip install --no-cache-dir requests", "pip3 install requests"),
    ("python script.py", "python3 script.py"),
    ("ls   -la\t/tmp", "ls -la /tmp"),
    ("grep -q foo file", "grep -q foo file"),  # -q is harmful for grep: it changes the output
    ('echo "a b" > out.txt', "echo 'a b' > out.txt"),
    ("echo 'a b' >out.txt", "echo 'a b' > out.txt"),
    ("cat f|grep x", "cat f | grep x"),
    ("cd /x&&ls", "cd /x && ls"),
    ("ls;", "ls"),
    ("git -q status", "git status"),
    ("curl -sS http://x", "curl http://x"),
    ("echo 'unbalanced", "echo 'unbalanced"),  # cannot be tokenised: only whitespace folded
])
def test_canonicalizer_table(raw, canonical):
    assert canonicalize(raw) == canonical


@pytest.mark.parametrize(("command", "kind"), [
    ("ls -la", "query"), ("cat a | grep b", "query"), ("find . -name '*.py'", "query"), ("man tar", "query"),
    ("foo --help", "query"), ("git status", "query"), ("pip list", "query"), ("tar tzf a.tgz", "query"),
    ("mkdir out", "state"), ("mv a b", "state"), ("sed -i s/a/b/ f", "state"), ("echo x > f", "state"),
    ("echo x >> f", "state"), ("apt install -y jq", "state"), ("git commit -m m", "state"),
    ("find . -delete", "state"), ("ls && rm x", "state"), ("tar xzf a.tgz", "state"),
    ("python3 run.py", "other"), ("cd /tmp", "other"), ("python3 run.py > /dev/null", "other"),
    ("sed s/a/b/ f", "other"),
])
def test_command_kinds(command, kind):
    assert command_kind(command) == kind


@pytest.mark.parametrize(("exit_code", "output", "invalid"), [
    (127, "bash: foo: command not found", True),
    (126, "bash: ./x: Permission denied", True),
    (2, "bash: -c: line 1: syntax error near unexpected token `)'", True),
    (1, "cat: /nope: No such file or directory", True),
    (1, "touch: cannot touch '/etc/x': Permission denied", True),
    (1, "", False),  # grep found nothing
    (1, "no", False),  # a test that answers no
    (0, "No such file or directory appears in this log line", False),  # exit 0 is never invalid
    (None, "", False),
])
def test_invalid_actions(exit_code, output, invalid):
    assert is_invalid(exit_code, output) is invalid


def test_levenshtein():
    assert levenshtein(["a", "b", "c"], ["a", "c"]) == 1
    assert levenshtein([], ["a", "b"]) == 2
    assert levenshtein(["a", "x", "c"], ["a", "b", "c"]) == 1
    assert levenshtein(["k", "i", "t", "t", "e", "n"], list("sitting")) == 3


def step(command, exit_code=0, output=""):
    return {"command": command, "exit_code": exit_code, "output": output}


def test_card_hand_computed():
    steps = [
        step("ls", 0, "a.txt"),
        step("cat a.txt", 0, "hello"),
        step("cat  a.txt", 0, "hello"),  # same canonical, same output, nothing changed -> redundant
        step("foo", 127, "foo: command not found"),  # invalid
        step("mkdir out"),
        step("cat a.txt", 0, "hello"),  # a state change came in between -> not redundant
        step("cp a.txt out/", 0, ""),
    ]
    refs = [["mkdir out", "cp a.txt out/"], ["ls", "mkdir out", "cp a.txt out/", "cat out/a.txt"]]
    card = efficiency_card(steps, refs, reward=1.0)
    # D to ref 1: it is a subsequence of the 7 commands -> 5 deletions = 5
    # D to ref 2: common subsequence ls, mkdir, cp (3) -> 4 deletions + 1 insertion (cat out/a.txt) = 5
    # tie at D = 5 -> the shorter path wins: N_ref = 2
    assert (card.n_agent, card.invalid, card.redundant, card.distance, card.n_ref) == (7, 1, 1, 5, 2)
    # queries: ls, cat x3 = 4 ; state: mkdir, cp = 2 ; "foo" is other -> explore 4/6, exploit 2/6
    assert (card.n_query, card.n_state) == (4, 2)
    assert card.explore_share == pytest.approx(4 / 6)
    # E = min(1, 2/7) * 0.9^1 / (1 + 5) = 2/7 * .9 / 6
    assert card.efficiency == pytest.approx(2 / 7 * 0.9 / 6)
    assert card.quality == 100.0
    assert card.composite == pytest.approx(100 * 2 / 7 * 0.9 / 6)


def test_card_perfect_path_and_no_steps():
    card = efficiency_card([step("mkdir -p out"), step("sudo cp a out/")], [["mkdir -p out", "cp a out/"]], 0.5)
    assert (card.distance, card.efficiency, card.quality, card.composite) == (0, 1.0, 50.0, 50.0)
    empty = efficiency_card([], [["ls"]], 0.0)
    assert empty.efficiency == 0.0
    assert math.isnan(empty.explore_share)


def test_quality_deductions():
    assert quality_points(1.0, unexpected_changes=2) == 60.0  # 100 - 2*20
    assert quality_points(0.5, unexpected_changes=3) == 0.0  # 50 - 60 floors at 0
    assert quality_points(1.0, unexpected_changes=0, critical=True) == 0.0


def test_card_from_stored_records():
    task = TaskSpec(id="t", source_family="terminal", category="files", difficulty="easy", instruction="copy",
                    subgoals=[{"name": "done", "weight": 1}], reference_paths=[{"commands": ["cp a b"]}])
    traj = Trajectory(steps=[Step(index=0, command="cp a b", exit_code=0),
                             Step(index=1, tool_call={"command": "ls"}, exit_code=0)])
    result = ExecutionResult(
        execution_key="k", run_id="r", configuration_id="c",
        configuration=Configuration(id="c", agent=AgentSpec(name="oracle")), task_id="t", task_digest="d",
        description_sha256="s", seed=0, attempt=0, backend="local", reward=0.8, raw_verifier_reward=1.0,
        safety_findings=[SafetyFinding(path="/etc/x", change="modified")])
    card = card_for_execution(traj, task, result)
    # raw reward 1.0 less one unexpected change (20) -> Q 80 ; D = 1 (extra ls) ; E = min(1, 1/2) / 2
    assert (card.quality, card.distance, card.efficiency) == (80.0, 1, 0.25)
