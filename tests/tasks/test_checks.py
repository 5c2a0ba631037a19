"""Verifiers pay only for the task: cheap shots score <= 0.3, correct alternatives 1.0, seeds matter.

Every task directory carries `checks/` beside task.toml (never visible to agents):
`cheap-<name>.sh` is a cheap shot a skeptical reviewer would try (do the visible half, hard-code what
the starting state shows, delete what is checked fractionally, forge evidence, edit the checker) and
must score <= CHEAP_MAX; `alt-<name>.sh` is a correct solution by another tool or order the
instruction allows and must score 1.0. Each runs exactly as the oracle runs its solve.sh (bash,
cwd = the seeded workspace $MM_APP; $ORACLE_SH names that solve.sh, tests/tasks/harness.py) and is graded by the task's own verifier with the runner's
weighted-subgoal mean. An optional first line `# why: ...` says what the shot tries.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from matchmeter.tasks import load_tasks
from tests.tasks.harness import Trial, check_scripts, snapshot_diff, trap_cheap_scripts

CHEAP_MAX = 0.3
SEEDS = (0, 1)
REPLAY_SEEDS = (1, 2, 3, 4)
TASKS = load_tasks([])
BY_ID = {t.id: t for t in TASKS}
# A trap's cheap shot runs in tests/tasks/test_traps.py (seeds 0-4), not here too.
CASES = [(t.id, kind, p.name) for t in TASKS for kind, paths in check_scripts(t).items() for p in paths
         if p.name not in trap_cheap_scripts(t)]


def _score(task_id: str, script: str, seed: int) -> tuple[float, str]:
    task = BY_ID[task_id]
    with Trial(task, seed) as trial:
        trial.setup()
        out = trial.run_check(Path(task.path) / "checks" / script)
        verdict = trial.verify()
    return verdict.weighted, f"{verdict.subgoals}\nscript output:\n{out[-1500:]}\nverifier:\n{verdict.log[-1500:]}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("task_id", "kind", "script"), CASES, ids=[f"{t}/{s}" for t, _, s in CASES])
def test_check_script_bound(task_id, kind, script, seed):
    score, detail = _score(task_id, script, seed)
    if kind == "cheap":
        assert score <= CHEAP_MAX, f"{task_id} {script} seed {seed}: cheap shot scored {score:.3f}\n{detail}"
    else:
        assert score == pytest.approx(1.0), f"{task_id} {script} seed {seed}: alternative scored {score:.3f}\n{detail}"


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_task_ships_checks(task):
    scripts = check_scripts(task)
    assert len(scripts["cheap"]) >= 2, f"{task.id}: needs >= 2 checks/cheap-*.sh, has {len(scripts['cheap'])}"
    assert len(scripts["alt"]) >= 1, f"{task.id}: needs >= 1 checks/alt-*.sh, has {len(scripts['alt'])}"


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_seed_zero_outputs_fail_other_seeds(task):
    """Seed 0's oracle outputs replayed onto seeds 1-4 must not score 1.0.

    "Seed 0's outputs" = the diff the oracle made to the workspace: every file, symlink or directory
    it created or changed (bytes, link target, permission bits, file mtime) and every one it deleted,
    under $MM_APP including .git internals, captured by snapshotting the workspace before and after
    solve.sh. The replay seeds
    seed k's workspace, writes those entries over it and deletes the deleted paths, then runs the
    verifier. A task whose answer cannot depend on the seed says why in task.toml as
    `[seed_params] invariant_reason = "..."`, and is then exempt.
    """
    reason = task.seed_params.get("invariant_reason")
    if reason:
        assert len(reason) > 20, f"{task.id}: invariant_reason must say why ({reason!r})"
        return
    with Trial(task, 0) as trial:
        trial.setup()
        before = trial.snapshot()
        trial.solve()
        outputs = snapshot_diff(before, trial.snapshot())
    assert outputs, f"{task.id}: the oracle changed nothing in the workspace"
    passing = []
    for seed in REPLAY_SEEDS:
        with Trial(task, seed) as trial:
            trial.setup()
            trial.apply(outputs)
            verdict = trial.verify()
        if verdict.weighted >= 1.0 - 1e-9:
            passing.append(seed)
    assert not passing, f"{task.id}: seed 0's oracle outputs score 1.0 on seeds {passing}"


# ------------------------------------------------------------------ through the real trial lifecycle

BWRAP_SAMPLE = [c for c in CASES if BY_ID[c[0]].source_family == "terminal"]


def _as_oracle(task_id: str, script: str, root: Path):
    """A copy of the task whose solution/solve.sh is the check script, so the oracle agent runs it (a task's
    own solve.sh wins over its reference path)."""
    src = Path(BY_ID[task_id].path)
    dst = root / task_id
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    (dst / "solution").mkdir()
    shutil.copy2(src / "checks" / script, dst / "solution" / "solve.sh")
    shutil.rmtree(dst / "checks")
    return load_tasks([dst])[0]


@pytest.mark.bwrap
@pytest.mark.slow
def test_checks_on_bwrap(tmp_path):
    """Every terminal check script, seeds 0 and 1, through execute_plan on the bwrap backend (2 at a time;
    about 2 minutes on 2 cores)."""
    from matchmeter.runner.executor import ExecutionPlan, execute_plan
    from matchmeter.runner.run import configuration_from_flags
    from matchmeter.runner.sandbox import get_backend
    from matchmeter.runner.store import RunStore
    from matchmeter.schema import Description

    assert BWRAP_SAMPLE, "no terminal task ships checks/"
    backend = get_backend("bwrap")
    backend.preflight()
    oracle = configuration_from_flags("oracle", None)
    plan, cases = ExecutionPlan(), {}
    for i, (task_id, kind, script) in enumerate(BWRAP_SAMPLE):
        task = _as_oracle(task_id, script, tmp_path / f"t{i}")
        for seed in SEEDS:
            plan.add(oracle, task, Description.original(task), seed, 0)
            cases[plan.items[-1].key] = (task_id, kind, f"{script} seed {seed}")
    results = execute_plan(plan.unique(), RunStore(tmp_path / "run"), "checks", backend, 2)
    assert {r.execution_key for r in results} == set(cases)
    failures = []
    for result in results:
        task_id, kind, script = cases[result.execution_key]
        ok = result.reward <= CHEAP_MAX if kind == "cheap" else result.reward == pytest.approx(1.0)
        if not ok or result.failure_mode not in ("none", "agent_error"):
            failures.append(f"{task_id}/{script}: reward {result.reward:.3f} ({result.failure_mode} {result.error})")
    assert not failures, "\n".join(failures)
