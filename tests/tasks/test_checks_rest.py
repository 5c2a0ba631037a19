"""Issue 11 on the quoting, skills and data-analysis families: cheap shots, alternatives, seeds that matter.

The full sweep is `python -m tests.tasks._check_runner_rest` (every task, seeds 0 and 1); here the tasks
the issue names run through the same check, plus the properties the fixes rest on.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from matchmeter.tasks import builtin_suite_dir, load_tasks
from tests.tasks._check_runner_rest import check_task, score
from tests.tasks.quoting_gen import TASK_IDS
from tests.tasks.quoting_gen.families import MARKER

SUITE = builtin_suite_dir()
OURS = ("quoting", "skills", "data-analysis")


def _quoting_module():
    spec = importlib.util.spec_from_file_location("quoting", SUITE / "_shared" / "quoting.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_task_of_ours_ships_two_cheap_shots_and_an_alternative():
    tasks = [t for t in load_tasks([SUITE]) if t.source_family in OURS]
    assert len(tasks) >= 99
    for task in tasks:
        checks = Path(task.path) / "checks"
        assert len(list(checks.glob("cheap-*.sh"))) >= 2, task.id
        assert len(list(checks.glob("alt-*.sh"))) >= 1, task.id


def test_quoting_payloads_change_with_the_seed():
    quoting = _quoting_module()
    assert len({quoting.ticket(s) for s in range(5)}) == 5
    for task_id in TASK_IDS:
        path = SUITE / task_id / "tests" / "payload.txt"
        assert path.read_text().count(MARKER) == 1, task_id
        assert quoting.payload(path, 0) != quoting.payload(path, 1)


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["q-remote-argv-h2", "q-make-recipe-h2", "weekly-sales-jump",
                                     "segment-top-customers", "commit-special-message"])
def test_named_tasks_pass_the_check(task_id):
    (task,) = load_tasks([SUITE / task_id])
    line, ok = check_task(task, [0, 1])
    assert ok, line


@pytest.mark.slow
def test_forged_remote_evidence_and_phony_line():
    (remote,) = load_tasks([SUITE / "q-remote-argv-h1"])
    assert score(remote, 1, SUITE / "q-remote-argv-h1" / "checks" / "cheap-forge.sh") == 0.0
    (make,) = load_tasks([SUITE / "q-make-recipe-h2"])
    # the family's alternative adds its own `.PHONY: stamp` rule (written by the shared quoting_alt.py it calls)
    alt = (SUITE / "q-make-recipe-h2" / "checks" / "alt-python.sh").read_text()
    assert "_shared/checks/quoting_alt.py\" make-recipe" in alt
    assert r"\n.PHONY: stamp\nstamp:" in (SUITE / "_shared" / "checks" / "quoting_alt.py").read_text()
    assert score(make, 1, SUITE / "q-make-recipe-h2" / "checks" / "alt-python.sh") == 1.0
