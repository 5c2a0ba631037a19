"""The built-in suite, run on the host without a sandbox: oracle and first reference path score 1.0
for seeds 0-2, doing nothing scores below 1.0, seeds change the starting state. The oracle is the one the
oracle agent stages (matchmeter/tasks/oracle.py): no built-in task keeps a solution/solve.sh, so it is the
script written from the first reference path. (The runner repeats the oracle/nop part inside real
sandboxes with `matchmeter tasks check`.)
"""

from __future__ import annotations

import pytest

from matchmeter.tasks import builtin_suite_dir, load_tasks
from tests.tasks.harness import Trial

SEEDS = (0, 1, 2)
TASKS = load_tasks([])
IDS = [t.id for t in TASKS]


def _assert_full_marks(verdict, what):
    assert verdict.reward_txt == pytest.approx(1.0), f"{what}: reward.txt {verdict.reward_txt}\n{verdict.log}"
    assert all(v == 1.0 for v in verdict.subgoals.values()), f"{what}: {verdict.subgoals}\n{verdict.log}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_oracle_scores_one(task, seed):
    with Trial(task, seed) as trial:
        trial.setup()
        trial.solve()
        verdict = trial.verify()
    _assert_full_marks(verdict, f"{task.id} oracle seed {seed}")
    assert verdict.weighted == pytest.approx(verdict.reward_txt, abs=1e-6)


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_reference_path_scores_one(task):
    with Trial(task, 3) as trial:
        trial.setup()
        trial.run_reference(0)
        verdict = trial.verify()
    _assert_full_marks(verdict, f"{task.id} reference path seed 3")


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_nop_scores_below_one_and_seeds_differ(task):
    digests = []
    # Seeds nobody else uses: a leaked service of another run on seed 0's port would answer for us.
    for seed in (10, 11):
        with Trial(task, seed) as trial:
            trial.setup()
            digests.append(trial.app_digest())
            verdict = trial.verify()
        assert verdict.reward_txt < 1.0, f"{task.id} nop seed {seed} scored {verdict.reward_txt}"
        assert verdict.weighted == pytest.approx(verdict.reward_txt, abs=1e-6)
    assert digests[0] != digests[1], f"{task.id}: seeds 10 and 11 give the same starting state"


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_setup_is_deterministic_per_seed(task):
    digests = set()
    for _ in range(2):
        with Trial(task, 5) as trial:
            trial.setup(fresh=True)
            digests.add(trial.app_digest())
    assert len(digests) == 1, f"{task.id}: setup.sh is not deterministic for one seed"


def test_suite_covers_families_and_difficulties():
    families = {f: sum(t.source_family == f for t in TASKS) for f in ("terminal", "skills", "data-analysis", "quoting")}
    assert len(TASKS) >= 12
    assert min(families.values()) >= 3, families
    assert {t.difficulty for t in TASKS} == {"easy", "medium", "hard"}
    core = load_tasks([builtin_suite_dir()], core=True)
    assert 0 < len(core) < len(TASKS)
    assert all(10 <= t.budgets.steps <= 60 for t in TASKS)
    assert all(3 <= len(t.reference_paths[0].commands) <= 15 for t in TASKS)
