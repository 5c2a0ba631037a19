"""Gate v3 judge protocol: the obligation checklist, per-item answers (kept / changed / dropped / added), the
prompt and its parsing on recorded replies (tests/gate/data/judge_replies.jsonl: replies written in the
shapes models answer in, for held-out cases), gate eval on the recorded-reply judge and on the sim judge,
and optimize's refusal of an unmeasured judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.gate.contract import extract_contract
from matchmeter.gate.judge import Judge, parse_reply, vote_of
from matchmeter.gate.verdict import judge_votes
from matchmeter.optimizer.gate_eval import ReplayClient, check_judge, run_gate_eval

REPLIES = Path(__file__).parent / "data" / "judge_replies.jsonl"


def test_the_checklist_holds_every_obligation_the_judge_must_answer():
    text = ("Work in UTC. Delete every `.tmp` file older than 7 days; keep everything else. "
            "Don't touch `src/`.\n")
    rendered = extract_contract(text).render()
    assert "requirement: Work in UTC." in rendered
    assert "number: 7 day" in rendered
    assert "prohibition: Don't touch `src/`." in rendered


@pytest.mark.parametrize(("reply", "passed", "code"), [
    ({"items": [{"id": 1, "status": "kept"}, {"id": 2, "status": "kept"}]}, True, "judge:pass"),
    ({"items": [{"id": 1, "status": "kept"}, {"id": 2, "status": "changed", "note": "over 1000"}]}, False,
     "judge:item_changed"),
    ({"items": [{"id": 1, "status": "kept"}, {"id": 2, "status": "kept"}, {"status": "added", "note": "sign off"}]},
     False, "judge:adds_requirement"),
    ({"items": [{"id": 1, "status": "kept"}]}, False, "judge_incomplete"),
    ({"items": [{"id": 1, "status": "kept"}, {"id": 2, "status": "kept"}], "verdict": "contradicts"}, False,
     "judge:contradicts"),
])
def test_a_vote_passes_only_with_every_item_kept_and_nothing_added(reply, passed, code):
    parsed = parse_reply(json.dumps(reply))
    assert parsed is not None
    vote = vote_of(parsed, 0, [1, 2])
    assert (vote.passed, vote.reason_code) == (passed, code)


def test_the_prompt_carries_checklist_and_warnings_and_recorded_replies_parse():
    from matchmeter.gate.rules import ReferenceKnowledge

    original = "Delete every `.tmp` file under `build/` older than 7 days. Don't touch `build/src/`.\n"
    candidate = "Delete `.tmp` in `build/` (7 days); `build/src/` stays as it is.\n"
    recorded = {" ".join(candidate.split()): "Sure.\n```json\n" + json.dumps(
        {"items": [{"id": i, "status": "kept"} for i in range(1, 20)], "leaks": []}) + "\n```"}
    judge = Judge(ReplayClient("replay/x", recorded))
    passed, votes, messages = judge_votes(judge, original, candidate, ReferenceKnowledge(), 1)
    user = messages[-1]["content"]
    assert "<<<CHECKLIST>>>" in user
    assert "length_out_of_bounds:0." in user.split("<<<WARNINGS>>>", 1)[1].split("<<<END WARNINGS>>>")[0]
    assert passed, votes[0].reason_code


def test_gate_eval_on_recorded_replies_reports_each_layer_per_kind():
    report = run_gate_eval(None, None, split="heldout", judge_replies=REPLIES)
    by_id = {c.id: c for c in report.cases}
    assert set(by_id) == {json.loads(line)["id"] for line in REPLIES.read_text().splitlines()}
    assert by_id["h000"].judge_reasons == []
    assert by_id["h001"].judge_reasons == []
    assert by_id["h002"].judge_reasons == ["judge:item_changed"]
    assert by_id["h050"].judge_reasons == ["judge:item_changed"]
    assert by_id["h049"].judge_reasons == ["judge_incomplete"]  # a false rejection of the judge alone
    assert by_id["h004"].judge_reasons == ["judge_unparsable"]
    assert report.rate("judge", rule_visible=False) == (2, 2)  # h002, h050: what the rules cannot see
    # h002's "7 or more days" keeps the value and its unit (a number's unit may sit beyond the next two words
    # since gate v3.1): its boundary change is the judge's alone, as its visibility says
    assert report.rate("rules", rule_visible=False) == (0, 2)
    assert report.rate("both", label="faithful") == (1, 3)


def test_optimize_refuses_an_unmeasured_judge_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("MATCHMETER_CACHE_DIR", str(tmp_path))
    with pytest.raises(UserError, match="judge openai/x is unmeasured"):
        check_judge("openai/x", min_catch=None, max_false_rejection=None, allow_unmeasured=False)
    check_judge("openai/x", min_catch=None, max_false_rejection=None, allow_unmeasured=True)
    check_judge("sim/judge", min_catch=None, max_false_rejection=None, allow_unmeasured=False)  # shipped measurement
    with pytest.raises(UserError, match="below --judge-min-catch 90%"):
        check_judge("sim/judge", min_catch=0.9, max_false_rejection=None, allow_unmeasured=False)
