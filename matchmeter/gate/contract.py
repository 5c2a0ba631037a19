"""The task contract: what a description binds the agent to, extracted once per task by deterministic code.

Items, each with an id the judge answers to:

- path: file and directory names, relative (`data/x.csv`, `x.csv`, `build/`) or absolute (`/api/`), quoted or
  not; normalised so `./x` = `x` and `x/` = `x`.
- literal: text the agent must reproduce or match: backtick spans, double-quoted strings, every line of a
  code block, and unquoted identifiers (`snake_case`, `dotted.names`, `KEY=value`, `--flags`).
- number: a value with its unit and how many times it occurs (`7 days` ×1, `755` ×2); digits and number
  words are the same value (`7` = `seven`, `double` = `×2`).
- prohibition: "don't / do not / never / must not ...", "leave / keep X alone, as it is, unchanged",
  "X stays as it is", with what they protect and how strongly (any change > deletion only).
- scope: "only ...", "except ...", "other than ...", "nothing else ...": the clause's key words.
- format: output formats (JSON, CSV, one per line, ...).
- requirement: sentences with must / should / needs to: for the judge only (their literals are items).

Numbers, paths and words inside code blocks belong to the block's literal lines, not to prose items.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

ItemKind = Literal["path", "literal", "number", "prohibition", "scope", "format", "requirement"]

FORMATS = ("json", "jsonl", "csv", "tsv", "yaml", "toml", "xml", "markdown", "html", "utf-8", "ascii",
           "lower case", "lowercase", "upper case", "uppercase", "one per line", "iso 8601", "yyyy-mm-dd")
NUMBER_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
                "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
                "hundred": "100", "double": "x2", "twice": "x2", "triple": "x3", "half": "x0.5", "halve": "x0.5"}
UNITS = {"day": "day", "days": "day", "hour": "hour", "hours": "hour", "minute": "minute", "minutes": "minute",
         "second": "second", "seconds": "second", "ms": "ms", "s": "second", "byte": "byte", "bytes": "byte",
         "km": "km", "mm": "mm", "%": "%", "percent": "%", "decimal": "decimal", "line": "line", "lines": "line",
         "character": "char", "characters": "char", "week": "week", "weeks": "week", "month": "month",
         "months": "month", "year": "year", "years": "year", "kb": "kb", "mb": "mb", "gb": "gb", "kib": "kb",
         "mib": "mb", "gib": "gb", "times": "times", "entries": "entry", "rows": "row", "files": "file"}
CODE_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
MARKER_BLOCK = re.compile(r"(?m)^-{3,}[^\n]*-{3,}\n(.*?)\n-{3,}[^\n]*-{3,}$", re.S)
INDENTED_BLOCK = re.compile(r"(?:(?<=\n\n)|^)((?: {4}|\t)[^\n]*(?:\n(?:(?: {4}|\t)[^\n]*|[ \t]*(?=\n(?: {4}|\t))))*)")
BACKTICK = re.compile(r"`([^`\n]+)`")
DQUOTED = re.compile(r"(?<![\w\\])\"([^\"\n]{1,120})\"")
PATH_TOKEN = re.compile(r"(?<![\w/.\-<>@$~\\])(?:\.{1,2}/|/)?(?:[\w.\-<>*@]+/)*[\w.\-<>*@]*(?:/|\.\.\.)?")
NAME_EXT = re.compile(r"[\w\-<>*@]+(?:\.[\w\-<>*@]+)*\.[A-Za-z][\w]{0,7}")
IDENT = re.compile(r"(?<![\w./-])(?:[A-Za-z_]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][A-Z0-9_]*=[^\s,;]+|--?[A-Za-z][\w-]+)(?![\w/])")
NUMBER = re.compile(r"(?<![\w.$\\/-])(\d+(?:\.\d+)?)(?:st|nd|rd|th)?(\s?%)?(?!\w|\.\d)")
CODEISH = re.compile(r"(?<![\w.])(?:\d+\.\d+\.\d+\.\d+(?::\d+)?|\d[x]{2}|[A-Z][A-Z0-9_]*-\d+)(?![\w.]\w)")
NOT_PATHS = frozenset({"i.e", "e.g", "etc", "vs", "i.e.", "e.g.", "..."})


class ContractItem(BaseModel):
    id: int
    kind: ItemKind
    text: str = Field(description="The item as the Original states it.")
    norm: str = Field("", description="Normalised form the rules compare.")
    count: int = Field(1, description="Occurrences in the Original (numbers: with this unit).")
    unit: str = ""
    strength: str = Field("", description="Prohibitions: 'change' (any change) or 'delete' (deletion only).")
    objects: list[str] = Field(default_factory=list, description="Prohibitions/scope: the paths and literals they protect.")
    words: list[str] = Field(default_factory=list, description="Prohibitions/scope: the clause's key words.")


class TaskContract(BaseModel):
    items: list[ContractItem] = Field(default_factory=list)

    def of_kind(self, kind: str) -> list[ContractItem]:
        return [i for i in self.items if i.kind == kind]

    def render(self) -> str:
        """One line per item, as the judge and `audit` show it."""
        lines = []
        for i in self.items:
            extra = f" ×{i.count}" if i.kind == "number" else ""
            extra += f" [{i.strength}]" if i.strength else ""
            lines.append(f"{i.id}. {i.kind}: {i.text}{extra}")
        return "\n".join(lines)


# ------------------------------------------------------------------ normalisation


def norm_path(token: str) -> str:
    token = token.strip().strip("`'\"").rstrip(".,:;)")
    while token.startswith("./"):
        token = token[2:]
    return token.rstrip("/") if token not in ("/", "") else token


def code_blocks(text: str) -> list[str]:
    found = [m.group(1) for m in CODE_FENCE.finditer(text)] + [m.group(1) for m in MARKER_BLOCK.finditer(text)]
    return found + [m.group(1) for m in INDENTED_BLOCK.finditer(CODE_FENCE.sub("", text))]


def prose(text: str) -> str:
    """The text without its code blocks (their content is literal lines, not prose)."""
    text = CODE_FENCE.sub("\n", text)
    text = MARKER_BLOCK.sub("\n", text)
    return INDENTED_BLOCK.sub("\n", text)


def _is_path(token: str, quoted: bool) -> bool:
    t = token.rstrip(".,:;")
    if not t or t.lower() in NOT_PATHS or re.fullmatch(r"[\d.:/]+", t) or t.startswith("--"):
        return False
    if NAME_EXT.fullmatch(t.rsplit("/", 1)[-1]) and not re.fullmatch(r"\w+\.\w+\(.*", t):
        return "/" in t or quoted or bool(re.search(r"\.[a-z]{1,5}$", t))
    if "/" not in t:
        return False
    if quoted or t.startswith(("/", "./", "../")) or t.endswith(("/", "...")):
        return True
    # unquoted a/b of plain words is prose ("file/directory", "day/month/year"), not a path
    return not all(re.fullmatch(r"[A-Za-z]+", part) for part in t.split("/"))


def paths_in(text: str) -> list[str]:
    """Path-like tokens of the prose (quoted or not), normalised, in order of appearance."""
    body, found = prose(text), []
    for span in BACKTICK.findall(body):
        found += [m.group(0) for m in PATH_TOKEN.finditer(span) if _is_path(m.group(0), True) and " " not in span.strip()]
    for m in PATH_TOKEN.finditer(BACKTICK.sub(" ", body)):
        if _is_path(m.group(0), False):
            found.append(m.group(0))
    return _unique(norm_path(p) for p in found if norm_path(p))


def literals_in(text: str) -> list[str]:
    """Backtick spans that are not bare paths, double-quoted strings, code-block lines and identifiers."""
    body, out = prose(text), []
    for block in code_blocks(text):
        out += [line.strip() for line in block.splitlines() if line.strip()]
    for span in BACKTICK.findall(body):
        s = span.strip()
        if not (_is_path(s, True) and " " not in s) and not re.fullmatch(r"\d+", s):
            out.append(s)
    out += [m.group(1).strip() for m in DQUOTED.finditer(BACKTICK.sub(" ", body))]
    plain = DQUOTED.sub(" ", BACKTICK.sub(" ", body))
    out += [m.group(0) for m in CODEISH.finditer(plain)]
    out += [m.group(0) for m in IDENT.finditer(plain) if len(m.group(0)) >= 4 and not _is_path(m.group(0), False)]
    return _unique(o for o in out if len(o) >= 2)


def numbers_in(text: str) -> Counter[tuple[str, str]]:
    """(value, unit) → occurrences in the prose: digits and number words, numbers inside paths/identifiers excluded."""
    body = prose(text)
    body = re.sub(r"`([^`\n]+)`", lambda m: f" {m.group(1)} " if re.fullmatch(r"\d+", m.group(1)) else " ", body)
    body = CODEISH.sub(" ", DQUOTED.sub(" ", body))
    body = PATH_TOKEN.sub(lambda m: " " if _is_path(m.group(0), False) else m.group(0), body)
    found: Counter[tuple[str, str]] = Counter()
    for m in NUMBER.finditer(body):
        if re.match(r"(?m)^\s*$", body[body.rfind("\n", 0, m.start()) + 1:m.start()]) and re.match(r"[.)]\s", body[m.end():]):
            continue  # a list item number ("1. the 95th ...") is layout, not a value
        found[(m.group(1).lstrip("0") or "0", _unit(m.group(2) or "", body[m.end():]))] += 1
    for m in re.finditer(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", body, re.I):
        found[(NUMBER_WORDS[m.group(1).lower()], _unit("", body[m.end():]))] += 1
    return found


def _unit(attached: str, after: str) -> str:
    if attached.strip() == "%":
        return "%"
    word = re.match(r"[\s-]*([A-Za-z%]+)", after)
    return UNITS.get(word.group(1).lower(), "") if word else ""


def formats_in(text: str) -> list[str]:
    low = prose(text).lower()
    return [f for f in FORMATS if re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", low)]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


# ------------------------------------------------------------------ prohibitions and scope

NEGATION = re.compile(r"\b(?:don't|do not|does not|doesn't|never|must not|mustn't|should not|shouldn't|"
                      r"may not|no need|not allowed|without|nor)\b|(?<![\w`])no (?=[a-z])", re.I)
KEEPING = re.compile(r"\b(?:leave|leaves|keep|keeps|stay|stays|remain|remains|preserve|preserved)\b(?:[^.;:\n]|\.(?=[\w/]))*?"
                     r"\b(?:alone|unchanged|untouched|as (?:it|they) (?:is|are|was|were)|where (?:it|they) (?:is|are)|"
                     r"exactly as|in place|intact|the same|out of|byte for byte|unmodified)\b|"
                     r"\b(?:nothing else|everything else|no other)\b(?:[^.;\n]|\.(?=\w))*?\b(?:change|stay|modif|touch|alter)", re.I)
SCOPE = re.compile(r"\b(?:only|exclusively|solely|nothing but|except|other than|apart from|excluding|but not)\b", re.I)
DELETE_VERBS = re.compile(r"\b(?:delete|remove|drop|rm|erase)\w*", re.I)
CHANGE_VERBS = re.compile(r"\b(?:touch|change|modify|edit|alter|rewrite|overwrite|move|rename|expand|escape|recreate|"
                          r"go into|install|create|tidy)\w*", re.I)
STOP = frozenset({"the", "and", "any", "anything", "its", "it's", "that", "this", "these", "those", "them", "they",
                  "you", "your", "are", "was", "were", "for", "with", "from", "into", "when", "but", "not", "don't",
                  "should", "must", "will", "also", "only", "just", "all", "every", "other", "else", "there", "what",
                  "which", "have", "has", "had", "can", "may", "each", "one", "their", "then", "than", "been",
                  "without", "never", "nor", "do", "does"})


def clauses(text: str) -> list[str]:
    """Sentences and list items of the prose, split also at ';' and ':' (a re-punctuated clause is the same clause)."""
    body = re.sub(r"(?m)^\s*(?:[-*•]|\d+[.)])\s+", "\n\n", prose(text))
    parts = re.split(r"(?<=[.!?])(?=\s)(?<!\be\.g\.)(?<!\bi\.e\.)|[;:]\s|\n\s*\n|\s[—–]\s", body)
    return [" ".join(p.split()) for p in parts if p and p.strip()]


def key_words(clause: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9_'’-]{2,}", BACKTICK.sub(" ", clause).lower())
    return _unique(w for w in words if w not in STOP)


def clause_objects(clause: str) -> list[str]:
    return _unique([*paths_in(clause), *(x for x in literals_in(clause) if " " not in x or len(x) < 40)])


def strength(clause: str) -> str:
    """'change' when the clause forbids any change, 'delete' when only deletion, '' when neither is named."""
    if KEEPING.search(clause) or CHANGE_VERBS.search(clause):
        return "change"
    return "delete" if DELETE_VERBS.search(clause) else ""


def is_prohibition(clause: str) -> bool:
    return bool(KEEPING.search(clause) or NEGATION.search(clause))


def prohibiting_parts(clause: str) -> str:
    """The comma / and-separated parts of a clause that prohibit (so "one `KEY=VALUE` per line, ..., no quotes
    are processed" protects nothing by its first part)."""
    parts = re.split(r",\s+(?:and|but)\s+|\s+\band\s+(?=(?:leave|keep|don't|do not|never)\b)", clause)
    return " ".join(_from_marker(p) for p in parts if is_prohibition(p)) or clause


def _from_marker(part: str) -> str:
    """A part whose negation comes after a comma ("..., sorted by key, without comments") prohibits from there on."""
    neg = NEGATION.search(part)
    if KEEPING.search(part) or neg is None:
        return part
    cut = part.rfind(", ", 0, neg.start())
    return part[cut + 2:] if cut >= 0 else part


def scope_words(clause: str) -> list[str]:
    """Key words after the scope marker: 'only that file' → ['file'], 'except the shell scripts' → [...]."""
    m = SCOPE.search(clause)
    return key_words(clause[m.end():])[:3] if m else []


# ------------------------------------------------------------------ the contract


def extract_contract(original: str) -> TaskContract:
    """The contract of a description: deterministic, no model involved."""
    items: list[ContractItem] = []

    def add(kind: ItemKind, text: str, **kw: object) -> None:
        items.append(ContractItem(id=len(items) + 1, kind=kind, text=text, **kw))

    ordered = paths_in(original)
    for p in ordered:
        add("path", p, norm=p)
    paths = set(ordered)
    for lit in literals_in(original):
        if norm_path(lit) not in paths:
            add("literal", lit, norm=" ".join(lit.split()))
    for (value, unit), n in sorted(numbers_in(original).items()):
        add("number", f"{value} {unit}".strip(), norm=value, unit=unit, count=n)
    for f in formats_in(original):
        add("format", f, norm=f)
    for clause in clauses(original):
        if is_prohibition(clause):
            part = prohibiting_parts(clause)
            add("prohibition", clause, strength=strength(part), objects=clause_objects(part), words=key_words(part))
        if (scope := SCOPE.search(clause)) and scope_words(clause):
            add("scope", clause, objects=clause_objects(clause[scope.start():]), words=scope_words(clause))
        elif re.search(r"\b(?:must|should|needs? to|has to|have to|exactly)\b", clause, re.I) and not is_prohibition(clause):
            add("requirement", clause)
    return TaskContract(items=items)
