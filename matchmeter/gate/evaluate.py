"""`matchmeter gate eval`: how well the gate's rules and judge separate faithful from unfaithful rewrites.

The corpus (corpus/gate_corpus.jsonl) holds labelled rewrites of the suite's descriptions: a first line
`{"meta": {...}}` (seed and split), then one case per line with `task`, `label` (faithful/unfaithful),
`kind`, `candidate`, `split` (dev/test) and the Original's sha256. For every case the rules run on
(Original, candidate, the task's reference knowledge), and the judge, when given, votes on it
independently of the rules, so each layer's catch rate is measured alone and together ("both" = the
gate as deployed: a rejection by either). A faithful case rejected is a false rejection.

`corpus/gate_heldout.jsonl` (`--split heldout`) is the held-out v3 split, written before the gate-v3 rule
work and pinned (corpus/README.md); its cases carry `visibility` (rules / judge), which says whether a
slip counts toward the rules' catch rate. Cases without it count when their kind is in RULE_KINDS.
Each rate comes with its 95% Wilson interval (`wilson`).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from matchmeter.errors import UserError
from matchmeter.gate import verdict
from matchmeter.gate.answers import OracleRun
from matchmeter.gate.rules import ReferenceKnowledge, check_rules
from matchmeter.schema import sha256_text
from matchmeter.tasks.loader import load_task

CORPUS = Path(__file__).resolve().parent / "corpus" / "gate_corpus.jsonl"
HELDOUT = CORPUS.with_name("gate_heldout.jsonl")
# Kinds the rules are meant to catch in cases that carry no `visibility`. Length is not one: the length
# ratio is a warning for the judge (gate v3), so a padded or cut rewrite is the judge's to catch.
RULE_KINDS = ("literal", "number", "path", "prohibition", "command_leak", "step_list")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of k successes in n (0..1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class CaseResult(BaseModel):
    id: str
    task: str
    kind: str
    label: str
    rule_visible: bool = False
    rule_reasons: list[str] = Field(default_factory=list)
    judge_reasons: list[str] | None = None
    judge_cost_usd: float = 0.0

    @property
    def rules_reject(self) -> bool:
        return bool(self.rule_reasons)

    @property
    def judge_reject(self) -> bool | None:
        return None if self.judge_reasons is None else bool(self.judge_reasons)


class KindRow(BaseModel):
    kind: str
    label: str
    rule_visible: bool = False
    total: int = 0
    rules: int = 0
    judge: int | None = None
    both: int = 0


class EvalReport(BaseModel):
    corpus: str
    split: str
    judge_model: str | None = None
    judge_simulated: bool = False
    judge_cost_usd: float = 0.0
    rows: list[KindRow] = Field(default_factory=list)
    cases: list[CaseResult] = Field(default_factory=list)

    def rate(self, layer: str, kinds: tuple[str, ...] | None = None, label: str = "unfaithful",
             rule_visible: bool | None = None) -> tuple[int, int]:
        """(rejected, total) of a layer (rules/judge/both) over the rows of a label, optionally some kinds,
        optionally only the rule-visible (True) or judge-only (False) rows."""
        rows = [r for r in self.rows if r.label == label and (kinds is None or r.kind in kinds)
                and (rule_visible is None or r.rule_visible == rule_visible)]
        return sum(getattr(r, layer) or 0 for r in rows), sum(r.total for r in rows)


def load_corpus(path: Path | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = path or CORPUS
    if not path.is_file():
        raise UserError("gate corpus not found", str(path), "pass --corpus PATH to a gate_corpus.jsonl")
    meta: dict[str, Any] = {}
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"gate corpus line {n} is not JSON ({exc.msg})", str(path), "fix or regenerate the corpus") from exc
        if "meta" in row:
            meta = row["meta"]
            continue
        missing = {"id", "task", "label", "kind", "candidate", "split"} - set(row)
        if missing or row["label"] not in ("faithful", "unfaithful"):
            raise UserError(f"gate corpus line {n} lacks {sorted(missing) or 'a faithful/unfaithful label'}", str(path),
                            "every case needs id, task, label, kind, candidate, split")
        cases.append(row)
    return meta, cases


def _original(case: dict[str, Any], suite: Path, tasks: dict[str, Any], frozen_originals: dict[str, str],
              oracle: OracleRun | None = None) -> tuple[str, ReferenceKnowledge]:
    if case["task"] not in tasks:
        task_dir = suite / case["task"]
        if not (task_dir / "task.toml").is_file():
            raise UserError(f"gate corpus case {case['id']} names unknown task {case['task']}", str(suite),
                            "use a corpus written for this suite")
        task = load_task(task_dir)
        tasks[case["task"]] = (task.instruction, ReferenceKnowledge.of_task(task, oracle=oracle))
    original, knowledge = tasks[case["task"]]
    frozen = frozen_originals.get(case["task"])
    if frozen is not None and case.get("original_sha256") == sha256_text(frozen):
        original = frozen  # the description the case was written against (the task's may have changed since)
    if case.get("original_sha256") and case["original_sha256"] != sha256_text(original):
        raise UserError(f"gate corpus case {case['id']}: the description of {case['task']} changed since it was written",
                        str(suite / case["task"]), "regenerate the corpus (python -m matchmeter.gate.corpus.make_corpus)")
    return original, knowledge


def frozen_originals(corpus_path: Path | None = None) -> dict[str, str]:
    """The descriptions a corpus was written against (`<corpus>.originals.json`, else originals.json beside it),
    {} when there is none."""
    corpus_path = corpus_path or CORPUS
    own = corpus_path.with_name(f"{corpus_path.stem}.originals.json")
    path = own if own.is_file() else corpus_path.parent / "originals.json"
    try:
        return {str(k): str(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def evaluate(cases: list[dict[str, Any]], *, suite: Path, judge: Any = None, votes: int = 1,
             corpus_path: Path | None = None, oracle: OracleRun | None = None) -> list[CaseResult]:
    """Rules, and the judge when given, on every case; each layer independently. `oracle` runs a task's
    oracle in a sandbox for its answer values (answers.py); without it no case has any."""
    loaded: dict[str, Any] = {}
    originals = frozen_originals(corpus_path)
    out = []
    for case in cases:
        original, knowledge = _original(case, suite, loaded, originals, oracle)
        reasons = [r for res in check_rules(original, case["candidate"], knowledge) for r in res.reasons]
        visible = case["visibility"] == "rules" if case.get("visibility") else case["kind"] in RULE_KINDS
        result = CaseResult(id=case["id"], task=case["task"], kind=case["kind"], label=case["label"],
                            rule_visible=case["label"] == "unfaithful" and visible, rule_reasons=reasons)
        if judge is not None:
            passed, cast, _ = verdict.judge_votes(judge, original, case["candidate"], knowledge, votes)
            result.judge_reasons = [] if passed else [v.reason_code for v in cast if not v.passed] or ["judge:tie"]
            result.judge_cost_usd = sum(v.cost_usd or 0.0 for v in cast)
        out.append(result)
    return out


def tabulate(results: list[CaseResult], *, corpus: str, split: str, judge_model: str | None,
             simulated: bool) -> EvalReport:
    rows: dict[tuple[str, str, bool], KindRow] = {}
    for r in results:
        kind = r.kind.split(":", 1)[0] if r.label == "faithful" else r.kind
        row = rows.setdefault((r.label, kind, r.rule_visible), KindRow(kind=kind, label=r.label, rule_visible=r.rule_visible,
                                                                       judge=None if judge_model is None else 0))
        row.total += 1
        row.rules += int(r.rules_reject)
        if judge_model is not None:
            row.judge = (row.judge or 0) + int(bool(r.judge_reject))
        row.both += int(r.rules_reject or bool(r.judge_reject))
    order = defaultdict(lambda: 99, {k: i for i, k in enumerate(RULE_KINDS)})
    ordered = sorted(rows.values(), key=lambda r: (r.label != "unfaithful", not r.rule_visible, order[r.kind], r.kind))
    return EvalReport(corpus=corpus, split=split, judge_model=judge_model, judge_simulated=simulated,
                      judge_cost_usd=round(sum(r.judge_cost_usd for r in results), 6), rows=ordered, cases=results)
