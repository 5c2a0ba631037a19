"""What `optimize` and `audit` report: the summary counts, the preservation audit, the rejected candidates.

The preservation audit re-runs the rule gate on every selected (non-fallback) description of the
frozen set against its Original: a description that fails now "drifted" (its text or the rules
changed since it was gated). It also counts how many selected descriptions carry a passing verdict.
`audit_descset` lists rejected candidates with their reasons, judge votes and a unified diff against
the Original, the task contract the rules checked it against (contract.py), and per broken obligation
the Original's words beside the rewrite's closest words (`side_by_side`), filtered by reason
prefix, task and source; a rewrite that gave no candidates is listed
as `rewrite_unparsable:<why>` with the reply in place of the diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from matchmeter.errors import UserError
from matchmeter.gate.contract import clauses
from matchmeter.gate.rules import ReferenceKnowledge, check_rules, contract_of
from matchmeter.gate.verdict import GateVerdict
from matchmeter.gate.vocabulary import content_words
from matchmeter.optimizer.freeze import FrozenSet
from matchmeter.optimizer.records import GENERIC, UnitState
from matchmeter.runner.oracle_outputs import oracle_outputs
from matchmeter.schema import TaskSpec

if TYPE_CHECKING:
    from matchmeter.llm.client import LMClient
    from matchmeter.optimizer.sourceside import SourceSide


class OptimizeSummary(BaseModel):
    descset: str
    descriptions_json: str
    digest: str
    simulated: bool
    units_run: int
    units_skipped: int
    generated: int = 0
    unparsable_rewrites: int = 0
    rejected_by_rule: int = 0
    rejected_by_judge: int = 0
    eligible: int = 0
    selected: int = Field(0, description="(task, source) units whose frozen text is a candidate.")
    fell_back: int = Field(0, description="(task, source) units that kept Original.")
    generic_selected: int = 0
    generic_fell_back: int = 0
    source_side_executions: int = 0
    source_side_cost_usd: float | None = Field(0.0, description="USD of the source-side executions; None when any is unpriced.")
    source_side_cost_null_reason: str | None = None
    source_side_unpriced: int = Field(0, description="Source-side executions whose cost is unknown.")
    lm_calls: int = Field(0, description="HTTP calls of the rewriter and judge in this invocation.")
    lm_cache_hits: int = 0
    lm_spend_usd: float = Field(0.0, description="New rewriter + judge spend in this invocation (cache hits cost 0).")
    lm_unpriced_calls: int = Field(0, description="New calls whose price is unknown: the spend is then unknown, not 0.")
    stub_calls: int | None = Field(None, description="Chat requests the built-in SIMULATED stub answered (agents included).")
    audit_selected: int = 0
    audit_passed: int = 0
    audit_drifted: list[str] = Field(default_factory=list)
    rejection_reasons: dict[str, int] = Field(default_factory=dict)
    judge_note: str = Field("", description="What the judge was measured to catch on the gate corpus (gate eval).")
    warnings: list[str] = Field(default_factory=list)


def drift_audit(frozen: FrozenSet, tasks: list[TaskSpec]) -> list[str]:
    """Re-run the rule gate on every selected description; returns `task/source: reasons` for each that fails."""
    by_id = {t.id: t for t in tasks}
    drifted = []
    for task_id, entry in sorted(frozen.tasks.items()):
        knowledge = ReferenceKnowledge.of_task(by_id[task_id], oracle=oracle_outputs) if task_id in by_id else ReferenceKnowledge()
        picked = [*entry.sources.items(), *([(GENERIC, entry.generic)] if entry.generic else [])]
        for src, e in picked:
            if e.fallback:
                continue
            reasons = [r for res in check_rules(entry.original["text"], e.text, knowledge) for r in res.reasons]
            if reasons:
                drifted.append(f"{task_id}/{src}: {', '.join(reasons)}")
    return drifted


def summarize(states: list[UnitState], frozen: FrozenSet, path: Path, tasks: list[TaskSpec], *, units_run: int,
              units_skipped: int, clients: tuple[LMClient, ...], source_side: SourceSide, warnings: list[str]) -> OptimizeSummary:
    s = OptimizeSummary(descset=str(path.parent), descriptions_json=str(path), digest=frozen.digest,
                        simulated=frozen.simulated, units_run=units_run, units_skipped=units_skipped,
                        warnings=warnings, source_side_executions=source_side.executed,
                        source_side_cost_usd=None if (usd := source_side.cost.usd) is None else round(usd, 6),
                        source_side_cost_null_reason=source_side.cost.null_reason,
                        source_side_unpriced=source_side.unpriced)
    for state in states:
        s.generated += len(state.rewrite.candidates)
        s.unparsable_rewrites += int(state.rewrite.parse_error is not None)
        for v in state.verdicts:
            s.rejected_by_rule += int(v.rejected_by == "rule")
            s.rejected_by_judge += int(v.rejected_by == "judge")
            s.eligible += int(v.passed)
            for reason in v.reasons:
                key = reason.split(":", 1)[0] if not reason.startswith("judge") else reason
                s.rejection_reasons[key] = s.rejection_reasons.get(key, 0) + 1
        chosen = state.selection.chosen_candidate_id
        if state.source == GENERIC:
            s.generic_selected += int(chosen is not None)
            s.generic_fell_back += int(chosen is None)
        else:
            s.selected += int(chosen is not None)
            s.fell_back += int(chosen is None)
        if chosen is not None:
            s.audit_selected += 1
            verdict = state.verdict(chosen)
            s.audit_passed += int(verdict is not None and verdict.passed)
    for client in clients:
        s.lm_calls += client.stats.http_calls
        s.lm_cache_hits += client.stats.hits
    for ledger in {id(c.spend): c.spend for c in clients}.values():  # clients may share one ledger (--spend-cap)
        s.lm_spend_usd += ledger.spent_usd
        s.lm_unpriced_calls += ledger.unpriced_calls
    s.lm_spend_usd = round(s.lm_spend_usd, 6)
    s.audit_drifted = drift_audit(frozen, tasks)
    return s


# ------------------------------------------------------------------ audit


class AuditEntry(BaseModel):
    task_id: str
    source: str
    candidate_id: str
    rejected_by: str | None
    reasons: list[str]
    votes: list[dict[str, Any]] = Field(default_factory=list)
    diff: str
    contract: list[str] = Field(default_factory=list, description="The task contract the rules checked (one item a line).")
    broken: list[dict[str, str]] = Field(default_factory=list, description="Per broken obligation: what it is, the "
                                         "Original's words and the rewrite's closest words (side by side).")


def read_states(descset: Path) -> list[UnitState]:
    root = Path(descset) / "state"
    if not root.is_dir():
        raise UserError("not a description set (no state/ directory)", str(descset),
                        "give the --out directory of `matchmeter optimize`")
    return [UnitState.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(root.glob("*/*.json"))]


def audit_descset(descset: Path, *, reason: str | None = None, task: str | None = None,
                  source: str | None = None) -> list[AuditEntry]:
    """Rejected candidates, optionally only those with a reason starting with `reason`, of `task`, of `source`."""
    entries = []
    for state in read_states(descset):
        if (task and state.task_id != task) or (source and state.source != source):
            continue
        error = state.rewrite.parse_error
        if error and (not reason or "rewrite_unparsable".startswith(reason)):
            entries.append(AuditEntry(task_id=state.task_id, source=state.source, candidate_id="-",
                                      rejected_by="rewriter", reasons=[f"rewrite_unparsable:{error}"],
                                      diff=state.rewrite.reply_text[:2000]))
        for verdict in state.verdicts:
            if verdict.passed or (reason and not any(r.startswith(reason) for r in verdict.reasons)):
                continue
            cand = state.candidate(verdict.candidate_id)
            diff = "".join(difflib.unified_diff(state.original_text.splitlines(keepends=True),
                                                (cand.text if cand else "").splitlines(keepends=True),
                                                fromfile="original", tofile=verdict.candidate_id))
            entries.append(AuditEntry(task_id=state.task_id, source=state.source, candidate_id=verdict.candidate_id,
                                      rejected_by=verdict.rejected_by, reasons=verdict.reasons,
                                      votes=[v.model_dump(exclude={"reply_text"}) for v in verdict.votes], diff=diff,
                                      contract=contract_of(state.original_text).render().splitlines()))
    return entries


def _closest(text: str, clauses_of: list[str]) -> str:
    """The clause sharing most content words with `text`, or '(nothing like it)'."""
    want = content_words(text)
    best = max(clauses_of, key=lambda c: len(want & content_words(c)), default="")
    return best if best and want & content_words(best) else "(nothing like it)"


def side_by_side(original: str, candidate: str, verdict: GateVerdict) -> list[dict[str, str]]:
    """Per reason of a rejection: the obligation broken, the Original's words and the rewrite's closest words."""
    orig_clauses, cand_clauses = clauses(original), clauses(candidate)
    items = {i.id: i for i in contract_of(original).items}
    out = []
    for reason in verdict.reasons:
        if reason.startswith("judge"):
            continue
        kind, _, detail = reason.partition(":")
        detail = detail.split(":", 1)[-1] if kind in ("drops_literal", "weakens_obligation") else detail
        said = next((c for c in orig_clauses if detail[:40] and detail[:40] in c), detail or kind)
        out.append({"obligation": reason, "original": said, "rewrite": _closest(said, cand_clauses)})
    for vote in verdict.votes:
        for item_id, status, note in vote.broken():
            item = items.get(item_id) if item_id is not None else None
            said = item.text if item else "(not in the Original)"
            rewrite = note if item is None else _closest(said, cand_clauses)
            out.append({"obligation": f"judge vote {vote.index + 1}: item {item_id or '-'} {status}: {note}"[:200],
                        "original": said, "rewrite": rewrite})
    return out
