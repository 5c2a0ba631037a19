"""Rule checks of the preservation gate: the candidate against the task contract, each failure a named reason.

The contract (contract.py) is extracted once per Original. A candidate must state every path, literal,
number (with its unit) and output format of it, with normalisation (`./x` = `x`, `x/` = `x`, whitespace,
quoting, list vs prose, format spellings); once is enough however often the Original repeats it, but a
differently spelled copy of a literal, a digit value the Original does not have in any form (numbers.py:
words, units, "a week" = 7 days, enumerators and list counts are layout) and a format swapped for another
of its kind (JSON → JSON Lines, one tab → four spaces) or a block copied with blank lines added or removed (or
its lines told to be joined into one), another start of a count ("counting from 1" → "zero-based") and two of
its paths with their roles swapped (what it says of one said of the other, both ways) are changes. It must keep
every prohibition obligation and scope statement (obligations.py: by meaning, not layout) and add no hedge that
weakens one ("where possible", "ideally", "that works just as well", "isn't something we check"); must not leak
what only the reference solution or the tests know (case- and form-insensitive), nor a value of the reference
solution's outputs (answers.py), nor hand over a command the Original did not give (commands.py: in backticks
or prose, normalised to tool + arguments); must not add a step list or a prose plan; and must not repeat the
Original or an earlier candidate. A length outside 0.8×–3× of the Original's is a warning shown to the judge,
not a rejection (a terse paraphrase is fine).

Reasons look like `drops_literal:path:data/in.csv`, `changes_number:7 day (1→0)`, `changes_number:new value 775`,
`changes_number:counting from 0`, `changes_path:a.html and b.html swapped`,
`changes_format:jsonl`, `changes_format:lines of a block joined`,
`drops_prohibition:...`, `weakens_prohibition:...`, `weakens_obligation:where possible: ...`, `drops_scope:...`,
`drops_qualifier:exactly one argument`, `drops_qualifier:within a few seconds`, `drops_order:in the original order`,
`drops_unique:without duplicates`,
`drops_requirement:Keep the existing entries.`, `drops_requirement:skip them.` (qualifiers.py: a qualifier, keeping
requirement or exclusion the candidate no longer states next to what it binds),
`leaks_reference:git log`, `leaks_answer:69813.66`, `adds_command:ls -lR`, `adds_step_list`,
`duplicate_candidate:original`. The gate may read the task's solution and tests, and run its oracle in a
sandbox the caller provides (answers.py), to detect leaks; the rewriter never sees them.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from matchmeter.gate.answers import VALUE as ANSWER_VALUE
from matchmeter.gate.answers import OracleRun, answers
from matchmeter.gate.commands import (
    COMMON_TOOLS,
    PROSE_VERBS,
    Command,
    commands_in,
    parse_shell,
    step_list_reasons,
)
from matchmeter.gate.contract import (
    Obligation,
    TaskContract,
    changed_formats,
    clause_objects,
    clauses,
    code_blocks,
    enumerates,
    extract_contract,
    formats_in,
    key_words,
    norm_path,
    paths_in,
    prose,
)
from matchmeter.gate.numbers import changed_bases, new_values, stated, unstated
from matchmeter.gate.obligations import kept, named, new_hedges, protecting
from matchmeter.gate.qualifiers import dropped_exclusions, dropped_keeping, dropped_qualifiers
from matchmeter.gate.vocabulary import BACKTICK, FAMILY, HEDGES, content_words, stem
from matchmeter.schema import TaskSpec
from matchmeter.tasks.loader import verify_support_files
from matchmeter.tasks.oracle import own_solution, solve_script

LENGTH_BOUNDS = (0.8, 3.0)  # candidate chars / Original chars (choice; see module docstring)
# a candidate may restate a scope with any of these ("each contact once" = "only the first row")
SCOPE_MARKER = re.compile(r"\b(?:only|exclusively|solely|nothing but|except|exceptions?|other than|apart from|excluding|"
                          r"but not|once|alone|just|nothing else|no other|(?:a |one )?single|sole|lone|exactly one|nothing (?:beyond|outside)|"
                          r"no more than)\b", re.I)
AFTER_SCOPE = re.compile(r"\b(?:nothing else|no other|nothing more|none of the others?|no more)\b", re.I)
FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
NEWLINE = re.compile(r"\\n|\b(?:new-?lines?|line[- ](?:breaks?|feeds?|endings?)|linefeeds?|(?:newline|line)[- ]terminated|"
                     r"terminat\w* (?:by|with) (?:an? )?(?:newline|line break)|end(?:s|ing)? (?:of )?(?:each |every |the )?lines?)\b",
                     re.I)
# "no newline after the last line", "without a trailing newline", "must not end with a line break"
NO_NEWLINE = re.compile(r"\b(?:no|without(?: an?| any)?|not (?:end|finish)\w* (?:with|in) (?:an?|any))\s+(?:(?:trailing|final|"
                        r"terminating|closing|ending|extra)\s+)?(?:new-?line|line[- ]?(?:break|feed|ending))s?\b|"
                        # "one newline between lines and none after the last one"
                        r"\b(?:new-?line|line[- ]?break)s?\b[^.;]{0,60}\bnone (?:after|at the end|following)\b", re.I)
IDENT = re.compile(r"\b[A-Za-z_]\w*(?:[._]\w+)+\b|\b[a-z]+[A-Z]\w*\b")


class RuleResult(BaseModel):
    rule: str = Field(description="Rule name, e.g. keeps_contract, no_leak, length.")
    passed: bool
    reasons: list[str] = Field(default_factory=list, description="Named reasons; empty when passed.")
    warnings: list[str] = Field(default_factory=list, description="Not a rejection: shown to the judge (length).")


@dataclass
class ReferenceKnowledge:
    """What only the reference solution and the tests know (read by the gate, never by the rewriter)."""

    commands: list[str] = field(default_factory=list)
    parsed: list[Command] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    task: TaskSpec | None = field(default=None, repr=False)
    given_answers: set[str] | None = field(default=None, repr=False)
    oracle: OracleRun | None = field(default=None, repr=False)  # runs the oracle in a sandbox (answers.py)
    answers_skipped: str = ""  # why there are no answer values, once asked

    @property
    def answers(self) -> set[str]:
        """The reference solution's output values (answers.py), computed on first use: only a candidate that
        states a value the Original does not needs them, and running the oracle in a sandbox costs seconds."""
        if self.given_answers is None:
            found = answers(self.task, self.oracle) if self.task is not None else None
            self.given_answers = set(found.values) if found else set()
            self.answers_skipped = found.skipped if found else ""
        return self.given_answers

    @property
    def tools(self) -> set[str]:
        return {c.tool for c in self.parsed}

    @classmethod
    def of_task(cls, task: TaskSpec, oracle: OracleRun | None = None) -> ReferenceKnowledge:
        """What the task's solution, tests and verifier files know; `oracle` (runner.oracle_outputs, passed by
        the caller) learns the answer values in a sandbox, and without it there are none."""
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
        knowledge.task, knowledge.oracle = task, oracle
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
    """Occurrences of a literal as a whole token (`main` is not in `maintain`, `/health` not in `/healthz`, `ops`
    not in `ops-bot`)."""
    before = r"(?<![\w-])" if re.match(r"\w", literal) else ""
    after = r"(?!\w|-\w)" if re.search(r"\w$", literal) else ""
    return len(re.findall(before + re.escape(literal) + after, text))


# ------------------------------------------------------------------ the rules


def _form(text: str) -> str:
    """A token's form-insensitive spelling: lower case, no separators (`Latin-1` = `latin1` = `LATIN 1`)."""
    return re.sub(r"[\W_]+", "", text.lower())


def _variants(literal: str, candidate: str, original: str) -> list[str]:
    """Tokens of the candidate that spell the literal differently (`control-rate` for `control_rate`) and
    that the Original does not have: a changed occurrence, even where another occurrence is kept."""
    want = _form(literal)
    if len(want) < 3:
        return []
    spans = {t for t in BACKTICK.findall(candidate) if t not in original}
    near = [t for t in spans if difflib.SequenceMatcher(None, t, literal).ratio() >= 0.8]  # `GET /healthz`
    tokens = spans | set(re.findall(r"[\w.@$/-]+", candidate))
    # "Notes already in the table" opens a sentence: a capital that only the sentence gives is no respelling
    capital = {t for t in tokens - spans if t == literal[:1].upper() + literal[1:] and t != literal
               and all(re.fullmatch(r"|.*(?:[.!?:]|```|\n|(?:^|\s)[-*•])\s*", candidate[:m.start()], re.S)
                       for m in re.finditer(rf"(?<![\w-]){re.escape(t)}(?![\w-])", candidate))}
    return near + [t for t in tokens - capital if _form(t) == want and t != literal and t not in original]


def _embedded(literal: str, candidate: str, original: str) -> bool:
    """A structured literal the Original gives as a whole code span (`{"a": <number>}`, `KEY=VALUE, one per line`)
    that the candidate has only inside longer code spans: `{"api": {"a": <number>}}` is another format, not it."""
    if not re.search(r"[\s{}\[\]:=,]", literal) or len(literal) < 6 or f"`{literal}`" not in _flat(original):
        return False
    spans = [" ".join(s.split()) for s in BACKTICK.findall(candidate)]
    return literal not in spans and not literal_count(literal, _flat(BACKTICK.sub(" ", candidate))) and \
        any(literal in s for s in spans)


def _block_lines(block: str) -> list[str]:
    return [line.strip() for line in block.strip("\n").splitlines()]


def reblanked_block(original: str, candidate: str) -> bool:
    """A block of the Original the candidate copies line for line but with blank lines added or removed: an empty
    line of a block is content ("subject, empty line, body" run together is another commit message)."""
    copies = [_block_lines(b) for b in code_blocks(candidate)]
    for block in code_blocks(original):
        lines = _block_lines(block)
        text = [line for line in lines if line]
        if len(text) >= 2 and any([line for line in copy if line] == text and copy != lines for copy in copies):
            return True
    return False


# "store the two lines as one", "joined into a single line": a block's lines told to be run together
# ... "put it on a single line", "join the subject and the body with one space", "instead of the blank line"
JOINED_LINES = re.compile(r"\b(?:join|merg|collaps|combin|concatenat|flatten)\w*\b[^.;]{0,40}?\b(?:into|as|on(?:to)?) "
                          r"(?:one|a single) line\b|\blines\b[^.;]{0,20}?\b(?:as|into) (?:one|a single)\b(?! of\b)|"
                          r"\b(?:put|write|place|fit|keep|have|make|squeeze|run)\w*\s+(?:(?:it|them|this|that|everything)\s+|the (?:whole |"
                          r"entire )?(?:[\w-]+ ){0,2}?)(?:all\s+)?(?:on|onto|in|into) (?:one|a single) line\b|"
                          r"\b(?:join|merg|combin|concatenat)\w*\b[^.;]{0,40}?\bwith (?:a|one) (?:single )?(?:space|comma|semicolon|"
                          r"tab|dash)\b|\b(?:instead of|without|drop\w*|remov\w*|delet\w*|skip\w*|leave out|omit\w*) the "
                          r"(?:blank|empty) line\b", re.I)


def joins_block_lines(original: str, candidate: str) -> bool:
    """The candidate asks to run the lines of one of the Original's multi-line blocks into one line, which the Original
    does not: its lines are content as much as its characters are (a two-line text joined is another text)."""
    multi_line = any(len([line for line in _block_lines(b) if line]) >= 2 for b in code_blocks(original))
    return multi_line and bool(JOINED_LINES.search(_flat(prose(candidate)))) and not JOINED_LINES.search(_flat(prose(original)))


def keeps_contract(original: str, candidate: str) -> RuleResult:
    """Every path, literal, number (with its unit) and format of the contract is in the candidate. A literal
    or number need be there once, however often the Original repeats it (a merged sentence names it once),
    but a differently spelled copy of a literal is a change; a number that only counts the list after it
    ("three changes: ...") is not checked, a digit value the Original does not have is a changed number."""
    contract, reasons = contract_of(original), []
    cand_paths, flat, flat_orig = set(paths_in(candidate)), _flat(candidate), _flat(original)
    for item in contract.of_kind("path"):
        bare = ("/" in item.norm or "." in item.norm) and re.search(rf"(?<![\w/.-]){re.escape(item.norm)}(?![\w-])", flat)
        # "Don't modify `base.json`" after `catalog/base.json`: the bare name is short for the Original's full path
        full = "/" not in item.norm and any(p.endswith("/" + item.norm) for p in cand_paths & _original_paths(original))
        if item.norm not in cand_paths and not bare and not full:
            reasons.append(f"drops_literal:path:{item.text}")
    for item in contract.of_kind("literal"):
        have = literal_count(item.norm, flat)
        if have == 0 or (have < literal_count(item.norm, flat_orig) and _variants(item.norm, flat, flat_orig)) or \
                _embedded(item.norm, candidate, original):
            kind = "quoted" if f'"{item.text}"' in original or f"`{item.text}`" in original else "literal"
            reasons.append(f"drops_literal:{kind}:{item.text[:60]}")
    items = {(i.norm, i.unit): i for i in contract.of_kind("number") if not enumerates(original, i.norm)}
    reasons += [f"changes_number:{items[k].text} ({items[k].count}→0)" for k in unstated(list(items), stated(candidate))]
    reasons += [f"changes_number:new value {v}" for v in new_values(original, candidate)]
    reasons += [f"changes_number:counting from {v}" for v in changed_bases(original, candidate)]
    cand_formats = set(formats_in(candidate))
    reasons += [f"drops_literal:format:{i.text}" for i in contract.of_kind("format") if i.norm not in cand_formats]
    reasons += [f"changes_format:{f}" for f in changed_formats(original, candidate)]
    if reblanked_block(original, candidate):
        reasons.append("changes_format:blank lines of a block")
    if joins_block_lines(original, candidate):
        reasons.append("changes_format:lines of a block joined")
    # line endings are layout the checker reads byte for byte: "each ending with a newline" dropped is a format dropped
    if NEWLINE.search(prose(original)) and not NEWLINE.search(prose(candidate)):
        reasons.append("drops_literal:format:newline")
    elif NO_NEWLINE.search(prose(candidate)) and not NO_NEWLINE.search(prose(original)):  # the newline asked turned into none
        reasons.append("changes_format:newline")
    return RuleResult(rule="keeps_contract", passed=not reasons, reasons=list(dict.fromkeys(reasons)))


def keeps_prohibitions(original: str, candidate: str) -> RuleResult:
    """Each prohibition obligation of the Original (obligations.py) is in one of the candidate's directive
    clauses, as strong and not hedged; each scope statement ('only ...', 'except ...') keeps a scope word next
    to its key words (in a clause or the clause after it); a hedge the Original did not have ('where
    possible', 'ideally', 'try not to', 'if you like') weakens whatever it qualifies. Split, merged and
    reordered clauses and keep/stay/leave/preserve/retain synonyms keep an obligation."""
    contract, reasons = contract_of(original), []
    cand = clauses(candidate)
    found = protecting(cand)
    for item in contract.of_kind("prohibition"):
        ob = Obligation(text=item.text, objects=item.objects, words=set(item.words),
                        strength={"change": 2, "delete": 1}.get(item.strength, 0), hedged=bool(HEDGES.search(item.text)),
                        phrases=[set(p) for p in item.phrases])
        status = kept(ob, found)
        if status != "kept":
            reasons.append(f"{'weakens' if status == 'weakened' else 'drops'}_prohibition:{item.text[:60]}")
    # a scope marker ends a clause when the sentence is split at it ("the exception: the shell scripts ...")
    # and "Extract the `.conf` files under `etc/`. Nothing else may land in `restored/`." states it after the fact
    scoped = [" ".join(cand[i:i + 2]) for i in range(len(cand)) if SCOPE_MARKER.search(cand[i])]
    scoped += [" ".join(cand[max(0, i - 2):i + 1]) for i in range(1, len(cand)) if AFTER_SCOPE.search(cand[i])]
    for item in contract.of_kind("scope"):
        objs = {norm_path(o) for o in item.objects}
        words = {stem(w) for w in item.words}
        # "only that file" is kept by "Only `todo.md` goes in": a backticked name says file or directory (named)
        ok = any(objs <= {norm_path(o) for o in clause_objects(c)} | {norm_path(w.strip("`'\".,;:()")) for w in c.split()}
                 and len(words & ({stem(w) for w in key_words(c)} | named(c))) * 2 >= len(words) for c in scoped)
        if not ok:
            reasons.append(f"drops_scope:{item.text[:60]}")
    reasons += [f"weakens_obligation:{h}" for h in new_hedges(original, candidate)]
    reasons += [f"drops_{q.family if q.family in ('order', 'unique') else 'qualifier'}:{q.text[:60]}"
                for q in dropped_qualifiers(original, candidate)]
    reasons += [f"drops_requirement:{text[:60]}" for text in dropped_keeping(original, candidate) +
                dropped_exclusions(original, candidate)]
    return RuleResult(rule="keeps_prohibitions", passed=not reasons, reasons=list(dict.fromkeys(reasons)))


def _path_contexts(text: str, known: frozenset[str]) -> list[tuple[str, set[str]]]:
    """(path, content words and code spans) of each clause of the text that names exactly one of the known paths."""
    out = []
    for clause in clauses(text):
        named_paths = {p for p in paths_in(clause) if p in known}
        if len(named_paths) == 1:
            path = named_paths.pop()
            literals = {f"`{t}`" for t in BACKTICK.findall(clause) if norm_path(t) not in known and t not in known}
            out.append((path, content_words(clause) | literals))
    return out


SWAP_WORDS = 2  # words of what the Original says of one path that the candidate says of the other, at least


def swapped_paths(original: str, candidate: str) -> list[tuple[str, str]]:
    """Two paths of the Original whose roles the candidate swaps: what the Original says of one (the words of its clauses
    no clause of another path has) the candidate says of the other, and the other way round ("`page.html` has the
    placeholder; `base.html` is not part of this change" → "`base.html` has the placeholder; ... `page.html` is not")."""
    known = _original_paths(original)
    said: dict[str, set[str]] = {}
    for path, words in _path_contexts(original, known):
        said.setdefault(path, set()).update(words)
    own = {p: w - set().union(*(v for q, v in said.items() if q != p)) for p, w in said.items()}
    cand = _path_contexts(candidate, known)

    def says_of(p: str, q: str) -> bool:  # a candidate clause of q says what the Original says of p, more than of q
        return any(path == q and len(words & own[p]) >= SWAP_WORDS and len(words & own[p]) > len(words & own[q])
                   for path, words in cand)

    return [(p, q) for p in sorted(own) for q in sorted(own) if p < q and says_of(p, q) and says_of(q, p)]


def no_new_paths(original: str, candidate: str) -> RuleResult:
    """No invented artifact: every path of the candidate is a path (or text) of the Original, normalised."""
    flat = _flat(original)
    reasons = [f"adds_path:{p}" for p in paths_in(candidate) if not known_path(p, original) and p not in flat]
    reasons += [f"changes_path:{p} and {q} swapped" for p, q in swapped_paths(original, candidate)]
    return RuleResult(rule="no_new_paths", passed=not reasons, reasons=reasons)


def no_leak(original: str, candidate: str, knowledge: ReferenceKnowledge) -> RuleResult:
    """Nothing only the reference solution / tests know (case- and form-insensitive), no value of the reference
    solution's outputs the Original does not state, and no command the Original did not give."""
    reasons: list[str] = []
    flat, flat_orig = _flat(candidate), _flat(original)
    reasons += [f"leaks_reference:{c[:60]}" for c in knowledge.commands if c in flat and c not in flat_orig]
    for token in sorted(knowledge.tokens):
        if known_path(norm_path(token), original) or norm_path(token) in flat_orig:
            continue
        pattern = token_pattern(token)
        if pattern.search(candidate) and not pattern.search(original):
            reasons.append(f"leaks_reference:{token}")
    reasons += [f"leaks_answer:{v}" for v in answers_in(candidate, original, knowledge)]
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


def token_pattern(token: str) -> re.Pattern[str]:
    """A reference token as a leak check finds it: case-insensitive, and for a token with a digit also
    separator-insensitive (`latin-1` = `Latin-1` = `LATIN1` = `latin 1`)."""
    before, after = r"(?<![\w./-])", r"(?![\w-])"
    if re.search(r"\d", token) and re.search(r"[A-Za-z]", token):
        runs = re.findall(r"[A-Za-z0-9]+", token)
        return re.compile(before + r"[\W_]?".join(re.escape(r) for r in runs) + after, re.I)
    return re.compile(before + re.escape(token) + after, re.I)


COMMON_WORDS = frozenset({"true", "false", "null", "none", "total", "name", "value", "values", "count", "date", "user",
                          "users", "error", "errors", "file", "files", "line", "lines", "week", "month", "year", "data",
                          "result", "results", "answer", "report", "with", "from", "that", "this", "nan"})


def answers_in(candidate: str, original: str, knowledge: ReferenceKnowledge) -> list[str]:
    """Values of the reference solution's outputs that the candidate states and the Original does not."""
    orig = original.lower()
    new = [v for v in answer_tokens(candidate) if v.lower() not in COMMON_WORDS and v.lower() not in orig]
    if not new:
        return []
    # an all-lowercase word of an output is too often plain English ("format", "required") to count alone, and an
    # all-capitals one counts only in capitals: "create a table" does not leak an output's SQL `CREATE TABLE`
    found = knowledge.answers
    low = {a.lower() for a in found if not (a.isalpha() and a.islower())}
    return sorted({v for v in new if v.lower() in low and (v in found or v.upper() not in found or not v.isalpha())})


def answer_tokens(text: str) -> list[str]:
    return ANSWER_VALUE.findall(text)


def no_lowered_difficulty(original: str, candidate: str) -> RuleResult:
    """No step list, numbered or bulleted, and no prose plan the Original did not have."""
    reasons = step_list_reasons(original, candidate)
    return RuleResult(rule="no_lowered_difficulty", passed=not reasons, reasons=reasons)


def length_in_bounds(original: str, candidate: str) -> RuleResult:
    """Outside 0.8×–3× of the Original's length is a warning the judge is shown (a shorter text may have
    dropped something, a much longer one may be a tutorial), never a rejection: a terse paraphrase is fine."""
    ratio = len(candidate.strip()) / max(1, len(original.strip()))
    ok = LENGTH_BOUNDS[0] <= ratio <= LENGTH_BOUNDS[1]
    return RuleResult(rule="length", passed=True, warnings=[] if ok else [f"length_out_of_bounds:{ratio:.2f}"])


COVERAGE_WARNING = 0.25  # share of a requirement's content words below which the judge is told to look at it


def judge_warnings(original: str, candidate: str) -> list[str]:
    """What the judge is shown besides the texts: the length warning, and each requirement clause of the Original
    (three content words or more) of whose words the candidate keeps under a quarter anywhere. On the blind
    splits that marks a dropped requirement about as often as it marks a faithful paraphrase's synonyms, so it
    is a pointer for the judge, never a rejection."""
    out = list(length_in_bounds(original, candidate).warnings)
    have = {w[:5] for w in content_words(candidate, asides=True) - FAMILY}
    for item in contract_of(original).of_kind("requirement"):
        words = {w[:5] for w in content_words(item.text, asides=True) - FAMILY}
        if len(words) >= 3 and len(words & have) < COVERAGE_WARNING * len(words):
            out.append(f"requirement_words_missing:{' '.join(item.text.split())[:80]}")
    return out


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
