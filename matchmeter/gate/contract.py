"""The task contract: what a description binds the agent to, extracted once per task by deterministic code.

Items, each with an id the judge answers to:

- path: file and directory names, relative (`data/x.csv`, `x.csv`, `build/`) or absolute (`/api/`), quoted or
  not; normalised so `./x` = `x` and `x/` = `x`.
- literal: text the agent must reproduce or match: backtick spans, double-quoted strings, every line of a
  code block, and unquoted identifiers (`snake_case`, `dotted.names`, `KEY=value`, `--flags`).
- number: a value with its unit and how many times it occurs (`7 days` ×1, `755` ×2); digits and number
  words are the same value (`7` = `seven`, `double` = `×2`).
- prohibition: one per directive obligation (obligations.py: "don't / never / must not ...", "leave / keep /
  preserve X as it is, unchanged", "X stays as it is"; a descriptive "has no row that day" is none), with
  what it protects and how strongly (any change > deletion only).
- scope: "only ...", "except ...", "other than ...", "nothing else ...": the clause's key words.
- format: output formats (JSON, CSV, one per line, ...).
- requirement: every other clause of the prose (what to do, definitions, time zones, orders): for the
  judge's checklist only (their literals and numbers are items of their own).

Numbers, paths and words inside code blocks belong to the block's literal lines, not to prose items.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from matchmeter.gate.vocabulary import (
    BACKTICK,
    CHANGE,
    FAMILY,
    HEDGES,
    IMPERATIVE_NOT,
    KEEPING,
    MODAL_NOT,
    PHRASE_STOP,
    REST_KEPT,
    content_words,
)

ItemKind = Literal["path", "literal", "number", "prohibition", "scope", "format", "requirement"]

FORMATS = ("json", "jsonl", "csv", "tsv", "yaml", "toml", "xml", "markdown", "html", "utf-8", "ascii",
           "lowercase", "uppercase", "one per line", "iso 8601", "yyyy-mm-dd")
NUMBER_WORDS = {"zero": "0", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
                "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
                "hundred": "100", "double": "x2", "doubled": "x2", "twice": "x2", "triple": "x3", "tripled": "x3",
                "half": "x0.5", "halve": "x0.5", "halved": "x0.5"}
UNITS = {"day": "day", "days": "day", "hour": "hour", "hours": "hour", "minute": "minute", "minutes": "minute",
         "second": "second", "seconds": "second", "ms": "ms", "s": "second", "byte": "byte", "bytes": "byte",
         "km": "km", "mm": "mm", "%": "%", "percent": "%", "decimal": "decimal", "decimals": "decimal", "line": "line", "lines": "line",
         "character": "char", "characters": "char", "week": "week", "weeks": "week", "month": "month",
         "months": "month", "year": "year", "years": "year", "kb": "kb", "mb": "mb", "gb": "gb", "kib": "kb",
         "mib": "mb", "gib": "gb", "times": "times", "entries": "entry", "rows": "row", "files": "file"}
MEASURES = frozenset({"day", "hour", "minute", "second", "ms", "byte", "km", "mm", "%", "decimal", "char", "week",
                      "month", "year", "kb", "mb", "gb", "times"})
CODE_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
MARKER_BLOCK = re.compile(r"(?m)^-{3,}[^\n]*-{3,}\n(.*?)\n-{3,}[^\n]*-{3,}$", re.S)
INDENTED_BLOCK = re.compile(r"(?:(?<=\n\n)|^)((?: {4}|\t)[^\n]*(?:\n(?:(?: {4}|\t)[^\n]*|[ \t]*(?=\n(?: {4}|\t))))*)")
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
    phrases: list[list[str]] = Field(default_factory=list, description="Prohibitions: key words of each thing it "
                                     "protects that has no path or literal (\"`a.sql` and the CSV files\").")


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


def plain_number(digits: str) -> str:
    """A number as the rules compare it: leading zeros dropped, but not the one before a decimal point ("007" →
    "7", "0.118" stays "0.118")."""
    return re.sub(r"^0+(?=\d)", "", digits)


def numbers_in(text: str) -> Counter[tuple[str, str]]:
    """(value, unit) → occurrences in the prose: digits and number words, numbers inside paths/identifiers excluded."""
    body = prose(text)
    body = re.sub(r"`([^`\n]+)`", lambda m: f" {m.group(1)} " if re.fullmatch(r"\d+", m.group(1)) else " ", body)
    body = CODEISH.sub(" ", DQUOTED.sub(" ", re.sub(r"(?i)\biso[- ]?8601\b", " ", body)))  # a standard's name
    body = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", body)  # "1,000" is 1000
    body = PATH_TOKEN.sub(lambda m: " " if _is_path(m.group(0), False) else m.group(0), body)
    found: Counter[tuple[str, str]] = Counter()
    for m in NUMBER.finditer(body):
        if re.match(r"(?m)^\s*$", body[body.rfind("\n", 0, m.start()) + 1:m.start()]) and re.match(r"[.)]\s", body[m.end():]):
            continue  # a list item number ("1. the 95th ...") is layout, not a value
        found[(plain_number(m.group(1)), _unit(m.group(2) or "", body[m.end():]))] += 1
    for m in re.finditer(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", body, re.I):
        found[(NUMBER_WORDS[m.group(1).lower()], _unit("", body[m.end():]))] += 1
    return found


def _unit(attached: str, after: str) -> str:
    """The unit of a number: attached (%), or the first of the next two words that is one ("three settings files")."""
    if attached.strip() == "%":
        return "%"
    head = re.match(r"[\s-]*(?:[A-Za-z%]+[\s-]+)?[A-Za-z%]*", after)  # always matches (all parts optional)
    for word in re.findall(r"[A-Za-z%]+", head.group(0) if head else "")[:2]:
        if word.lower() in UNITS:
            return UNITS[word.lower()]
    return ""


def enumerates(text: str, value: str, back: bool = False) -> bool:
    """Every mention of the number introduces a list that follows it ("three changes, please: ...", "two
    things:"): the count describes the list, which the rules check item by item, so it is not a value. With
    `back` (a candidate's new values) a mention may also count what was named before it ("these two files");
    an Original's "these two lines" may count the block after it, whose size is then the Original's to keep."""
    words = [w for w, v in NUMBER_WORDS.items() if v == value] + ([value] if value.isdigit() else [])
    body = prose(text)
    hits = [m for w in words for m in re.finditer(rf"(?<![\w.]){re.escape(w)}\b", body, re.I)
            if not re.match(r"[.)]\s", body[m.end():m.end() + 2]) or body[:m.start()].strip(" \t")[-1:] not in ("\n", "")]
    if back:  # "these two files": a count of what was already named, no value of its own
        own = [m for m in hits if not re.search(r"\b(?:these|those)\s+$", body[max(0, m.start() - 8):m.start()], re.I)]
        if hits and not own:
            return True
        hits = own
    if any(_unit("", body[m.end():]) in MEASURES for m in hits):
        return False  # "the last 24 hours: `name` becomes ..." measures, it does not count a list
    follow = re.compile(r"(?:\s+(?:[^\s:;.]|\.(?=\w))+){1,5}:(?:\s|$)")
    return bool(hits) and all(follow.match(body, m.end()) or _counts_list(body, m.end(), value) for m in hits)


LIST_ITEM = re.compile(r"(?m)^\s*(?:[-*•]|\d+[.)])\s+\S")
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def _counts_list(body: str, at: int, value: str) -> bool:
    """The paragraph of a number ends with ':' and the list right after it has that many items ("I need two
    figures from `x.csv` (one row per household; ...):" then two bullets), however long the paragraph is."""
    end = PARAGRAPH_BREAK.search(body, at)
    if end is None or not body[at:end.start()].rstrip().endswith(":") or not value.isdigit():
        return False
    block = re.split(r"\n\s*\n(?!\s*(?:[-*•]|\d+[.)])\s)", body[end.end():], maxsplit=1)[0]
    return len(LIST_ITEM.findall(block)) == int(value)


# other spellings of a format ("lower-case" is lowercase); the contract's items come from these
FORMAT_FORMS = {"lowercase": r"lower[- ]?cased?", "uppercase": r"upper[- ]?cased?", "utf-8": r"utf-?8",
                "iso 8601": r"iso[- ]?8601"}
# formats read only when comparing a candidate (drops, swaps), not as contract items of their own: the judge
# answers the contract by item id, and recorded replies key on those ids
MORE_FORMS = {"semicolon-separated": r"semicolons?[- ](?:separated|delimited)|(?:separat|delimit)\w* (?:the )?(?:fields|columns|"
                                     r"values) (?:with|by) (?:a )?semicolons?",
              "one per line": r"one (?:[\w-]+ )?(?:per|a|on each|to a) line|(?:each|every) (?:[\w-]+ )?on (?:its|a) own line",
              "jsonl": r"json[- ]?lines|ndjson|newline[- ]delimited json", "tsv": r"tab[- ](?:separated|delimited)",
              "latin-1": r"latin-?1|iso[- ]?8859-1", "yaml": r"yml", "unix time": r"unix (?:time|timestamps?|epoch)|epoch seconds"}
# formats that exclude each other: a rewrite that names another member of a group the Original names has changed it
FORMAT_GROUPS = (frozenset({"json", "jsonl", "csv", "tsv", "yaml", "toml", "xml", "markdown", "html", "semicolon-separated"}),
                 frozenset({"lowercase", "uppercase"}), frozenset({"utf-8", "ascii", "latin-1"}),
                 frozenset({"iso 8601", "yyyy-mm-dd", "unix time"}))


def formats_in(text: str, every_form: bool = True) -> list[str]:
    low = prose(text).lower()
    found = [f for f in FORMATS if re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", low)]
    forms = {**FORMAT_FORMS, **(MORE_FORMS if every_form else {})}
    found += [f for f, spelled in forms.items() if re.search(rf"(?<![\w-])(?:{spelled})(?![\w-])", low)]
    return _unique(found)


TAB, SPACES = re.compile(r"(?<![\w-])tabs?(?![\w-])", re.I), re.compile(r"\bspaces\b", re.I)


def changed_formats(original: str, candidate: str) -> list[str]:
    """Formats the candidate names that exclude one the Original names ("JSON" → "JSON Lines", "UTF-8" →
    "Latin-1"); naming one of a group the Original does not touch is no change."""
    before, after = set(formats_in(original)), set(formats_in(candidate))
    swapped = sorted(f for f in after - before for group in FORMAT_GROUPS if f in group and group & before)
    # indentation: "one tab" → "four spaces" (a rewrite that still says tab, "a tab, not spaces", keeps it)
    said, says = prose(original), prose(candidate)
    if TAB.search(said) and not TAB.search(says) and SPACES.search(says) and not SPACES.search(said):
        swapped.append("spaces")
    return swapped


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


# ------------------------------------------------------------------ prohibitions and scope

SCOPE = re.compile(r"\b(?:only|exclusively|solely|nothing but|except|other than|apart from|excluding|but not)\b", re.I)
STOP = frozenset({"the", "and", "any", "anything", "its", "it's", "that", "this", "these", "those", "them", "they",
                  "you", "your", "are", "was", "were", "for", "with", "from", "into", "when", "but", "not", "don't",
                  "should", "must", "will", "also", "only", "just", "all", "every", "other", "else", "there", "what",
                  "which", "have", "has", "had", "can", "may", "each", "one", "their", "then", "than", "been",
                  "without", "never", "nor", "do", "does"})


def clauses(text: str) -> list[str]:
    """Sentences and list items of the prose, split also at ';' and ':' (a re-punctuated clause is the same clause)."""
    body = re.sub(r"(?m)^\s*(?:[-*•]|\d+[.)])\s+", "\n\n", prose(text).replace("’", "'").replace("‘", "'"))
    # a code span is one token: "`TOTAL: <amount>` line" is not split at its colon (spaces held as NUL meanwhile)
    body = BACKTICK.sub(lambda m: m.group(0).replace(" ", "\0"), body)
    parts = re.split(r"(?<=[.!?])(?=\s)(?<!\be\.g\.)(?<!\bi\.e\.)|[;:]\s|\n\s*\n|\s[—–]\s", body)
    return [" ".join(p.split()).replace("\0", " ") for p in parts if p and p.strip()]


def key_words(clause: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9_'’-]{2,}", BACKTICK.sub(" ", clause).lower())
    return _unique(w for w in words if w not in STOP)


def clause_objects(clause: str) -> list[str]:
    return _unique([*paths_in(clause), *(x for x in literals_in(clause) if " " not in x or len(x) < 40)])


def scope_span(clause: str) -> str:
    """What the scope marker binds: the words after it ('only that file', 'except the shell scripts'), or for a
    trailing 'only' the words before it in its stretch of the clause ('(Python 3, standard library only)')."""
    m = SCOPE.search(clause)
    if m is None:
        return ""
    if m.group(0).lower() == "only" and re.match(r"\s*(?:[).,;:!?]|$)", clause[m.end():]):
        return re.split(r"[(,;:]", clause[:m.start()])[-1]
    return clause[m.start():]


def scope_words(clause: str) -> list[str]:
    """Key words of what the scope marker binds (scope_span): 'only that file' → ['file'], 'standard library
    only' → ['standard', 'library']."""
    span = scope_span(clause)
    return key_words(SCOPE.sub(" ", span, count=1))[:3] if span else []


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
    for f in formats_in(original, every_form=False):
        add("format", f, norm=f)
    split = clauses(original)
    for n, clause in enumerate(split):
        for ob in obligations(clause, split[n - 1] if n else ""):
            add("prohibition", ob.text, strength={2: "change", 1: "delete"}.get(ob.strength, ""), objects=ob.objects,
                words=sorted(ob.words), phrases=[sorted(p) for p in ob.phrases])
        if SCOPE.search(clause) and scope_words(clause):
            add("scope", clause, objects=clause_objects(scope_span(clause)), words=scope_words(clause))
        elif not forbids(clause) and len(key_words(clause)) >= 2:
            add("requirement", clause)  # every other sentence states what the task is: the judge's checklist
    return TaskContract(items=items)


# ------------------------------------------------------------------ obligations (matched in obligations.py)

def parts(clause: str) -> list[str]:
    """A clause's conjoined parts: "Don't change X, and leave Y alone" → two parts."""
    pieces = re.split(r",\s+(?:and|but|so)\s+|;\s*|\s+\band\s+(?=(?:leave|keep|don't|do not|never)\b)|,\s+(?=(?:don't|do not|never|keep|leave)\b)|"
                      r"\s\((?=(?:don't|do not|never)\b)",
                      clause, flags=re.I)
    return [p for p in pieces if p.strip()]


# "if the backend can't be reached, ... answers 502": a negated modal inside a condition describes a case
# (a reason, "since those can't be used", restates a prohibition as a fact: still read as one)
CONDITION = re.compile(r"\b(?:if|when|whenever|unless|whether|once|where)\b[^,;:]*$", re.I)


def _modal_not(part: str) -> bool:
    return any(not CONDITION.search(part[:m.start()]) for m in MODAL_NOT.finditer(part))


def is_directive(part: str) -> bool:
    """A part that forbids something of the agent (see the module docstring), not one that describes."""
    return bool(KEEPING.search(part) or REST_KEPT.search(part) or _modal_not(part) or IMPERATIVE_NOT.search(part))


def forbids(clause: str) -> bool:
    return any(is_directive(p) for p in parts(clause))


def strength(text: str) -> int:
    """2: any change is forbidden; 1: only deletion; 0: neither is named."""
    if KEEPING.search(text) or REST_KEPT.search(text):
        return 2
    verbs = [m.group(0).lower() for m in re.finditer(rf"\b{CHANGE}", text, re.I)]
    if any(not re.match(r"(?:delet|remov|drop)", v) for v in verbs):
        return 2
    return 1 if verbs or re.search(r"\b(?:rm|erase)\b", text, re.I) else 0


@dataclass
class Obligation:
    text: str
    objects: list[str] = field(default_factory=list)
    words: set[str] = field(default_factory=set)
    strength: int = 0
    hedged: bool = False
    phrases: list[set[str]] = field(default_factory=list)


def protected_span(part: str) -> str:
    """The words of a directive part that name what it protects: for a keeping statement the subject and what
    stands between the verb and its ending ("`main` remains unchanged", "leave `vendor/` as it is", not
    "stay based on the same `main` commit"); for a negation the whole part."""
    if MODAL_NOT.search(part) or IMPERATIVE_NOT.search(part):
        return part
    m = KEEPING.search(part)
    if m and m.group(0).lower().endswith("out of"):  # "kept out of `x`" protects `x` from what is kept out
        return part
    return part[:m.end()] if m else part


ANAPHORA = re.compile(r"\b(?:it|them|they|this|that|these|those)\b", re.I)


def referents(clause: str, previous: str, most: int = 99) -> list[str]:
    """What a pronoun of a directive part may stand for: the objects of its clause's descriptive parts
    ("`x.json` is shared, so don't change it"), else those of the clause before, if there are at most `most`."""
    own = [o for q in parts(clause) if not is_directive(q) for o in clause_objects(q)]
    before = clause_objects(previous) if previous else []
    return own or (before if len(before) <= most else [])


def obligations(clause: str, previous: str = "") -> list[Obligation]:
    """The directive parts of a clause, one obligation each. A part that names what it protects only by a
    pronoun ("`x.json` is shared: don't change it") protects the objects of its clause, or else the one object
    of the clause before it."""
    out = []
    for whole in parts(clause):
        # "Fit a line to `x.csv` (weeks not in yet can't be used)": the aside forbids, the rest describes
        asides = [a for a in re.findall(r"\(([^)]*)\)", whole) if is_directive(a)]
        for part in asides if asides and not is_directive(re.sub(r"\([^)]*\)", " ", whole)) else [whole]:
            if not is_directive(part):
                continue
            objects = clause_objects(protected_span(part))
            bare = re.sub(r"\b(?:as|where) (?:it|they) (?:is|are|was|were|stands?|did)\b|\([^)]*\)", " ", part, flags=re.I)
            if not objects and ANAPHORA.search(bare.split(",")[0]):  # "don't rewrite history, others pulled it" names it
                objects = referents(clause, previous, most=1)
            out.append(Obligation(text=part, objects=objects, words=content_words(part), strength=strength(part),
                                  hedged=bool(HEDGES.search(part)),
                                  phrases=phrases(protected_span(part)) if objects and strength(part) else []))
    return out


def phrases(span: str) -> list[set[str]]:
    """The conjuncts of what a part protects that name no path or literal, by their key words: "Keep
    `schema.sql` and the CSV files unchanged" protects `schema.sql` and {csv, file}. Verbs of the keep/change
    family are no part of it ("Don't delete or change anything under `data/`" has none)."""
    out = []
    for conjunct in re.split(r",\s*|\s+(?:and|or|nor|as well as)\s+", re.sub(r"\([^)]*\)", " ", span)):
        if clause_objects(conjunct):
            continue
        words = {w for w in content_words(conjunct) - FAMILY
                 if not re.match(CHANGE, w) and w not in PHRASE_STOP and not re.search(r"n't$|^not$", w)}
        if words:
            out.append(words)
    return out
