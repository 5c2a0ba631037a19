"""The SIMULATED rewriter follows the source trajectory: different failures give different candidates,
every candidate but the deliberate last one passes the gate's rules, and the last one is rejected."""

from __future__ import annotations

from types import SimpleNamespace

from matchmeter.gate.rules import ReferenceKnowledge, check_rules
from matchmeter.optimizer.rewriter import render_attempt
from matchmeter.optimizer.sim_replies import sim_candidates
from matchmeter.schema import Step, Trajectory
from matchmeter.tasks.loader import builtin_suite_dir, load_task

TASK = load_task(builtin_suite_dir() / "profile-literal-line")


def attempt(steps: list[tuple[str, int, str]], subgoals: dict[str, float]) -> str:
    trajectory = Trajectory(steps=[Step(index=i, command=c, exit_code=e, output=o) for i, (c, e, o) in enumerate(steps)])
    result = SimpleNamespace(reward=0.5, failure_mode="wrong_output", subgoal_scores=subgoals)
    return render_attempt(trajectory, result)  # type: ignore[arg-type]


QUOTING = attempt([("tail -n 3 config/profile.env", 0, "export A=1"),
                   ('echo "export BACKUP_DIR=$HOME/backups" >> config/profile.env', 0, "")], {"lines": 0.0})
WRONG_FILE = attempt([("cat config/profile.env.bak", 1, "cat: config/profile.env.bak: No such file or directory"),
                      ("cat notes.txt", 0, "hello")], {})


def rule_reasons(text: str) -> list[str]:
    knowledge = ReferenceKnowledge.of_task(TASK)
    return [r for res in check_rules(TASK.instruction, text, knowledge) for r in res.reasons]


def test_candidates_follow_what_the_trajectory_shows():
    quoting, q_diag = sim_candidates(TASK.instruction, QUOTING, 3)
    wrong, w_diag = sim_candidates(TASK.instruction, WRONG_FILE, 3)
    generic, g_diag = sim_candidates(TASK.instruction, None, 3)
    assert "character for character" in quoting[0]["text"]
    assert "`config/profile.env` is named exactly as written" in wrong[0]["text"]
    assert "character for character" not in wrong[0]["text"]
    assert len({quoting[0]["text"], wrong[0]["text"], generic[0]["text"]}) == 3
    assert any("quoting damage" in d for d in q_diag)
    assert any("step 0 failed on config/profile.env" in d for d in w_diag)
    assert any("step 1 read another file" in d for d in w_diag)
    assert all(d.startswith("SIMULATED") for d in q_diag + w_diag + g_diag)
    assert "1 clarification(s) from the attempt" in quoting[0]["rationale"]


def test_every_sim_candidate_but_the_last_passes_the_rules():
    for shown in (QUOTING, WRONG_FILE, None):
        candidates, _ = sim_candidates(TASK.instruction, shown, 3)
        for cand in candidates[:-1]:
            assert rule_reasons(cand["text"]) == []
        assert any(r.startswith("drops_literal:path:") for r in rule_reasons(candidates[-1]["text"]))
