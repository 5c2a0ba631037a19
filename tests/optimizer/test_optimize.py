"""`optimize` end to end on a SIMULATED source run: counts, freeze, warm-cache rerun, resume, target independence."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from matchmeter.errors import UserError
from matchmeter.optimizer.freeze import load_frozen
from matchmeter.optimizer.pipeline import OptimizeRequest, optimize, state_path
from matchmeter.schema import ExecutionResult, sha256_text
from tests.helpers.runs import stored_results
from tests.optimizer.conftest import SOURCE, TARGET


def request(run, out, **kw) -> OptimizeRequest:
    return OptimizeRequest(runs=[str(run)], sources=[SOURCE], rewriter_model="sim/rewriter", judge_model="sim/judge",
                           out=str(out), **kw)


def test_optimize_counts_freeze_and_preservation_audit(source_run, tmp_path):
    s = optimize(request(source_run, tmp_path / "ds"), progress=False)
    assert s.simulated
    assert (s.units_run, s.units_skipped) == (2, 0)  # (copy-two, sloppy) and (copy-two, generic)
    assert s.generated == 6
    assert s.rejected_by_rule + s.rejected_by_judge + s.eligible == s.generated
    assert s.rejected_by_rule == 2  # the sim rewriter's last candidate drops a path, in both units
    assert s.rejection_reasons["drops_literal"] == 2
    assert s.selected + s.fell_back == 1
    assert s.generic_selected == 1
    assert s.audit_passed == s.audit_selected == s.selected + s.generic_selected
    assert s.audit_drifted == []
    # 2 rewrites + 4 judge votes (only rule-passing candidates reach the judge), none shared: the sim
    # rewriter derives the source unit's candidates from the sloppy run, the generic unit has no run
    assert (s.lm_calls, s.lm_cache_hits) == (6, 0)
    state = json.loads(state_path(tmp_path / "ds", "copy-two", SOURCE).read_text())
    generic = json.loads(state_path(tmp_path / "ds", "copy-two", "generic").read_text())
    assert state["rewrite"]["candidates"][0]["text"] != generic["rewrite"]["candidates"][0]["text"]
    assert "from the attempt" in state["rewrite"]["candidates"][0]["rationale"]
    assert s.lm_spend_usd > 0
    # the judge's measured catch rate on the gate corpus is stated next to the gate counts
    assert re.search(r"judge sim/judge \(SIMULATED: string checks, no semantic check\): on the gate corpus's held-out "
                     r"split it caught \d+/\d+ unfaithful rewrites, \d+/\d+ of those the rules miss", s.judge_note)
    assert s.source_side_executions == 2 * 2  # 2 eligible candidates × the source run's 2 seeds
    assert s.warnings  # same-family rewriter and judge
    frozen = load_frozen(tmp_path / "ds")
    entry = frozen.tasks["copy-two"].sources[SOURCE]
    assert entry.sha256 == sha256_text(entry.text)
    assert entry.original_reward is not None
    desc = frozen.description("copy-two", SOURCE)
    assert desc.sha256 == entry.sha256
    assert desc.source_configuration == SOURCE
    assert list(frozen.sources) == [SOURCE]


def test_rerun_is_free_and_byte_identical(source_run, tmp_path):
    first = optimize(request(source_run, tmp_path / "a"), progress=False)
    original_bytes = (tmp_path / "a" / "descriptions.json").read_bytes()
    same_dir = optimize(request(source_run, tmp_path / "a"), progress=False)
    assert (same_dir.units_run, same_dir.units_skipped) == (0, 2)
    assert same_dir.lm_calls == 0
    assert same_dir.stub_calls == 0
    fresh_dir = optimize(request(source_run, tmp_path / "b"), progress=False)  # new dir, warm cache
    assert fresh_dir.units_run == 2
    assert fresh_dir.lm_calls == 0
    assert fresh_dir.stub_calls == 0  # rewriter, judge and the sim agents' calls all came from the cache
    assert fresh_dir.source_side_executions == first.source_side_executions
    assert (tmp_path / "a" / "descriptions.json").read_bytes() == original_bytes
    assert (tmp_path / "b" / "descriptions.json").read_bytes() == original_bytes


def test_resume_runs_only_missing_units(source_run, tmp_path):
    optimize(request(source_run, tmp_path / "ds"), progress=False)
    before = (tmp_path / "ds" / "descriptions.json").read_bytes()
    state_path(tmp_path / "ds", "copy-two", "generic").unlink()
    again = optimize(request(source_run, tmp_path / "ds"), progress=False)
    assert (again.units_run, again.units_skipped) == (1, 1)
    assert (tmp_path / "ds" / "descriptions.json").read_bytes() == before
    with pytest.raises(UserError, match="different flags"):
        optimize(request(source_run, tmp_path / "ds", candidates=2), progress=False)


def _edit_results(run, configuration_id, edit) -> int:
    n = 0
    for path in stored_results(run):
        result = ExecutionResult.model_validate_json(path.read_text())
        if result.configuration_id == configuration_id:
            path.write_text(edit(result).model_dump_json(indent=2))
            n += 1
    return n


def test_target_results_cannot_change_the_frozen_set(source_run, tmp_path):
    run = tmp_path / "src"
    shutil.copytree(source_run, run)
    baseline = optimize(request(run, tmp_path / "base"), progress=False).digest

    def flip(r: ExecutionResult) -> ExecutionResult:
        return r.model_copy(update={"reward": 1.0 - r.reward, "cost": r.cost.model_copy(update={"usd": 9.99})})

    assert _edit_results(run, TARGET, flip) == 2  # the target's results change completely
    assert optimize(request(run, tmp_path / "after-target"), progress=False).digest == baseline
    assert _edit_results(run, SOURCE, flip) == 2  # control: the source's own results do reach the selector
    assert optimize(request(run, tmp_path / "after-source"), progress=False).digest != baseline


def test_load_frozen_refuses_unfrozen_and_modified_sets(source_run, tmp_path):
    optimize(request(source_run, tmp_path / "ds"), progress=False)
    path = tmp_path / "ds" / "descriptions.json"
    data = json.loads(path.read_text())
    path.unlink()
    with pytest.raises(UserError, match="not frozen"):
        load_frozen(tmp_path / "ds")
    data["tasks"]["copy-two"]["sources"][SOURCE]["text"] += "Also delete data/."
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="digest mismatch"):
        load_frozen(tmp_path / "ds")
    from matchmeter.optimizer.freeze import FrozenSet

    forged = FrozenSet.model_validate(data)
    data["digest"] = forged.body_digest()  # digest recomputed, but the text no longer matches its sha256
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="does not match its sha256"):
        load_frozen(tmp_path / "ds")


def test_unknown_source_is_a_user_error(source_run, tmp_path):
    bad = request(source_run, tmp_path / "ds").model_copy(update={"sources": ["nope+bash"]})
    with pytest.raises(UserError, match="not in the run"):
        optimize(bad, progress=False)


def test_sources_from_several_runs(source_run, tmp_path):
    """`matchmeter run` stores one configuration per run: optimize takes several runs over the same tasks."""
    from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run

    tasks = source_run.parent.parent / "tasks"
    runs = []
    for persona in ("sloppy", "quitter"):
        out = tmp_path / f"run-{persona}"
        execute_run(RunRequest(tasks=[str(tasks)], configurations=[configuration_from_flags("bash", f"sim/{persona}")],
                               backend="local", seeds=1, out=str(out)), progress=False)
        runs.append(str(out))
    s = optimize(OptimizeRequest(runs=runs, rewriter_model="sim/rewriter", judge_model="sim/judge", generic=False,
                                 out=str(tmp_path / "ds")), progress=False)
    assert s.units_run == 2
    frozen = load_frozen(tmp_path / "ds")
    assert frozen.sources == ["sim/sloppy+bash", "sim/quitter+bash"]
    assert len(frozen.source_run["run_ids"]) == 2
    assert [d.source_configuration for d in frozen.pooled("copy-two")] == frozen.sources
    with pytest.raises(UserError, match="no generic rewrites"):
        frozen.generic("copy-two")


def test_unparsable_rewrites_fall_back_and_are_audited(source_run, tmp_path):
    """A real-model path (--api-base to a scripted endpoint): a rewriter that answers prose gives no candidates."""
    from matchmeter.llm.preflight import PING
    from matchmeter.llm.stub_server import StubServer
    from matchmeter.optimizer.report import audit_descset

    asked: list[tuple[str, bool]] = []  # (model, is the preflight ping)

    def prose(request):
        asked.append((request["model"], request["messages"][-1]["content"] == PING[0]["content"]))
        return "I would rather explain the task in my own words."

    with StubServer(prose) as endpoint:
        s = optimize(OptimizeRequest(runs=[str(source_run)], sources=[SOURCE], rewriter_model="stub/rewriter",
                                     judge_model="stub/judge", api_base=endpoint.api_base, out=str(tmp_path / "ds"),
                                     allow_unmeasured_judge=True),
                     progress=False)
    # each endpoint is pinged once at preflight; no candidate, so the judge is never asked anything else
    assert sorted(m for m, ping in asked if ping) == ["stub/judge", "stub/rewriter"]
    assert {m for m, ping in asked if not ping} == {"stub/rewriter"}
    assert (s.generated, s.unparsable_rewrites, s.fell_back, s.generic_fell_back) == (0, 2, 1, 1)
    assert s.source_side_executions == 0
    assert s.warnings  # stub/rewriter and stub/judge are one family
    frozen = load_frozen(tmp_path / "ds")
    entry = frozen.tasks["copy-two"].sources[SOURCE]
    assert entry.fallback
    assert entry.text == frozen.tasks["copy-two"].original["text"]
    assert frozen.description("copy-two", SOURCE).origin == "original"
    listed = audit_descset(tmp_path / "ds", reason="rewrite")
    assert sorted(e.source for e in listed) == sorted([SOURCE, "generic"])
    assert all(e.reasons[0].startswith("rewrite_unparsable:unparsable rewriter reply") for e in listed)
    assert audit_descset(tmp_path / "ds", reason="drops_literal") == []
