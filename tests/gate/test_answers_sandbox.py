"""The gate learns answer values by running the oracle in a sandbox, never on the host (gate/answers.py,
runner/oracle_outputs.py): an oracle that writes outside its workspace leaves the host as it was, and without
an isolated sandbox there are no values and the reason is recorded."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError
from matchmeter.gate import answers as answers_mod
from matchmeter.gate.answers import answers
from matchmeter.gate.rules import ReferenceKnowledge, check_rules
from matchmeter.runner.oracle_outputs import oracle_outputs
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MATCHMETER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(answers_mod, "_MEMO", {})


def _escaping_task(root: Path, home_probe: Path, tmp_probe: Path):
    task_dir = write_task(root, "escaping-oracle")
    (task_dir / "instruction.md").write_text("Which region earned most? Write it to `answer.txt`.\n")
    (task_dir / "solution" / "solve.sh").write_text(
        f"touch {home_probe} {tmp_probe} 2>/dev/null\n"
        f"echo escaped > {home_probe} 2>/dev/null\n"
        f"rm -rf {tmp_probe.parent}/keep.txt 2>/dev/null\n"
        "printf 'Westfold 81234.56\\n' > answer.txt\n")
    return load_task(task_dir)


@pytest.mark.bwrap
def test_an_oracle_that_writes_outside_its_workspace_leaves_the_host_untouched(tmp_path):
    home_probe = Path.home() / f".mm-gate-probe-{uuid.uuid4().hex[:8]}"
    outside = Path(__file__).resolve().parent / f".probe-{uuid.uuid4().hex[:8]}"  # a host dir outside /tmp
    outside.mkdir()
    try:
        (outside / "keep.txt").write_text("keep me\n")
        task = _escaping_task(tmp_path / "tasks", home_probe, outside / "escaped")
        found = answers(task, oracle_outputs)
        assert found.skipped == ""
        assert {"Westfold", "81234.56"} <= found.values  # the oracle ran: its output is read from the sandbox
        assert not home_probe.exists()
        assert not (outside / "escaped").exists()
        assert (outside / "keep.txt").read_text() == "keep me\n"
        leaked = "Which region earned most (Westfold, 81234.56)? Write it to `answer.txt`.\n"
        knowledge = ReferenceKnowledge.of_task(task, oracle=oracle_outputs)
        reasons = [r for res in check_rules(task.instruction, leaked, knowledge) for r in res.reasons]
        assert {"leaks_answer:Westfold", "leaks_answer:81234.56"} <= set(reasons)
    finally:
        home_probe.unlink(missing_ok=True)
        for f in outside.iterdir():
            f.unlink()
        outside.rmdir()


def test_without_a_sandbox_there_are_no_values_and_the_reason_is_recorded(tmp_path):
    task = load_task(write_task(tmp_path, "no-sandbox"))
    ran: list[str] = []

    def unavailable(task, **_):
        ran.append(task.id)
        raise SandboxError("bwrap is not installed")

    found = answers(task, unavailable)
    assert ran == ["no-sandbox"]
    assert found.values == frozenset()
    assert found.skipped == "oracle not run: bwrap is not installed"
    assert not (tmp_path / "cache" / "gate-answers").exists()  # a failure is not cached: a later run retries
    assert answers(task, None).skipped == "no sandbox to run the oracle in was given"
    knowledge = ReferenceKnowledge.of_task(task)
    assert knowledge.answers == set()
    assert knowledge.answers_skipped == "no sandbox to run the oracle in was given"


def test_the_unisolated_local_backend_is_refused_before_anything_runs(tmp_path):
    task_dir = write_task(tmp_path, "local-refused")
    probe = tmp_path / "ran"
    (task_dir / "solution" / "solve.sh").write_text(f"touch {probe}\n")
    with pytest.raises(SandboxError, match="not isolated"):
        oracle_outputs(load_task(task_dir), backend="local")
    assert not probe.exists()


def test_values_are_cached_by_task_digest(tmp_path):
    task = load_task(write_task(tmp_path, "cached"))
    calls = []

    def run(task, **_):
        calls.append(task.id)
        return {"answer.txt": "Eastmarch 4321.5\n"}

    assert answers(task, run).values == {"Eastmarch", "4321.5"}
    answers_mod._MEMO.clear()
    assert answers(task, run).values == {"Eastmarch", "4321.5"}  # from the cache file
    assert calls == ["cached"]
    assert list((tmp_path / "cache" / "gate-answers").glob(f"cached-{task.digest[:16]}-v*.json"))
