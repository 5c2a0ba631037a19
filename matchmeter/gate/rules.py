"""Rule checks of the preservation gate: cheap, deterministic, each failure a named reason.

A candidate description must keep every path, file name, number (ports included), quoted literal,
output format and prohibition of the Original; must not leak what only the reference solution or the
tests know (a path, flag, identifier, command or literal absent from the Original); must not lower
difficulty (added step lists, commands in backticks the Original did not give); must stay within
0.8×–3× of the Original's length (a shorter text almost always dropped something, a much longer one
is a tutorial); and must not repeat the Original or an earlier candidate.

Reasons look like `drops_literal:path:data/in.csv`, `changes_number:8080`, `leaks_reference:sed`,
`adds_step_list`, `adds_backtick_command:sort -u x`, `length_out_of_bounds:0.52`, `duplicate_candidate:original`.
The gate may read the task's solution and tests to detect leaks; the rewriter never sees them.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from matchmeter.schema import TaskSpec

LENGTH_BOUNDS = (0.8, 3.0)  # candidate chars / Original chars (choice; see module docstring)
STEP_LIST_SLACK = 1  # list items a candidate may add over the Original before it counts as a step list

FORMATS = ("json", "jsonl", "csv", "tsv", "yaml", "toml", "xml", "markdown", "html", "utf-8", "ascii",
           "lower case", "lowercase", "upper case", "uppercase", "sorted", "one per line", "iso 8601")
PROHIBITION = re.compile(r"\b(do not|don't|never|must not|mustn't|should not|shouldn't|no |not |without|"
                         r"only|alone|leave)\b", re.I)
PATH = re.compile(r"(?<![\w/.\-<>])(?:[\w.\-<>*]+/)+[\w.\-<>*]*|(?<![\w/.\-])[\w\-]+(?:\.[A-Za-z]\w{0,6})+\b")
NOT_PATHS = frozenset({"i.e", "e.g", "etc", "vs"})
# slash-joined word pairs of prose: never an invented artifact when a candidate uses them
PROSE_PAIRS = frozenset({"and/or", "input/output", "read/write", "yes/no", "true/false", "on/off", "he/she",
                         "client/server", "key/value", "stdin/stdout", "stdout/stderr", "success/failure"})
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w])")
SHELL_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                            "in", "function", "return", "continue", "break", "def", "class", "import", "from",
                            "with", "try", "except", "raise", "pass", "select", "time", "local"})
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n.*?\n\s*\1\b", re.S)
QUOTED = re.compile(r"`([^`\n]+)`|\"([^\"\n]{1,80})\"|(?<!\w)'([^'\n]{1,80})'(?!\w)")
LIST_ITEM = re.compile(r"(?m)^\s*(?:\d+[.)]|[-*•])\s+\S")
NUMBERED = re.compile(r"(?m)^\s*(?:\d+[.)]|step \d+[:.])\s+\S", re.I)
FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
IDENT = re.compile(r"\b[A-Za-z_][\w]*(?:[._][\w]+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
SHELL_META = re.compile(r"[|;&<>$]|\s-{1,2}\w")
# English words that are also common command names: a leak only when used as code, not as prose.
PROSE_COMMANDS = frozenset({"find", "sort", "cut", "head", "tail", "cat", "touch", "test", "file", "join",
                            "paste", "split", "date", "time", "kill", "wait", "true", "false", "read",
                            "type", "print", "set", "export", "cd", "ls", "mv", "cp", "rm", "echo", "mkdir",
                            "id", "sleep", "less", "more", "watch", "yes", "which", "tee", "install", "make",
                            "patch", "diff", "env", "fold", "expand"})


class RuleResult(BaseModel):
    rule: str = Field(description="Rule name, e.g. keeps_literals, no_leak, length.")
    passed: bool
    reasons: list[str] = Field(default_factory=list, description="Named reasons; empty when passed.")


@dataclass
class ReferenceKnowledge:
    """What only the reference solution and the tests know (read by the gate, never by the rewriter)."""

    commands: list[str] = field(default_factory=list)
    tools: set[str] = field(default_factory=set)
    tokens: set[str] = field(default_factory=set)

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
        knowledge = cls(commands=[" ".join(c.split()) for c in commands if len(c.strip()) >= 8])
        for text in texts:
            knowledge.tokens |= code_tokens(text)
        for command in commands:
            knowledge.tools |= tool_names(command)
        return knowledge


def tool_names(command: str) -> set[str]:
    """First word of every pipeline/list segment of a shell command."""
    names: set[str] = set()
    for segment in re.split(r"\|\||&&|[|;\n]|\$\(", HEREDOC.sub(" ", command)):
        words = segment.strip().split()
        while words and ("=" in words[0] or words[0] in ("sudo", "nohup", "env", "exec", "then", "do", "(")):
            words = words[1:]
        if words and re.fullmatch(r"[a-z][\w.+-]*", words[0]) and words[0] not in SHELL_KEYWORDS:
            names.add(words[0])
    return names


def code_tokens(text: str) -> set[str]:
    """Path-like tokens, flags, dotted/underscored identifiers and quoted literals of a code text."""
    tokens = {m.group(0).rstrip(".") for m in PATH.finditer(text)}
    tokens |= {m.group(0) for m in FLAG.finditer(text) if len(m.group(0)) >= 3}
    tokens |= {m.group(0) for m in IDENT.finditer(text) if len(m.group(0)) >= 4}
    for m in QUOTED.finditer(text):
        literal = next(g for g in m.groups() if g is not None).strip()
        if len(literal) >= 4 and not literal.isalpha():
            tokens.add(literal)
    return {t for t in tokens if len(t) >= 3}


def _clean_path(token: str) -> str:
    token = token.rstrip(".,:;")
    while token.endswith(">") and token.count(">") > token.count("<"):
        token = token[:-1]
    return token


def paths_in(text: str) -> list[str]:
    found = (_clean_path(m.group(0)) for m in PATH.finditer(text))
    return _unique(t for t in found if not _is_number(t) and t.lower() not in NOT_PATHS)


def numbers_in(text: str) -> list[str]:
    without_paths = PATH.sub(" ", text)
    return _unique(m.group(0) for m in NUMBER.finditer(without_paths))


def quoted_in(text: str) -> list[str]:
    return _unique(next(g for g in m.groups() if g is not None) for m in QUOTED.finditer(text))


def formats_in(text: str) -> list[str]:
    low = text.lower()
    return [f for f in FORMATS if re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", low)]


def prohibitions_in(text: str) -> list[str]:
    sentences = re.split(r"(?<=[.!?])\s+|\n\s*\n", text)
    return [" ".join(s.split()) for s in sentences if PROHIBITION.search(s)]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _is_number(token: str) -> bool:
    return bool(re.fullmatch(r"\d+(\.\d+)?", token))


def _content_words(sentence: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9_/.\-]{3,}", sentence.lower()) if w not in {"the", "and", "you", "are"}}


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


# ------------------------------------------------------------------ the rules (one-method callables)


def keeps_literals(original: str, candidate: str) -> RuleResult:
    """Every path, number, quoted literal and output format of the Original is still in the candidate."""
    reasons = [f"drops_literal:path:{p}" for p in paths_in(original) if p not in candidate]
    reasons += [f"changes_number:{n}" for n in numbers_in(original) if n not in numbers_in(candidate)]
    reasons += [f"drops_literal:quoted:{q}" for q in quoted_in(original) if q not in candidate]
    low = candidate.lower()
    reasons += [f"drops_literal:format:{f}" for f in formats_in(original) if f not in low]
    return RuleResult(rule="keeps_literals", passed=not reasons, reasons=reasons)


def keeps_prohibitions(original: str, candidate: str) -> RuleResult:
    """Each prohibition sentence of the Original survives: a prohibiting candidate sentence with its
    literals and at least 60% of its content words."""
    kept = prohibitions_in(candidate)
    reasons = []
    for sentence in prohibitions_in(original):
        needed, literals = _content_words(sentence), paths_in(sentence) + quoted_in(sentence)
        ok = any(all(lit in c for lit in literals) and len(needed & _content_words(c)) >= 0.6 * len(needed)
                 for c in kept)
        if not ok:
            reasons.append(f"drops_prohibition:{sentence[:60]}")
    return RuleResult(rule="keeps_prohibitions", passed=not reasons, reasons=reasons)


def no_new_paths(original: str, candidate: str) -> RuleResult:
    """No invented artifact: every path-like token of the candidate appears in the Original."""
    reasons = [f"adds_path:{p}" for p in paths_in(candidate) if p not in original and p.lower() not in PROSE_PAIRS]
    return RuleResult(rule="no_new_paths", passed=not reasons, reasons=reasons)


def no_leak(original: str, candidate: str, knowledge: ReferenceKnowledge) -> RuleResult:
    """Nothing only the reference solution / tests know: whole commands, tokens, or tools used as code."""
    reasons: list[str] = []
    flat = " ".join(candidate.split())
    reasons += [f"leaks_reference:{c[:60]}" for c in knowledge.commands if c in flat and c not in original]
    for token in sorted(knowledge.tokens):
        if token not in original and re.search(rf"(?<![\w]){re.escape(token)}(?![\w])", candidate):
            reasons.append(f"leaks_reference:{token}")
    code = " ".join(span for span in _code_spans(candidate))
    for tool in sorted(knowledge.tools):
        if re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", original):
            continue
        as_code = re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", code)
        as_word = tool not in PROSE_COMMANDS and re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", candidate)
        if as_code or as_word:
            reasons.append(f"leaks_reference:{tool}")
    return RuleResult(rule="no_leak", passed=not reasons, reasons=_unique(reasons))


def _code_spans(text: str) -> list[str]:
    spans = re.findall(r"`([^`\n]+)`", text)
    spans += re.findall(r"```[\w-]*\n(.*?)```", text, re.S)
    spans += [line for line in text.splitlines() if line.startswith(("$ ", "    "))]
    return spans


def no_lowered_difficulty(original: str, candidate: str) -> RuleResult:
    """No step list and no command in backticks that the Original did not give."""
    reasons: list[str] = []
    added_items = len(LIST_ITEM.findall(candidate)) - len(LIST_ITEM.findall(original))
    if len(NUMBERED.findall(candidate)) > len(NUMBERED.findall(original)) or added_items > STEP_LIST_SLACK:
        reasons.append("adds_step_list")
    for span in re.findall(r"`([^`\n]+)`", candidate):
        if span in original:
            continue
        if SHELL_META.search(span) or (" " in span.strip() and _looks_like_command(span)):
            reasons.append(f"adds_backtick_command:{span[:60]}")
    return RuleResult(rule="no_lowered_difficulty", passed=not reasons, reasons=_unique(reasons))


def _looks_like_command(span: str) -> bool:
    try:
        words = shlex.split(span)
    except ValueError:
        return True
    return bool(words) and re.fullmatch(r"[a-z][\w.+-]*", words[0]) is not None


def length_in_bounds(original: str, candidate: str) -> RuleResult:
    ratio = len(candidate.strip()) / max(1, len(original.strip()))
    ok = LENGTH_BOUNDS[0] <= ratio <= LENGTH_BOUNDS[1]
    return RuleResult(rule="length", passed=ok, reasons=[] if ok else [f"length_out_of_bounds:{ratio:.2f}"])


def not_duplicate(original: str, candidate: str, earlier: Sequence[tuple[str, str]]) -> RuleResult:
    """Not the Original again, nor an earlier candidate (id, text) of the same (task, source)."""
    norm = _normalise(candidate)
    if norm == _normalise(original):
        return RuleResult(rule="not_duplicate", passed=False, reasons=["duplicate_candidate:original"])
    for cid, text in earlier:
        if norm == _normalise(text):
            return RuleResult(rule="not_duplicate", passed=False, reasons=[f"duplicate_candidate:{cid}"])
    return RuleResult(rule="not_duplicate", passed=True)


def check_rules(original: str, candidate: str, knowledge: ReferenceKnowledge,
                earlier: Sequence[tuple[str, str]] = ()) -> list[RuleResult]:
    """Every rule, in a fixed order (so stored verdicts are stable)."""
    return [
        keeps_literals(original, candidate),
        keeps_prohibitions(original, candidate),
        no_new_paths(original, candidate),
        no_leak(original, candidate, knowledge),
        no_lowered_difficulty(original, candidate),
        length_in_bounds(original, candidate),
        not_duplicate(original, candidate, earlier),
    ]
