"""Generic rewriter: one shared public-only rewrite per task (the Generic control of SPEC §3).

It sees the Original description and nothing else: no trajectory, no configuration identity, no
outcome, no evaluator metadata. Its N candidates pass the same gate as the source-conditioned ones;
with no source configuration to execute on, the first candidate (by index) that passes is the rewrite,
and the task falls back to Original when none passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matchmeter.gate.rules import ReferenceKnowledge
from matchmeter.gate.verdict import gate_candidates
from matchmeter.optimizer.records import GENERIC, Selection, UnitState
from matchmeter.optimizer.rewriter import request_candidates
from matchmeter.runner.oracle_outputs import oracle_outputs
from matchmeter.schema import TaskSpec, sha256_text

if TYPE_CHECKING:
    from matchmeter.gate.judge import Judge
    from matchmeter.llm.protocols import LMClientLike


def generic_unit(task: TaskSpec, rewriter: LMClientLike, judge: Judge | None, *, n: int, votes: int,
                 knowledge: ReferenceKnowledge | None = None) -> UnitState:
    """Rewrite from the public description, gate every candidate, keep the first that passes."""
    original = task.instruction
    outcome = request_candidates(rewriter, task_id=task.id, source=GENERIC, original=original, attempt=None, n=n,
                                 origin="generic")
    knowledge = knowledge or ReferenceKnowledge.of_task(task, oracle=oracle_outputs)
    verdicts = gate_candidates([(c.candidate_id, c.text) for c in outcome.candidates], task_id=task.id,
                               source=GENERIC, original=original, knowledge=knowledge, judge=judge, votes=votes)
    chosen = next((v.candidate_id for v in verdicts if v.passed), None)
    selection = Selection(chosen_candidate_id=chosen, fallback=chosen is None,
                          reason="first candidate that passed the gate" if chosen else "no candidate passed the gate")
    return UnitState(task_id=task.id, source=GENERIC, original_sha256=sha256_text(original), original_text=original,
                     rewrite=outcome, verdicts=verdicts, selection=selection)
