"""Obligations as the rules compare them: what a clause forbids or requires, by meaning rather than by layout.

A prohibition is directive, addressed to the agent: an imperative negation at the head of a clause part
("Don't touch ...", "never ...", "whatever you do, don't ..."), a negated modal ("X must not change",
"is not to be touched", "may not", "try not to"), a keeping statement ("leave / keep / stay / remain /
preserve / retain X as it is, unchanged, untouched, alone, intact, out of ...") or "nothing else / no other
/ the rest / the remainder ... change(s)". A descriptive negation is not one: "a closed store has no row that day",
"people don't always type it the same way", "no quotes or escapes are processed", "readings without a value".

Each directive part of an Original clause is one obligation (a clause "Don't change X, and leave Y as it
is" holds two); a part that names what it protects by a pronoun ("`x.json` is shared: don't change it")
protects its referent (contract.referents), and each conjunct of what it protects that has no path or literal
("`schema.sql` and the CSV files") is protected too (contract.phrases).

A candidate is read more widely than an Original, for the syntaxes a paraphrase uses for the same prohibition
(PRESERVED, WITHOUT: "off limits", "read-only", "as is", "no changes to", "without modifying", "neither X nor Y may
...", "neither of these may ...", "make sure not to change ...", "kept out of `x`", "has no place in `x`";
NOT_ACCEPTED for "don't just X": "X is not a fix", "X would be misleading", "Y rather than X"), so a wider reading
never adds obligations. A file the Original names bare and the candidate with its directory (or the other way round)
is the same object (names_object). It keeps an obligation when its directive parts (a pronoun part with its clause's
and the previous clause's objects and words, and what its referents' names say) protect the same objects at least as
strongly, and each conjunct by at least half of its words; an object-less obligation by at least OBLIGATION_WORDS of
its own words, compared stemmed and folded (vocabulary.py), with the keep/change family left out of the share (every
directive part has it) and "everything else / the rest" on both sides or on neither ("everything else in the
template" is not "the template"). A matching clause that adds a hedge the Original did not have ("where possible",
"ideally", "try not to", "if you like") weakens it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import takewhile

from matchmeter.gate.contract import (
    ANAPHORA,
    Obligation,
    clause_objects,
    is_directive,
    norm_path,
    parts,
    protected_span,
    referents,
    strength,
)
from matchmeter.gate.vocabulary import (
    BACKTICK,
    CHANGE,
    FAMILY,
    HEDGES,
    KEEP_END,
    KEEP_VERB,
    KEEPING,
    OBLIGATION_WORDS,
    content_words,
    stem,
)


@dataclass
class Protecting:
    """A candidate clause (or two consecutive ones) that forbids something."""

    text: str
    objects: set[str]
    words: set[str]
    strength: int
    hedged: bool
    rest: bool = False  # the part itself is about "everything else"
    # ... or about every one of its things with the exception still stated beside it ("every character as shown —
    # except `{ticket}`"): the rest included. Without the exception "every value stays a string" is another rule.
    every: bool = False
    named: set[str] = field(default_factory=set)  # what its backticked names say (`page.html`: page, file)


# Candidate side only, wider than what makes an Original's clause an obligation: the syntaxes a paraphrase
# may use for the same prohibition ("`x` is off limits", "without modifying `x`", "no edits to `x`").
PRESERVED = re.compile(r"\b(?:unchanged|untouched|unmodified|unaltered|unedited|intact|as[- ]is|off[- ]limits|read[- ]only|"
                       r"left alone|hands off|as (?:it|they) (?:is|are|stands?|was|were)(?=\s*(?:[.,;:!)]|$|and\b|or\b|but\b))|"
                       r"\bneither\b(?:[^.;]|\.(?=\w))*\bnor\b(?:[^.;]|\.(?=\w))*\b(?:may|must|should|can|is|are|will|gets?)\b|"
                       r"\b(?:must|may|should|can|is|are|will)(?: be)? neither\b|"
                       r"\b(?:must|should|is to|are to|has to|have to) (?:be|stay|remain) exactly as\b|"
                       r"\b(?:must|should|is to|are to|has to|have to|needs? to|will) be (?:preserved|retained|kept)\b|"
                       r"^\W*(?:please\s+)?(?:preserve|retain)\b|"
                       r"\b(?:stays?|remains?|must stay|must remain|are to stay|is to stay) (?:deleted|removed|gone|absent|put|"
                       r"outside|where (?:it|they) (?:is|are))\b|\bwhere (?:it|they) (?:points?|is|are|sits?|lives?) now\b|"
                       r"\bkeeps? \w+ing (?:where|at|to|on) (?:it|they|the same)\b|"
                       rf"\bno (?:[\w-]+ )?{CHANGE}|^\W*(?:and |but |so )?you (?:don't|do not|must not|mustn't|never|shouldn't|"
                       r"should not)\b(?! (?:have|need) to)|"
                       r"\b(?:(?:exactly|precisely) )?as (?:shown|written|given|displayed|it appears)\b|\b(?:no|nothing|none)\b[^.;]*\bdiffer(?:s|ent)?\b|\b(?:may|must|should|can|will|is to|are to) "
                       r"(?:not )?(?:differ|deviate|vary)\b|"
                       rf"\bnone of\b(?:[^.;]|\.(?=\w))*\b(?:may|must|should|can|is to|are to|will)\b(?:[^.;]|\.(?=\w))*\b{CHANGE}|\b(?:must|should|has to|have to|needs? to|will|is to|are to) still "
                       r"(?:be|stay|remain|contain|have|point)\b|\bstays? put\b|\bleave\b(?:[^.;]|\.(?=\w))*\bbe\W*$|"
                       r"\bnot (?:yours|for you) to\b|\b(?:chang|modif|alter|touch|edit)\w*\s+(?:nothing|none)\b|"
                       r"no (?:changes?|edits?|modifications?|alterations?)\b|refrain from|under no circumstances|"
                       r"(?:is|are) not (?:to be )?(?:changed|modified|touched|edited|altered|deleted|removed)|"
                       # "make sure not to delete or modify ...", "be careful not to touch ...", "take care not to ..."
                       rf"\bnot to (?:[\w-]+ (?:or|and|nor) )?{CHANGE}|"
                       # "must be kept out of `x`" for "must not go into `x`"
                       r"\b(?:kept|keep|keeps|stays?|remains?|left|leave|be) out of\b|\bexcluded from\b|"
                       r"\b(?:has|have) no place in\b|\b(?:does ?n[o']t|do ?n[o']t|never) belongs? in\b|"
                       r"\b(?:is|are) not (?:allowed|permitted|welcome|wanted) in\b|"
                       # "Neither of these two files may be modified."
                       rf"\bneither of\b(?:[^.;]|\.(?=\w))*\b(?:may|must|should|can|is to|are to|will|gets?)\b(?:[^.;]|\.(?=\w))*\b{CHANGE})", re.I)
EXCEPT = re.compile(r"\b(?:except|apart from|other than|besides|but not|save for|aside from|the only (?:thing|part|text|"
                    r"exception))\b", re.I)
# "every character", "no character may differ": every one of its things
EVERY = re.compile(r"\b(?:every|all|each)\b(?! (?:other|remaining|the other|the rest)\b)|"
                   r"\bno\b(?= (?:single )?[\w-]+ (?:may|is|different|differs|can|should|must|will)\b)", re.I)
KEEP_HEAD = re.compile(rf"^\W*(?:please\s+)?{KEEP_VERB}\b", re.I)
WITHOUT = re.compile(rf"\bwithout\s+(?:\w+ing\s+or\s+)?{CHANGE}", re.I)


def without_keep_end(part: str) -> str:
    """The part without parentheticals and keeping endings: the "it" of "as it is" refers to nothing."""
    part = re.sub(r"\b(?:as|where) (?:it|they) (?:is|are|was|were|stands?|did)\b", " ", part, flags=re.I)
    return re.sub(rf"\([^)]*\)|\b{KEEP_END}", " ", part, flags=re.I)


# "printing the expected text is not a fix": what a rewrite may say instead of "don't just print it"; the same said
# as a judgement ("taking the plain median would be misleading", "... and that's not what I want") or as the
# alternative preferred ("Kaplan-Meier estimates rather than the median", "..., not just the median")
NOT_ACCEPTED = re.compile(r"\b(?:is|are|would be|will be|'s)(?: not|n't) (?:a |an )?(?:valid |acceptable )?(?:fix|solution|"
                          r"acceptable|allowed|permitted|enough|ok|okay|an option)\b|"
                          r"\b(?:does not|doesn't|won't|will not|wouldn't|would not) (?:count|do)\b|"
                          r"\b(?:is|are|would be|will be|'s|'d be) (?:misleading|wrong|incorrect|biased|skewed|a mistake|"
                          r"not good enough|not what (?:i|we) (?:want|need|asked for|am after|'m after|are after|'re after))\b|"
                          r"\b(?:would|will) (?:give|produce|yield) (?:a |the )?wrong\b|"
                          r"\b(?:instead of|rather than|not (?:just|simply|merely|only)|more than (?:just|simply|merely))\b", re.I)


# "What must hold afterwards: the branch contains exactly what it contains now, and it is still based on ...": a heading
# that says the statements after it must hold makes each of them a requirement; one that states a kept state (GOVERNED_STATE)
# forbids changing it as "must stay the same" does
MUST_HEADING = re.compile(r"^\W*(?:(?:what|everything|all (?:of )?(?:this|these|the following)|the following|(?:these|the) "
                          r"(?:conditions|requirements|constraints|rules|invariants|guarantees))\b[^.;]{0,30}\b(?:must|should|"
                          r"has to|have to|needs? to|(?:is|are) required to) (?:hold|be true|be the case|stay true|remain true|be met|"
                          r"be satisfied)|(?:hard )?(?:requirements?|constraints?|invariants?|guarantees?|must[- ]haves?|conditions? "
                          r"(?:to meet|that must hold)))(?: (?:afterwards|after(?:wards)? you(?:'re| are) done|at the end|when "
                          r"(?:you(?:'re| are) )?done|once (?:it'?s|it is|you(?:'re| are)) done))?\W*$", re.I)
GOVERNED_STATE = re.compile(r"\b(?:still|the same|exactly what|as (?:it|they) (?:is|are|was|were|stands?)|unchanged|"
                            r"untouched|intact|not|never|no|nothing)\b|n't\b", re.I)
GOVERNED_CLAUSES = 4  # statements a heading governs, at most


def governed(cand_clauses: list[str]) -> set[int]:
    """Indices of the clauses a MUST_HEADING governs: up to GOVERNED_CLAUSES after it."""
    out: set[int] = set()
    for i, clause in enumerate(cand_clauses):
        if len(clause.split()) <= 8 and MUST_HEADING.match(clause):
            out |= set(range(i + 1, min(len(cand_clauses), i + 1 + GOVERNED_CLAUSES)))
    return out


def candidate_directive(part: str) -> bool:
    return is_directive(part) or bool(PRESERVED.search(part) or WITHOUT.search(part) or NOT_ACCEPTED.search(part))


def candidate_strength(part: str) -> int:
    overwrite = re.search(r"\b(?:overwrit|replac|truncat|clobber)\w*", part, re.I)  # as strong as "change"
    return max(strength(part), 2 if PRESERVED.search(part) or overwrite else 0)


def protecting(cand_clauses: list[str]) -> list[Protecting]:
    """The candidate's directive parts, each with its objects, strength and words. A part that names its
    object by a pronoun ("so don't rewrite or drop it", "`x/`: never touch it") takes its words and objects
    from its clause and the neighbours."""
    out = []
    under_heading = governed(cand_clauses)
    for i, clause in enumerate(cand_clauses):
        clause_parts = parts(clause)
        # "Leave links that already work, and the files in `x/`, as they are": one keeping statement split at its
        # commas, whose head part is directive only with the ending the clause gives it
        keeping = bool(KEEPING.search(clause))
        clause_parts = merged_subjects(clause_parts)
        for part in clause_parts:
            stated_state = i in under_heading and bool(GOVERNED_STATE.search(part))
            if not (candidate_directive(part) or (keeping and KEEP_HEAD.match(part)) or stated_state):
                continue
            span = protected_span(part)
            objects = {norm_path(o) for o in clause_objects(span)} | {norm_path(w.strip("`'\".,;:()")) for w in span.split()}
            bare = without_keep_end(part)
            anaphoric = ANAPHORA.search(bare) or not (clause_objects(span) or content_words(part) - FAMILY)
            # "..., and neither may `x`": an elliptic part has the strength of the clause's other directive parts
            power = candidate_strength(part) or max((candidate_strength(q) for q in clause_parts if candidate_directive(q)),
                                                    default=2 if keeping or stated_state else 0)
            text, names = part, named(part)
            # "Rest of the page: unchanged." — a short label before the colon names what the part keeps
            label = cand_clauses[i - 1] if anaphoric and i and len(cand_clauses[i - 1].split()) <= 8 else ""
            if anaphoric:
                text = " ".join(cand_clauses[max(0, i - 1):i + 2])
                if not clause_objects(span):
                    found = referents(clause, naming_clause(cand_clauses, i))
                    objects |= {norm_path(o) for o in found}
                    # "`data/catalog.xml` — don't modify it" says what "the XML file" of the Original says
                    names |= named(" ".join(f"`{o}`" for o in found))
            if not clause_objects(span) and len(clause.split()) <= 4:  # a heading ("Off limits:", "Do not modify:")
                items = list(takewhile(lambda c: len(c.split()) <= 6, cand_clauses[i + 1:i + 6]))  # over its list
                objects |= {norm_path(o) for c in items for o in clause_objects(c)}
                text = " ".join([text, *items])
            out.append(Protecting(text=clause, objects=objects, words=content_words(text, asides=True),
                                  named=names, strength=power,
                                  rest="<rest>" in content_words(part) | content_words(label),
                                  every=bool(EVERY.search(part)) and bool(
                                      EXCEPT.search(" ".join(cand_clauses[i:i + 2]))),
                                  hedged=bool(HEDGES.search(clause))))
    return out


def naming_clause(cand_clauses: list[str], i: int) -> str:
    """The clause a pronoun of clause i looks back to: the one before, or the one before that where the one before
    names nothing ("`x.csv`: the readings, one per line (a; b). Don't change it" is split at its ':' and ';')."""
    before = cand_clauses[max(0, i - 2):i]
    return next((c for c in reversed(before) if clause_objects(c)), before[-1] if before else "")


# a part that starts with one of these gives an order of its own; any other non-directive part may be the first
# subject of the next ("Links that already resolve, and the files in `x/`, must be left unchanged")
IMPERATIVE_VERBS = frozenset({
    "write", "create", "add", "make", "fix", "set", "put", "run", "use", "remove", "delete", "replace", "move",
    "copy", "find", "list", "print", "compute", "merge", "apply", "commit", "restore", "install", "start", "stop",
    "build", "generate", "update", "rename", "fill", "save", "read", "check", "convert", "extract", "sort", "count",
    "report", "produce", "give", "send", "unpack", "squash", "revert", "undo", "append", "insert", "store", "record",
    "output", "rotate", "compress", "decode", "encode", "parse", "load", "import", "export", "clean", "repair",
    "split", "join", "filter", "format", "render", "serve", "return", "keep", "leave",
})
FIRST_WORD = re.compile(r"\W*(\w*)")


def merged_subjects(clause_parts: list[str]) -> list[str]:
    """Parts with a leading subject conjunct joined to the part that holds the predicate: "Nothing under `a/`,
    and not `b`, may be changed" is one prohibition of both, which the comma split (contract.parts) broke up."""
    out: list[str] = []
    for part in clause_parts:
        head = out[-1] if out else None
        if (head is not None and not candidate_directive(head) and candidate_directive(f"{head}, {part}")
                and FIRST_WORD.match(head.lower()).group(1) not in IMPERATIVE_VERBS  # type: ignore[union-attr]
                and not KEEP_HEAD.match(head)):
            out[-1] = f"{head}, {part}"
        else:
            out.append(part)
    return out


def named(part: str) -> set[str]:
    """What the part's backticked names say: `templates/page.html` names a page and a file, `logs/` a directory."""
    words: set[str] = set()
    for span in BACKTICK.findall(part):
        if "/" in span or re.search(r"\.\w{1,5}$", span):
            words |= {stem(w) for w in re.findall(r"[a-z]{3,}", span.lower())}
            words.add("file" if re.search(r"\.\w{1,5}$", span) else "directory")
    return words


def names_object(obj: str, objects: set[str]) -> bool:
    """A candidate part's objects name the obligation's: the same path, or the same file named once bare and
    once with its directory ("Don't modify `base.json`" after `catalog/base.json`; either side may be the short one)."""
    obj = norm_path(obj)
    if obj in objects:
        return True
    if not re.search(r"\w\.\w{1,5}$", obj):  # a file name only: a bare directory name may be any directory's
        return False
    if "/" not in obj:
        return any(o.endswith("/" + obj) for o in objects)
    return obj.rsplit("/", 1)[1] in objects


def kept(ob: Obligation, found: list[Protecting]) -> str:
    """'kept', 'weakened' or 'dropped': is the obligation in one of the candidate's directive clauses?"""
    if ob.objects:  # each object protected by some directive part, as strongly ("nothing under `a/` may change,
        # and neither may `b`" protects both)
        per_object = [[p for p in found if names_object(o, p.objects) and p.strength >= ob.strength] for o in ob.objects]
        if not all(per_object):
            return "dropped"
        # "and the CSV files": a protected thing named by words only, somewhere in a directive part as strong
        if any(not any(len(ws & p.words) * 2 >= len(ws) and p.strength >= ob.strength for p in found) for ws in ob.phrases):
            return "dropped"
        return "kept" if all(any(not p.hedged or ob.hedged for p in hits) for hits in per_object) else "weakened"
    # an object-less obligation is known by what it names ("the template", "the CSV", "everything else"): the
    # keep/change family says only that it forbids, which every directive part does
    # "everything else in the template" is not "the template": a <rest> on one side only is another thing, and
    # on both sides it says only that, so the share is of the other words
    rest = "<rest>" in ob.words
    core = ob.words - FAMILY - {"<rest>"}
    matching = [p for p in found if len(core & (p.words | p.named)) >= OBLIGATION_WORDS * len(core)
                and (core or rest or ob.words & p.words)
                and p.strength >= ob.strength and (rest == p.rest or (rest and p.every))]
    if not matching:
        return "dropped"
    return "kept" if any(not p.hedged or ob.hedged for p in matching) else "weakened"


def new_hedges(original: str, candidate: str) -> list[str]:
    """Hedges the candidate adds ('where possible', 'ideally', ...), each with its clause: a weakened obligation."""
    original, candidate = " ".join(original.split()), " ".join(candidate.split())  # "makes\nsense" is "makes sense"
    before = {m.group(0).lower() for m in HEDGES.finditer(original)}
    out = []
    for m in HEDGES.finditer(candidate):
        prefix = re.split(r"[.;:!?]\s", candidate[max(0, m.start() - 40):m.start()])[-1]  # "not run. As far as I know"
        # "this part is not optional" insists; "if it's not too much trouble, try to" does not (a comma between)
        negated = re.search(r"\b(?:not|never|no|nothing|none)\b(?:\s+[^\s,;]+){0,4}\s*$", prefix, re.I)
        if m.group(0).lower() not in before and not negated:  # "this part is not optional" insists
            start = max(candidate.rfind(".", 0, m.start()), candidate.rfind("\n", 0, m.start())) + 1
            end = min(x for x in (candidate.find(".", m.end()), candidate.find("\n", m.end()), len(candidate)) if x >= 0)
            out.append(f"{m.group(0).lower()}: {' '.join(candidate[start:end].split())[:60]}")
    return out
