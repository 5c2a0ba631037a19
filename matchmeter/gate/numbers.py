"""Numbers as a rewrite may state them: the same value in other words, other units, other places.

The contract's numbers (contract.numbers_in) are what the Original binds; a candidate keeps one when it
states the value in any of the ways a paraphrase does: digits or words ("7" = "seven", "1" = "one" = "a
single", "4" = "fourth" = "4th"), compact units ("24h"), an equal amount in a neighbouring unit ("7 days" =
"a week", "24 hours" = "a day"), or with the unit moved out of reach of the two words after the number
("the two newest logs" = "2 logs, the newest"). A unit is a change only where both sides name one and they
differ ("7 days" → "7 hours"). These wider readings apply to the candidate only, so an Original's "one per
line" never becomes a number every rewrite must repeat.

A digit value the candidate states and the Original has in no form is a changed number, except where it is
layout: an inline enumerator ("(1) …, (2) …", "Step 1: … Step 2: …", any word that labels a run from 1: "Service 1,
… Service 2, …"), a count of the list that follows it ("these 3 things: …"), the size of one of the Original's
lists, or of its blocks in lines ("the two-line text below"), or a choice between two of a pair ("keep the higher of
the two versions"), or a code the article makes a noun ("a 404 on the home page").
"""

from __future__ import annotations

import re
from collections import Counter

from matchmeter.gate.contract import (
    LIST_ITEM,
    NUMBER_WORDS,
    PARAGRAPH_BREAK,
    code_blocks,
    enumerates,
    numbers_in,
    paths_in,
    plain_number,
    prose,
)
from matchmeter.gate.vocabulary import BACKTICK, stem

ONE = r"(?:one|a single|single|an?|(?:the )?(?:last|past))"
ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7",
            "eighth": "8", "ninth": "9", "tenth": "10"}
COMPACT = {"h": "hour", "hr": "hour", "hrs": "hour", "d": "day", "min": "minute", "mins": "minute", "s": "second",
           "sec": "second", "secs": "second", "ms": "ms", "kb": "kb", "mb": "mb", "gb": "gb", "wk": "week"}
# (value, unit) pairs that are the same amount
SAME_AMOUNT = [(("1", "week"), ("7", "day")), (("1", "day"), ("24", "hour")), (("1", "hour"), ("60", "minute")),
               (("1", "minute"), ("60", "second")), (("1", "second"), ("1000", "ms"))]
UNIT_OF = {"week": "week", "weeks": "week", "day": "day", "days": "day", "hour": "hour", "hours": "hour",
           "minute": "minute", "minutes": "minute", "second": "second", "seconds": "second", "decimal": "decimal",
           "line": "line", "lines": "line", "file": "file", "files": "file"}
ENUMERATOR = re.compile(r"(?:^|(?<=[\s:;,]))\((\d{1,2})\)|(?:^|(?<=[\s:;,]))(\d{1,2})\)(?=\s)|"
                        r"\b(?:step|part|stage|phase|task)\s+(\d{1,2})\b|(?m:^[ \t]*(\d{1,2})\.(?=\s))", re.I)
# "Service 1, **backend** … Service 2, **frontend**", "Output 1: … Output 2: …": a word that heads numbered labels
LABEL = re.compile(r"\b([A-Za-z]+)\s+(\d{1,2})(?=\s*[,:.)]|\s*\*\*|\s+[—–]\s)")
SENTENCE_ORDINAL = re.compile(r"(?:^|(?<=[.!?:]\s)|(?<=\n))\s*(" + "|".join(ORDINALS) + r")\b(?=[,:]|\s+(?:step|part|thing|task)\b)",
                              re.I)
BOTH = re.compile(r"\b(?:both|either|neither)\s+(?:of\s+)?(?:the\s+|these\s+|those\s+)?([a-z]+)", re.I)
TWO = re.compile(r"\b(?:two|2)\s+(?:of\s+)?(?:the\s+)?([a-z]+)", re.I)
# "keep the higher of the two versions": a choice between two things presupposes the pair, it counts nothing new
PAIR_CHOICE = re.compile(r"\b(?:(?!number\b|order\b|other\b|under\b|over\b|after\b)[a-z]+er|more [a-z]+|less [a-z]+|better|"
                         r"worse|either|neither|whichever|each|both) of (?:the |these |those )?$", re.I)


def stated(text: str) -> Counter[tuple[str, str]]:
    """(value, unit) pairs a candidate states, in every form the module docstring lists."""
    found = numbers_in(text)
    body = prose(text).lower()
    for m in re.finditer(rf"\b(?:{ONE})[\s-]+(\w+)", body):  # "one decimal", "a week", "a single file"
        if m.group(1) in UNIT_OF:  # "one per line" is no value: only a unit makes "one"/"a" a number
            found[("1", "=" + UNIT_OF[m.group(1)])] += 1
    for _ in re.finditer(r"\ba (?:pair|couple) of\b", body):  # "a pair of services" = "two services"
        found[("2", "")] += 1
    for value in bases(text):  # "numbered from one" states the 1 of "counting from 1"
        found[(value, "")] += 1
    for m in re.finditer(r"\b(" + "|".join(ORDINALS) + r")\b(?![\s-]+(?:of a |an? )?(?:second|minute)s?\b)", body):
        found[(ORDINALS[m.group(1)], "ordinal")] += 1  # "the fourth migration" = "migration 4"; never a unit's value
    for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)(" + "|".join(COMPACT) + r")\b", body):
        found[(plain_number(m.group(1)), COMPACT[m.group(2)])] += 1
    for a, b in SAME_AMOUNT:
        for x, y in ((a, b), (b, a)):
            n = found[x] + found[(x[0], "=" + x[1])]
            if n:
                found[(y[0], "=" + y[1])] += n
    return +found


def unstated(items: list[tuple[str, str]], found: Counter[tuple[str, str]]) -> list[tuple[str, str]]:
    """The Original's (value, unit) items the candidate does not state. Each is stated by a mention with the
    same unit, or where one side names no unit, by a mention no other item of that value needs: with "two
    files" and "2 decimals" in the Original, "two files" and "1 decimal" state only the files. A value read
    from a unit word ("a day" = 1 day = 24 hours; marked "=unit") counts only with that unit."""
    left = Counter(found)
    missing = []
    exact = [(v, u) for v, u in items if u]
    for value, unit in exact + [(v, u) for v, u in items if not u]:
        if left[(value, unit)] or (unit and left[(value, "=" + unit)]):
            left[(value, unit) if left[(value, unit)] else (value, "=" + unit)] -= 1
            continue
        spare = [(v, u) for (v, u), n in left.items() if n > 0 and v == value and (not unit or not u)
                 and not u.startswith("=") and (v, u) not in exact]
        if spare:
            left[spare[0]] -= 1
        else:
            missing.append((value, unit))
    return missing


def known_values(original: str) -> set[str]:
    """Every value the Original states in any form (a candidate may write its "one" or "first" as digits)."""
    values = {v for v, u in stated(original) if not u.startswith("=") and u != "ordinal"}
    body = prose(original).lower()
    values |= {NUMBER_WORDS[w] for w in re.findall(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", body)}
    return values | {v for v in values if v.startswith("x")}


def list_sizes(text: str) -> set[int]:
    """The number of items of each bulleted or numbered list of the prose (items of one list may wrap lines)."""
    sizes, run = set(), 0
    for line in prose(text).splitlines():
        if LIST_ITEM.match(line):
            run += 1
        elif line.strip() and not line.startswith((" ", "\t")):  # a paragraph line ends the list
            sizes.add(run)
            run = 0
    sizes.add(run)
    return {n for n in sizes if n >= 2}


RULED_OUT = re.compile(r"\b(?:not|never|nor|rather than|instead of)\s+$", re.I)


def only_ruled_out(candidate: str, value: str) -> bool:
    """Every mention of the value rules it out ("exactly one newline — not zero, not two"): it insists on the
    Original's number and asks for nothing new. A value also said plainly anywhere is a value."""
    words = [w for w, v in NUMBER_WORDS.items() if v == value] + [value]
    body = prose(candidate)
    hits = [m for w in words for m in re.finditer(rf"(?<![\w.]){re.escape(w)}(?![\w])", body, re.I)]
    return bool(hits) and all(RULED_OUT.search(body[max(0, m.start() - 12):m.start()]) for m in hits)


# "a 404 on the home page", "a 500 from the API": a number the article makes a noun names a code, it is no amount; one that
# a unit or a noun it counts follows ("a 30 second wait", "a 50-row limit") is still a value
NAMED_BY_ARTICLE = re.compile(r"\ban?\s+$", re.I)
AFTER_NAME = re.compile(r"\s*(?:[.,;:!?)]|$)|\s+(?:on|in|at|from|for|when|while|with|after|before|error|errors|response|"
                        r"responses|status|page|code)\b", re.I)


def named_by_article(candidate: str, value: str) -> bool:
    """Every mention of the value is a name the article gives ("a 404 on the home page"), not an amount."""
    body = prose(candidate)
    hits = list(re.finditer(rf"(?<![\w.]){re.escape(value)}(?![\w-]|\.\d)", body))
    return bool(hits) and all(NAMED_BY_ARTICLE.search(body[max(0, m.start() - 4):m.start()]) and
                              AFTER_NAME.match(body[m.end():]) for m in hits)


# "Two output files are needed. `a.csv`, ... `b.txt` ...": a count of files (or outputs, inputs) whose paragraph goes on to
# name that many paths counts what the text names, as "these two files" does
COUNTED_FILES = re.compile(r"\b(\d|" + "|".join(w for w, v in NUMBER_WORDS.items() if v.isdigit() and 2 <= int(v) <= 9) +
                           r")\s+(?:(?:output|input|result|source|data|separate|different|distinct)\s+)?(?:files|outputs|inputs|"
                           r"deliverables|artifacts)\b", re.I)


def counted_files(candidate: str) -> set[str]:
    """Values that count the paths named in the rest of their paragraph (COUNTED_FILES)."""
    body, out = prose(candidate), set()
    for m in COUNTED_FILES.finditer(body):
        end = PARAGRAPH_BREAK.search(body, m.end())
        named = {p for p in paths_in(body[m.end():end.start() if end else len(body)]) if "." in p.rsplit("/", 1)[-1]}
        value = m.group(1) if m.group(1).isdigit() else NUMBER_WORDS[m.group(1).lower()]
        if len(named) == int(value):
            out.add(value)
    return out


def new_values(original: str, candidate: str) -> list[str]:
    """Digit values of the candidate that the Original has in no form and that are not layout."""
    known, flat = known_values(original), " ".join(original.split())
    marks = {int(m.group(1) or m.group(2) or m.group(3) or m.group(4)) for m in ENUMERATOR.finditer(prose(candidate))}
    layout: set[str] = set()
    # "Two things to do. First, … Second, …": ordinals that open sentences enumerate like "(1) …, (2) …"
    marks |= {int(ORDINALS[m.group(1).lower()]) for m in SENTENCE_ORDINAL.finditer(prose(candidate))}
    labelled: dict[str, set[int]] = {}
    for m in LABEL.finditer(prose(candidate)):
        labelled.setdefault(m.group(1).lower(), set()).add(int(m.group(2)))
    marks |= {n for numbers in labelled.values() if {1, 2} <= numbers for n in numbers}  # one word labels a run
    while len(layout) + 1 in marks and {1, 2} <= marks:  # "(1) …, (2) …": a run from 1 is layout
        layout.add(str(len(layout) + 1))
    # a count of the list after it is layout only where the Original counted no list ("3 files: a, b, c" → "2
    # files: a, b, c" is a changed count)
    counts_lists = any(enumerates(original, v) for v, _ in numbers_in(original))
    # "It consists of three parts." over the Original's list of three: the size of one of its lists is layout
    layout |= {str(n) for n in list_sizes(original)}
    layout |= counted_files(candidate)
    # "both sides" → "the two sides": a 2 the Original says with both/either/neither of the same things
    paired = {stem(m.group(1)) for m in BOTH.finditer(prose(original))}
    body = prose(candidate)
    twos = list(TWO.finditer(body))
    if twos and all(stem(m.group(1)) in paired or PAIR_CHOICE.search(body[:m.start()]) for m in twos):
        layout.add("2")
    # "the two-line text below" over the Original's block of two lines: the size of one of its blocks, in lines
    block_lines = {str(len(b.strip("\n").splitlines())) for b in code_blocks(original) if b.strip()}
    out = []
    for value, unit in sorted((v, u) for v, u in stated(candidate) if not u.startswith("=") and u != "ordinal"):
        if value in known or not re.fullmatch(r"\d+(?:\.\d+)?", value) or value in layout:
            continue
        if unit == "line" and value in block_lines:
            continue
        if re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", flat) or (enumerates(candidate, value, back=True) and not counts_lists):
            continue
        if only_ruled_out(candidate, value) or (not unit and named_by_article(candidate, value)):
            continue
        out.append(value)
    # a value inside a code span the Original does not have: `{"median": 21.35}` states 21.35 as much as prose does
    for span in BACKTICK.findall(candidate):
        if span in original:
            continue
        # and an id-like run of digits (`OPS-58213`) the Original has nowhere
        ids = [d for d in re.findall(r"\d{4,}", span) if d not in original]
        ids += [h for h in re.findall(r"\b[0-9a-f]{7,64}\b", span)  # a commit hash or digest
                if re.search(r"\d.*\d", h) and re.search(r"[a-f].*[a-f]", h) and h not in original]
        for value in re.findall(r"(?<![\w./:-])\d+(?:\.\d+)?(?![\w/-]|\.\d)", span) + ids:
            value = plain_number(value)
            if value not in known and value not in layout and not re.search(rf"(?<![\w.]){re.escape(value)}(?!\w)", flat):
                out.append(value)
    return list(dict.fromkeys(out))


# where a count or an index starts ("counting from 1", "1-based", "the first line as line 0", "numbered from zero"): the
# Original's base said as another is a changed number, however it is said; the value alone (0 and 1) is in most texts
BASE = re.compile(r"\b(?:count\w*|number\w*|start\w*|index\w*|begin\w*)\s+(?:them\s+|lines\s+|rows\s+)?(?:from|at)\s+"
                  r"(?P<a>0|1|zero|one)\b|\b(?P<b>0|1|zero|one)[- ](?:based|indexed)\b|\bas (?:line|row|item|record|entry|"
                  r"number|index|position) (?P<c>0|1|zero|one)\b|\b(?:first|top) (?:line|row|item|record|entry)\b[^.;]{0,30}?"
                  r"\b(?:is|be|being|=|counts as) (?:line |row |number |index |position )?(?P<d>0|1|zero|one)\b|"
                  r"\b(?:starting|beginning) (?:the )?(?:count|numbering|index)\w* (?:at|from|with) (?P<e>0|1|zero|one)\b|"
                  r"\b(?:count|counting|numbering|indexing|numbers?|index) (?:starts?|begins?) (?:at|from|with) (?P<f>0|1|zero|one)\b",
                  re.I)


def bases(text: str) -> set[str]:
    """The starts of counts and indices a text states (BASE), as digits."""
    out = set()
    for m in BASE.finditer(prose(text)):
        value = next(g for g in m.groups() if g).lower()
        out.add({"zero": "0", "one": "1"}.get(value, value))
    return out


def changed_bases(original: str, candidate: str) -> list[str]:
    """The candidate's count starts where the Original states one and not that one."""
    said = bases(original)
    return sorted(bases(candidate) - said) if said else []
