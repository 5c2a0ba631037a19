"""Rule checks of the preservation gate: the candidate against the task contract, each failure a named reason.

The contract (contract.py) is extracted once per Original. A candidate must keep every path, literal,
number (with its unit and multiplicity), output format, prohibition (at least as strong) and scope
statement of it, with normalisation (`./x` = `x`, `x/` = `x`, whitespace, quoting, list vs prose); must
not leak what only the reference solution or the tests know, nor hand over a command the Original did
not give (commands.py: in backticks or prose, normalised to tool + arguments); must not add a step
list or a prose plan; must stay within 0.8×–3× of the Original's length (a shorter text almost always
dropped something, a much longer one is a tutorial); and must not repeat the Original or an earlier candidate.

Reasons look like `drops_literal:path:data/in.csv`, `changes_number:755 (2→1)`, `drops_prohibition:...`,
`drops_scope:...`, `leaks_reference:git log`, `adds_command:ls -lR`, `adds_step_list`,
`length_out_of_bounds:0.52`, `duplicate_candidate:original`. The gate may read the task's solution and
tests to detect leaks; the rewriter never sees them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from matchmeter.gate.commands import (
    COMMON_TOOLS,
    PROSE_VERBS,
    Command,
    commands_in,
    parse_shell,
    step_list_reasons,
)
from matchmeter.gate.contract import (
    BACKTICK,
    ContractItem,
    TaskContract,
    clause_objects,
    clauses,
    extract_contract,
    formats_in,
    is_prohibition,
    key_words,
    norm_path,
    numbers_in,
    paths_in,
    prohibiting_parts,
    strength,
)
from matchmeter.gate.contract import SCOPE as SCOPE_WORD
from matchmeter.schema import TaskSpec
from matchmeter.tasks.loader import verify_support_files
from matchmeter.tasks.oracle import own_solution, solve_script

LENGTH_BOUNDS = (0.8, 3.0)  # candidate chars / Original chars (choice; see module docstring)
PROHIBITION_WORDS = 0.6  # share of an object-less prohibition's key words the candidate's prohibitions must keep
FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
IDENT = re.compile(r"\b[A-Za-z_]\w*(?:[._]\w+)+\b|\b[a-z]+[A-Z]\w*\b")


class RuleResult(BaseModel):
    rule: str = Field(description="Rule name, e.g. keeps_contract, no_leak, length.")
    passed: bool
    reasons: list[str] = Field(default_factory=list, description="Named reasons; empty when passed.")


@dataclass
class ReferenceKnowledge:
    """What only the reference solution and the tests know (read by the gate, never by the rewriter)."""

    commands: list[str] = field(default_factory=list)
    parsed: list[Command] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)

    @property
    def tools(self) -> set[str]:
        return {c.tool for c in self.parsed}

    @classmethod
    def of_task(cls, task: TaskSpec) -> ReferenceKnowledge:
        commands = [c for path in task.reference_paths for c in path.commands]
        texts = list(commands)
        root = Path(task.path) if task.path else None
        if root is not None:
            for sub in ("solution", "tests"):
                for file in sorted((root / sub).glob("*")) if (root / sub).is_dir() else []:
                    if file.is_file() and file.stat().st_size < 200_000:
                        texts.append(file.read_text(encoding="utf-8", errors="replace"))
            if own_solution(task) is None and task.reference_paths:  # a built-in task's oracle lives in task.toml
                texts.append(solve_script(task.reference_paths[0].commands))
            # What the runner places beside tests/ at verify time is the verifier's knowledge too.
            texts += [f.read_text(encoding="utf-8", errors="replace") for f in verify_support_files(task).values()
                      if f.is_file()]
        knowledge = cls(commands=[" ".join(c.split()) for c in commands if len(c.strip()) >= 8],
                        parsed=[p for c in commands for p in parse_shell(c)])
        for text in texts:
            knowledge.tokens |= code_tokens(text)
        return knowledge


def code_tokens(text: str) -> set[str]:
    """Path-like tokens, long flags, dotted/underscored identifiers and quoted literals of a code text."""
    tokens = {p for p in paths_in(text) if "/" in p or "." in p}
    tokens |= {m.group(0) for m in FLAG.finditer(text) if len(m.group(0)) >= 3}
    tokens |= {m.group(0) for m in IDENT.finditer(text) if len(m.group(0)) >= 4}
    for m in re.finditer(r"\"([^\"\n]{4,80})\"|'([^'\n]{4,80})'", text):
        literal = (m.group(1) or m.group(2)).strip()
        if not literal.isalpha() and len(literal) >= 4:
            tokens.add(literal)
    return {t for t in tokens if len(t) >= 3}


@functools.lru_cache(maxsize=512)
def contract_of(original: str) -> TaskContract:
    return extract_contract(original)


def _flat(text: str) -> str:
    return " ".join(text.split())


def known_path(path: str, original: str) -> bool:
    """A path of the Original, or one joined from its paths ("`*.sh` in `site/bin/`" → `site/bin/*.sh`)."""
    known = _original_paths(original)
    if path in known:
        return True
    head, _, tail = path.rpartition("/")
    return bool(head) and head in known and (tail in known or tail == "")


@functools.lru_cache(maxsize=64)
def _original_paths(original: str) -> frozenset[str]:
    """paths_in(original), once per Original: no_leak asks known_path for every token the reference knows."""
    return frozenset(paths_in(original))


def literal_count(literal: str, text: str) -> int:
    """Occurrences of a literal as a whole token (`main` is not in `maintain`, `/health` not in `/healthz`)."""
    before = r"(?<!\w)" if re.match(r"\w", literal) else ""
    after = r"(?!\w)" if re.search(r"\w$", literal) else ""
    return len(re.findall(before + re.escape(literal) + after, text))


# ------------------------------------------------------------------ the rules


def keeps_contract(original: str, candidate: str) -> RuleResult:
    """Every path, literal, number (unit and multiplicity) and format of the contract is in the candidate."""
    contract, reasons = contract_of(original), []
    cand_paths, flat = set(paths_in(candidate)), _flat(candidate)
    for item in contract.of_kind("path"):
        bare = ("/" in item.norm or "." in item.norm) and re.search(rf"(?<![\w/.-]){re.escape(item.norm)}(?![\w-])", flat)
        if item.norm not in cand_paths and not bare:
            reasons.append(f"drops_literal:path:{item.text}")
    for item in contract.of_kind("literal"):
        if literal_count(item.norm, flat) < literal_count(item.norm, _flat(original)):
            kind = "quoted" if f'"{item.text}"' in original or f"`{item.text}`" in original else "literal"
            reasons.append(f"drops_literal:{kind}:{item.text[:60]}")
    cand_numbers = numbers_in(candidate)
    for item in contract.of_kind("number"):
        have = cand_numbers[(item.norm, item.unit)]
        if have < item.count:
            reasons.append(f"changes_number:{item.text} ({item.count}→{have})")
    cand_formats = set(formats_in(candidate))
    reasons += [f"drops_literal:format:{i.text}" for i in contract.of_kind("format") if i.norm not in cand_formats]
    return RuleResult(rule="keeps_contract", passed=not reasons, reasons=reasons)


def _objects_kept(item: ContractItem, cand_clauses: list[str]) -> bool:
    rank = {"": 0, "delete": 1, "change": 2}
    parts = [prohibiting_parts(c) for c in cand_clauses]
    for obj in item.objects:
        norm = norm_path(obj)
        if not any((norm in {norm_path(o) for o in clause_objects(p)} or obj in p) and rank[strength(p)] >= rank[item.strength]
                   for p in parts):
            return False
    return True


def keeps_prohibitions(original: str, candidate: str) -> RuleResult:
    """Each prohibition keeps its objects at least as strongly (don't touch ≥ don't delete); each scope
    statement ('only ...', 'except ...') keeps a scope word next to its key words. Split or re-punctuated
    clauses are fine: objects are matched per clause, object-less prohibitions by key words."""
    contract, reasons = contract_of(original), []
    cand = clauses(candidate)
    banned = [c for c in cand if is_prohibition(c)]
    banned_words = set(key_words(" ".join(banned)))
    for item in contract.of_kind("prohibition"):
        if item.objects:
            ok = _objects_kept(item, banned)
        else:
            ok = bool(banned) and len(set(item.words) & banned_words) >= PROHIBITION_WORDS * len(item.words)
        if not ok:
            reasons.append(f"drops_prohibition:{item.text[:60]}")
    scoped = [c for c in cand if SCOPE_WORD.search(c)]
    for item in contract.of_kind("scope"):
        objs = {norm_path(o) for o in item.objects}
        ok = any(objs <= {norm_path(o) for o in clause_objects(c)} | {norm_path(w) for w in c.split()}
                 and sum(w in key_words(c) for w in item.words) * 2 >= len(item.words) for c in scoped)
        if not ok:
            reasons.append(f"drops_scope:{item.text[:60]}")
    return RuleResult(rule="keeps_prohibitions", passed=not reasons, reasons=reasons)


def no_new_paths(original: str, candidate: str) -> RuleResult:
    """No invented artifact: every path of the candidate is a path (or text) of the Original, normalised."""
    flat = _flat(original)
    reasons = [f"adds_path:{p}" for p in paths_in(candidate) if not known_path(p, original) and p not in flat]
    return RuleResult(rule="no_new_paths", passed=not reasons, reasons=reasons)


def no_leak(original: str, candidate: str, knowledge: ReferenceKnowledge) -> RuleResult:
    """Nothing only the reference solution / tests know, and no command the Original did not give."""
    reasons: list[str] = []
    flat, flat_orig = _flat(candidate), _flat(original)
    reasons += [f"leaks_reference:{c[:60]}" for c in knowledge.commands if c in flat and c not in flat_orig]
    for token in sorted(knowledge.tokens):
        if token in original or norm_path(token) in flat_orig or known_path(norm_path(token), original):
            continue
        if re.search(rf"(?<![\w./-]){re.escape(token)}(?![\w-])", candidate):
            reasons.append(f"leaks_reference:{token}")
    tools = frozenset(COMMON_TOOLS | knowledge.tools)
    given = {c.head for c in commands_in(original, tools)} | {str(c) for c in commands_in(original, tools)}
    ref_heads = {c.head for c in knowledge.parsed} | {f"{c.tool} {a}" for c in knowledge.parsed for a in c.args}
    for cmd in commands_in(candidate, tools):
        if cmd.head in given or str(cmd) in given:
            continue
        leaked = cmd.head in ref_heads or any(f"{cmd.tool} {a}" in ref_heads for a in cmd.args)
        reasons.append(f"{'leaks_reference' if leaked else 'adds_command'}:{cmd.head}")
    for tool in sorted(knowledge.tools - PROSE_VERBS):  # "launch it with python3": the tool alone is the hint
        word = rf"(?<![\w./-]){re.escape(tool)}(?![\w-])"
        if re.search(word, candidate) and not re.search(word, original):
            reasons.append(f"leaks_reference:{tool}")
    for span in BACKTICK.findall(candidate):  # a quoted command line the Original did not give
        if span not in original and re.search(r"[|;&<>$]|\s-{1,2}\w", span) and not parse_shell(original):
            reasons.append(f"adds_backtick_command:{span[:60]}")
    return RuleResult(rule="no_leak", passed=not reasons, reasons=list(dict.fromkeys(reasons)))


def no_lowered_difficulty(original: str, candidate: str) -> RuleResult:
    """No step list, numbered or bulleted, and no prose plan the Original did not have."""
    reasons = step_list_reasons(original, candidate)
    return RuleResult(rule="no_lowered_difficulty", passed=not reasons, reasons=reasons)


def length_in_bounds(original: str, candidate: str) -> RuleResult:
    ratio = len(candidate.strip()) / max(1, len(original.strip()))
    ok = LENGTH_BOUNDS[0] <= ratio <= LENGTH_BOUNDS[1]
    return RuleResult(rule="length", passed=ok, reasons=[] if ok else [f"length_out_of_bounds:{ratio:.2f}"])


def not_duplicate(original: str, candidate: str, earlier: Sequence[tuple[str, str]]) -> RuleResult:
    """Not the Original again, nor an earlier candidate (id, text) of the same (task, source)."""
    norm = _flat(candidate).lower()
    if norm == _flat(original).lower():
        return RuleResult(rule="not_duplicate", passed=False, reasons=["duplicate_candidate:original"])
    for cid, text in earlier:
        if norm == _flat(text).lower():
            return RuleResult(rule="not_duplicate", passed=False, reasons=[f"duplicate_candidate:{cid}"])
    return RuleResult(rule="not_duplicate", passed=True)


def check_rules(original: str, candidate: str, knowledge: ReferenceKnowledge,
                earlier: Sequence[tuple[str, str]] = ()) -> list[RuleResult]:
    """Every rule, in a fixed order (so stored verdicts are stable)."""
    return [
        keeps_contract(original, candidate),
        keeps_prohibitions(original, candidate),
        no_new_paths(original, candidate),
        no_leak(original, candidate, knowledge),
        no_lowered_difficulty(original, candidate),
        length_in_bounds(original, candidate),
        not_duplicate(original, candidate, earlier),
    ]
