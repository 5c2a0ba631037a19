"""Guaranteed traps (issue 32): every seed plants every edge case the instruction names, and ignoring one never pays.

A task lists its traps in task.toml, one `[[metadata.matchmeter.traps]]` table each (schema.Trap):
`name` (kebab-case), `words` (the instruction's own words that name or imply it) and optionally `cheap`
(the checks/ script that ignores just this trap; default `cheap-trap-<name>.sh`). Beside them in checks/:

- `trap-<name>.py`, a stdlib-only probe run as `python3 checks/trap-<name>.py` in the freshly seeded
  workspace with the oracle's environment: exit 0 iff the generated files hold the trap, else exit 1
  saying what is missing;
- the cheap shot, which must score <= CHEAP_MAX on seeds 0-4 (test_checks.py leaves these scripts out).

Each (task, seed) is seeded once for all its probes, and every trial here copies the seeded state from the
session's setup cache (tests/tasks/harness.py), which test_checks.py fills for the same seeds.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from matchmeter.tasks import load_tasks
from tests.tasks.harness import Trial, trap_cheap_script
from tests.tasks.test_checks import CHEAP_MAX, _score

PROBE_SEEDS = range(10)
CHEAP_SEEDS = range(5)
TASKS = load_tasks([])
BY_ID = {t.id: t for t in TASKS}
WITH_TRAPS = [t for t in TASKS if t.traps]
PROBE_CASES = [(t.id, seed) for t in WITH_TRAPS for seed in PROBE_SEEDS]
CHEAP_CASES = [(t.id, trap.name, seed) for t in WITH_TRAPS for trap in t.traps for seed in CHEAP_SEEDS]


def normalised(text: str) -> str:
    """Lower case, markdown backticks dropped, every whitespace run one space: how a trap's words are matched."""
    return " ".join(text.replace("`", "").lower().split())


def probe_path(task_id: str, name: str) -> Path:
    return Path(BY_ID[task_id].path) / "checks" / f"trap-{name}.py"


def test_every_task_lists_traps():
    """Issue 32: every built-in task lists its traps; a new task without them fails here."""
    missing = {t.id for t in TASKS if not t.traps}
    assert missing == set(), f"tasks with no [[metadata.matchmeter.traps]]: {', '.join(sorted(missing))}"


@pytest.mark.parametrize("task", WITH_TRAPS, ids=[t.id for t in WITH_TRAPS])
def test_traps_are_declared(task, tmp_path):
    """Names unique, words from the instruction, probe and cheap shot present; a probe finds nothing in an empty
    workspace (so a probe that always says yes cannot pass)."""
    instruction = normalised(task.instruction)
    names = [t.name for t in task.traps]
    assert len(names) == len(set(names)), f"{task.id}: trap names repeat: {names}"
    problems = []
    for trap in task.traps:
        if normalised(trap.words) not in instruction:
            problems.append(f"{trap.name}: words {trap.words!r} are not in instruction.md")
        probe = probe_path(task.id, trap.name)
        if not probe.is_file():
            problems.append(f"{trap.name}: no checks/{probe.name}")
        else:
            proc = subprocess.run(["python3", str(probe)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
            if proc.returncode == 0:
                problems.append(f"{trap.name}: checks/{probe.name} exits 0 in an empty workspace")
        cheap = Path(task.path) / "checks" / trap_cheap_script(trap)
        if not cheap.name.startswith("cheap-") or not cheap.name.endswith(".sh"):
            problems.append(f"{trap.name}: cheap shot {cheap.name} is not a checks/cheap-*.sh name")
        elif not cheap.is_file():
            problems.append(f"{trap.name}: no checks/{cheap.name}")
        elif not re.match(r"# why: \S", cheap.read_text().split("\n", 1)[0]):
            problems.append(f"{trap.name}: checks/{cheap.name} does not start with '# why: ...'")
    assert not problems, f"{task.id}:\n" + "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize(("task_id", "seed"), PROBE_CASES, ids=[f"{t}/seed{s}" for t, s in PROBE_CASES])
def test_every_seed_plants_every_trap(task_id, seed):
    task = BY_ID[task_id]
    missing = []
    with Trial(task, seed) as trial:
        trial.setup()
        for trap in task.traps:
            proc = trial.bash(["-c", 'exec python3 "$0"', str(probe_path(task_id, trap.name))], timeout_s=60)
            if proc.returncode != 0:
                missing.append(f"{trap.name} (exit {proc.returncode}): {proc.stdout.strip()[-500:]}")
    assert not missing, f"{task_id} seed {seed} lacks traps:\n" + "\n".join(missing)


@pytest.mark.slow
@pytest.mark.parametrize(("task_id", "trap", "seed"), CHEAP_CASES, ids=[f"{t}/{n}/seed{s}" for t, n, s in CHEAP_CASES])
def test_ignoring_a_trap_does_not_pay(task_id, trap, seed):
    script = trap_cheap_script(next(t for t in BY_ID[task_id].traps if t.name == trap))
    score, detail = _score(task_id, script, seed)
    assert score <= CHEAP_MAX, f"{task_id} {script} (ignores {trap}) seed {seed}: scored {score:.3f}\n{detail}"
