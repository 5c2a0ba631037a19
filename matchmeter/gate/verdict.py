"""The preservation gate's record: every rule result, every judge vote, the judge prompt/reply, the decision.

`gate_candidate` runs the rules first and asks the judge only when every rule passed (a rule failure
is certain and free; the judge is neither). A candidate passes when every rule passes and a strict
majority of judge votes pass; ties and unparsable votes reject. The judge is shown the task contract
and the reference path, and the rules' length warning (`judge_votes`), which `gate eval` also calls on its
own to measure the judge alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from matchmeter.gate.judge import Judge, JudgeVote
from matchmeter.gate.rules import ReferenceKnowledge, RuleResult, check_rules, contract_of, judge_warnings
from matchmeter.schema import SCHEMA_VERSION


class GateVerdict(BaseModel):
    schema_version: int = SCHEMA_VERSION
    candidate_id: str
    task_id: str
    source: str = Field(description="Source configuration id, or 'generic'.")
    rules: list[RuleResult] = Field(default_factory=list)
    votes: list[JudgeVote] = Field(default_factory=list)
    judge_messages: list[dict[str, Any]] = Field(default_factory=list, description="The judge prompt as sent.")
    judge_model: str | None = None
    decision: Literal["pass", "reject"]
    rejected_by: Literal["rule", "judge"] | None = None
    reasons: list[str] = Field(default_factory=list, description="Every named reason of the rejection.")

    @property
    def passed(self) -> bool:
        return self.decision == "pass"


def majority_passes(votes: Sequence[JudgeVote]) -> bool:
    """Strict majority of passing votes (2 of 3 passes; 1 of 2 is a tie and rejects)."""
    return sum(v.passed for v in votes) * 2 > len(votes) > 0


def judge_votes(judge: Judge, original: str, candidate: str, knowledge: ReferenceKnowledge,
                votes: int) -> tuple[bool, list[JudgeVote], list[dict[str, Any]]]:
    """The judge's votes on a candidate, with the contract and the reference path in its prompt."""
    contract = contract_of(original)
    warnings = "\n".join(judge_warnings(original, candidate))  # e.g. "length_out_of_bounds:0.62"
    messages = judge.messages(original, candidate, contract.render(), "\n".join(knowledge.commands), warnings)
    ids = [i.id for i in contract.items]
    cast = [judge.vote(messages, i, votes, ids) for i in range(votes)]
    return majority_passes(cast), cast, messages


def gate_candidate(*, candidate_id: str, task_id: str, source: str, original: str, candidate: str,
                   knowledge: ReferenceKnowledge, earlier: Sequence[tuple[str, str]], judge: Judge | None,
                   votes: int = 1) -> GateVerdict:
    """Rules, then (if they all pass) the judge's votes; returns the full verdict."""
    rules = check_rules(original, candidate, knowledge, earlier)
    rule_reasons = [r for result in rules for r in result.reasons]
    base = {"candidate_id": candidate_id, "task_id": task_id, "source": source, "rules": rules}
    if rule_reasons:
        return GateVerdict(**base, decision="reject", rejected_by="rule", reasons=rule_reasons)
    if judge is None:  # rule-only gate (used by the drift audit on a frozen set)
        return GateVerdict(**base, decision="pass")
    passed, cast, messages = judge_votes(judge, original, candidate, knowledge, votes)
    if passed:
        return GateVerdict(**base, votes=cast, judge_messages=messages, judge_model=judge.model, decision="pass")
    reasons = [v.reason_code for v in cast if not v.passed]
    reasons += ["judge:tie"] if sum(v.passed for v in cast) * 2 == len(cast) else []
    return GateVerdict(**base, votes=cast, judge_messages=messages, judge_model=judge.model, decision="reject",
                       rejected_by="judge", reasons=list(dict.fromkeys(reasons)))


def gate_candidates(candidates: Sequence[tuple[str, str]], *, task_id: str, source: str, original: str,
                    knowledge: ReferenceKnowledge, judge: Judge | None, votes: int = 1) -> list[GateVerdict]:
    """Gate (candidate_id, text) pairs in order; each is also checked against the ones before it."""
    verdicts: list[GateVerdict] = []
    earlier: list[tuple[str, str]] = []
    for candidate_id, text in candidates:
        verdicts.append(gate_candidate(candidate_id=candidate_id, task_id=task_id, source=source, original=original,
                                       candidate=text, knowledge=knowledge, earlier=earlier, judge=judge, votes=votes))
        earlier.append((candidate_id, text))
    return verdicts
