"""Qualifiers of requirements: exactness ("exactly one argument", "a single newline", "the original bytes,
verbatim"), order ("in the original order", "sorted by `sku`", "newest first"), uniqueness ("without
duplicates", "each contact once") and precedence ("a later line for the same key wins over an earlier one"), each
bound to what it qualifies.

A rewrite that keeps a requirement's words but drops its qualifier asks for less: "keeps exactly one worker
running" → "keeps a worker running", "every valid entry, in the original order" → "every valid entry". Neither
has a path, number or literal for the contract to miss, so each qualifier of the Original is read with the
words it binds (its anchor: up to two content words after it and one before it, within its stretch of the
clause; for order, the words around it), and the candidate keeps it when a qualifier of the same family stands
within a few words of one of those anchor words. The candidate
is read more widely than the Original ("a single", "only", "verbatim", "as shown", "nothing else" for
exactness; any order or sort word for order; any word of precedence or of which one is kept, "replaces", "the last
counts", for precedence), so a paraphrase that says the same thing another way keeps it.

Three more say what a requirement covers without a number or literal: an edge case ("overrides both, even when
it sets a value to empty"), bound to the words of the case and kept by "even", "regardless", "also", "included",
... next to one of them, or by "however old", "no matter how" next to the requirement's words; a thing made empty
("Create an empty file"), kept by any word of emptiness; and a time bound in words ("returns within a few
seconds"), kept by any mention of its unit, or of its immediacy for seconds ("right away").

A third kind is the positive keeping requirement, "Keep the existing entries", "keep the changes made in the
meantime": no prohibition (nothing is "left as it is"), yet dropping it lets a rewrite's reader wipe what is
there. It counts where what is kept is named as already there (existing, current, already, in the meantime,
original, previous, other), and is kept by any candidate part that protects (a prohibition, a keeping
statement, "keep ...", "... stay", "without losing ...") at least half of its words.

A fourth is the exclusion, a short statement of what to leave out of a result ("Rows without a date are
noise; skip them", "Ignore the archived projects"): dropping it widens what is counted. It is kept by any
candidate clause (or two consecutive ones) with a word that leaves out, limits or negates ("only", "without",
"not", "except", "skip", ...) and at least half of the words of what is left out (for a pronoun, "skip them",
the words of the clause before). A long clause with an aside ("one row per reading (skip the missing ones)") is
a requirement of its own and not read as one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from matchmeter.gate.contract import clauses, is_directive, parts
from matchmeter.gate.obligations import candidate_directive
from matchmeter.gate.vocabulary import FAMILY, OBLIGATION_STOP, content_words, stem

# Original side: what makes a requirement exact. "exactly as written" binds what stands before it.
EXACT = re.compile(r"\b(?:exactly|exact|verbatim|precisely|byte[- ]for[- ]byte|character[- ]for[- ]character|"
                   r"(?:a|one) single|single|unchanged|unmodified|unaltered|as[- ]is)\b", re.I)
# Candidate side: every way a paraphrase says the same ("a single argument", "only those fields", "as shown").
EXACT_WIDE = re.compile(r"\b(?:exactly|exact|verbatim|precisely|byte[- ]for[- ]byte|character[- ]for[- ]character|"
                        r"word[- ]for[- ]word|letter[- ]for[- ]letter|single|sole|lone|only|just|identical(?:ly)?|"
                        r"the same|unchanged|untouched|unmodified|unaltered|as[- ]is|as (?:written|shown|given|quoted|"
                        r"it (?:is|stands))|nothing (?:else|more|less)|(?:nothing|none|no \w+) (?:other than|but|except)|no (?:more|less|other|fewer)|and no\b|no[- ]more[- ]no[- ]less|"
                        r"literally|to the letter|every (?:single )?(?:character|byte|char))\b", re.I)
ONE = re.compile(r"\b(?:one|1)\b", re.I)  # "a single newline" = "one newline"; "exactly one" is more than "one"
# "in any order", "in no particular order" ask for none
ORDER = re.compile(r"\b(?:in (?!(?:any|no|whatever|an? arbitrary|random)\b)(?:the |their |its )?(?:[\w-]+ )?order|"
                   r"order(?:ed)? (?:by|of|as)|sort(?:ed|s|ing)? (?:by|on|in)|in (?:ascending|descending|alphabetical|"
                   r"chronological|numeric(?:al)?|reverse|increasing|decreasing) order|(?:newest|oldest|latest|earliest|"
                   r"largest|smallest|highest|lowest|most recent|biggest)(?: \w+)? first|(?:apply|process|handle)\w* them "
                   r"in (?:the |that )?order|chronologically|alphabetically)\b", re.I)
ORDER_WIDE = re.compile(r"\b(?:(?:in|out of) (?:the |their |its |this |that |same )?(?:[\w-]+ )?order|"
                        r"(?:keep\w*|preserv\w*|retain\w*|maintain\w*|same|original|follow\w*|respect\w*) (?:the |their |its )?"
                        r"(?:[\w-]+ )?order|order (?:given|listed|shown|above|below)|order(?:ed|ing)|order of|sort\w*|first|last|ascending|descending|chronolog\w*|alphabetic\w*|sequence|"
                        r"sequential\w*|as (?:listed|given)|as they (?:appear|come|are listed)|in turn|one after (?:another|"
                        r"the other)|increasing|decreasing|earliest|latest|newest|oldest|highest|lowest|top|bottom|rank\w*)\b", re.I)
UNIQUE = re.compile(r"\b(?:without (?:any )?duplicates?|no duplicates?|de-?duplicated|(?:only|exactly|just|each [\w-]+) once|"
                    r"unique|distinct)\b", re.I)  # not a bare "once": "once decoded", "Once `start.sh` has run"
UNIQUE_WIDE = re.compile(r"\b(?:duplicat\w*|de-?dup\w*|once|unique\w*|distinct|twice|repeat\w*|more than one|several times|"
                         r"single)\b", re.I)
# "don't bother deduplicating", "no need to de-dupe", "without deduplicating": a clause that lets de-duplication go
# allows repeats, whatever other uniqueness word it has ("a repeated tag is harmless, so don't bother deduplicating");
# a negated duplicate ("must not be duplicated") still asks for uniqueness
# ... and so does one that calls repeats harmless ("duplicates are fine", "it's OK if a tag shows up twice", "keep any
# repeats", "they needn't be unique")
DEDUP_LET_GO = re.compile(r"\b(?:don't|do not|needn't|need not|no need to|not|never|without)\s+(?:[\w-]+\s+){0,2}"
                          r"de-?dup\w*|\b(?:duplicates?|repeats?|doubles?|repetitions?)\s+(?:are|is|may|can)\b[^.;]{0,20}"
                          r"\b(?:fine|allowed|ok|okay|harmless|acceptable|tolerated|stay|remain|permitted)\b|"
                          r"\b(?:it's|it is|that's|that is)\s+(?:fine|ok|okay|acceptable|harmless|no problem)\s+(?:if|for|when)\b[^.;]{0,40}"
                          r"\b(?:twice|more than once|repeat\w*|duplicat\w*|again)\b|"
                          r"\b(?:no need|don't need|do not need|needn't|need not|not necessary|doesn't need|does not need|don't have|"
                          r"doesn't have|do not have|does not have)\b[^.;]{0,30}\b(?:unique|distinct)\b|"
                          r"\b(?:keep|leave|retain)\s+(?:the\s+|any\s+|all\s+)?(?:duplicates|repeats|doubles)\b", re.I)
# which of two values for one thing counts ("a later line for the same key wins over an earlier one"): bound to the
# words around it; a paraphrase says it with any word of precedence or of which one is kept next to them
PRECEDENCE = re.compile(r"\b(?:wins?|wins? out|takes? precedence|prevails?|(?:has|have|gets?) (?:priority|precedence))"
                        r"(?: over)?\b", re.I)
PRECEDENCE_WIDE = re.compile(r"\b(?:win\w*|overrid\w*|overrul\w*|overwrit\w*|precedence|prevail\w*|priorit\w*|trump\w*|"
                             r"replac\w*|supersed\w*|beats?|counts?|later|last|latest|newer|newest|final say)\b", re.I)
# an edge case a requirement still covers ("`local.env` wins, even when it sets a value to empty"), bound to the words of
# the case; a paraphrase says it with "even", "regardless", "also", "too", "including when", ... next to them
# ... or the requirement carried over to more things ("the jobs queued now should all get processed, and so should jobs that
# arrive later"), bound to the words of what it is carried over to
EVEN = re.compile(r"\beven (?:when|if|though|where|whe(?:n|re)ver)\b|\b(?:and|as) so (?:should|must|do|does|will|can|are|is|"
                  r"would)\b|\b(?:and|as) (?:should|must|do|does|will) (?=(?:the|any|all|every|each|those|jobs?|files?|lines?|"
                  r"rows?|entries|items?|ones?)\b)", re.I)
EVEN_WIDE = re.compile(r"\b(?:even|regardless|no matter|whether or not|includ\w*|also|too|as well|still|applies|holds|likewise|"
                       r"(?:and|as) so|as (?:should|must|do|does|will)|the same (?:goes|holds|applies)|the same for|along with|"
                       r"together with|as well as|and any)\b", re.I)
EDGE_WORDS = 3  # content words after "even when" that name the case
# a clause that lets the edge case go ("it overrides both, except when it sets a value to empty", "empty values needn't
# override", "that case can be ignored") names its words without keeping it
EDGE_LET_GO = re.compile(r"\b(?:except|unless|but not|not when|not if|need not|needn't|(?:don't|doesn't|do not|does not) "
                         r"(?:need|have) to|no need to|(?:can|may) (?:be )?(?:ignored|skipped|left out|dropped)|(?:you )?(?:can|may) "
                         r"(?:ignore|skip)|(?:is|are) optional)\b", re.I)
# ... or said as "any case at all" of the requirement: "the two newest logs are always kept, however old"
ANY_CASE = re.compile(r"\b(?:however [\w-]+|no matter (?:how|what|whether|if|when)|whatever (?:its|their|the)|regardless|"
                      r"in (?:any|every|all) cases?)\b", re.I)
# a thing made empty ("Create an empty file in `inbox/`"): a file made with content is another file. Said of the thing
# anywhere in a paraphrase ("Create the file. It must be empty."), so any mark of emptiness keeps it. An empty line is
# layout ("write the header, then an empty line"), which a paraphrase may call blank
EMPTY = re.compile(r"\b(?:creat|mak|add|touch|writ|put|start|initiali[sz])\w*\s+(?:(?:an?|one|the)\s+)?(?:new,?\s+)?"
                   r"(?:empty|blank)\b(?!\s+lines?\b)", re.I)
EMPTY_WIDE = re.compile(r"\b(?:empty|no content|nothing in it|zero[- ]length|zero bytes|0 bytes|contentless|blank(?! lines?\b))\b",
                        re.I)
# a time bound said in words ("returns within a few seconds"): no digit for the contract, still a bound; a paraphrase
# keeps it by naming the unit ("within seconds", "a couple of seconds") or, for seconds, by saying it does not wait
BOUND = re.compile(r"\b(?:within|in|under|after|for|every)\s+(?:a few|a couple(?: of)?|several|a handful of|a matter of)\s+"
                   r"(?P<unit>second|minute|hour|day|week)s?\b", re.I)
AT_ONCE = re.compile(r"\b(?:immediately|right away|at once|straight away|quickly|promptly|without (?:blocking|waiting|delay))\b|"
                     r"(?:\bnot|n't|\bnever) (?:block|hang|wait)", re.I)
KEEP_EXISTING = re.compile(r"^\W*(?:(?:and|but|so|also|please)\s+)*(?:keep|preserve|retain)\b(?P<what>[^.;:,(]*\b(?:existing|"
                           r"current|already|meantime|original|previous|earlier|other)\b[^.;:,(]*)", re.I)
KEEPS = re.compile(r"^\W*(?:(?:and|but|so|also|please|then|just)\s+)*(?:you (?:must |should |need to |will |have to )?)?"
                   r"(?:keep|preserve|retain|leave)\b", re.I)
PROTECTS = re.compile(r"\b(?:stays?|remains?|kept|preserved|retained|keeping|preserving|retaining|intact|untouched|unchanged)\b|\b(?:don't|do not|never|"
                      r"must not|mustn't|without) (?:los|drop|remov|delet|overwrit|discard|wip|clobber|lose|touch|chang)\w*|"
                      # "none of the other changes may be lost", "nothing made since then is to be undone"
                      r"\b(?:none|nothing|no \w+)\b[^.;]*?\b(?:may|must|should|can|is to|are to|will|gets?) be "
                      r"(?:lost|dropped|discarded|undone|reverted|wiped|thrown away)\b|"
                      r"\b(?:may|must|should|can|is to|are to|will) not be (?:lost|dropped|discarded|undone|reverted|wiped)\b", re.I)
# a state to leave something in ("Leave the working tree clean", "leave `inbox/` empty"): kept by a clause that names the
# state (or says it another way) and at least half the words of what is left in it
LEAVE_STATE = re.compile(r"^\W*(?:(?:and|but|so|also|please|then)\s+)*leave\s+(?P<what>[^.;:,()]+?)\s+(?P<state>clean|empty|tidy)\b",
                         re.I)
STATE_WORDS = {"clean": re.compile(r"\b(?:clean|tidy|no (?:uncommitted|stray|leftover|untracked)|nothing (?:uncommitted|to commit|"
                                   r"left over)|(?:not|never)(?: \w+){0,3} dirty)\b", re.I),
               "tidy": re.compile(r"\b(?:clean|tidy|no (?:stray|leftover)|nothing left over)\b", re.I),
               "empty": re.compile(r"\b(?:empty|emptied|no (?:\w+ )?(?:files?|entries|items|lines)|nothing (?:left )?in)\b", re.I)}
# verbs that say what to do with a thing, never which thing: "use exactly this message" binds the message
VERB_WORDS = ("use", "make", "write", "put", "give", "set", "get", "run", "need", "want", "print", "add", "hold", "contain",
              "show", "receive", "pass", "end", "start", "appear")
NEAR = 3  # words between a qualifier and what it binds
WINDOW = 6  # words either side of an order phrase that say what is ordered
FILLER = frozenset({"as", "this", "these", "those", "the", "a", "an", "one", "written", "shown", "given", "below", "above",
                    "follows", "following", "stated", "quoted", "same", "its", "their", "it", "them", "is", "are"})


@dataclass(frozen=True)
class Qualifier:
    family: str  # "exact", "single", "order", "unique", "precedence", "even", "empty" or "bound"
    text: str  # the Original's words, for the reason
    anchor: frozenset[str]  # stems of the words it binds
    about: frozenset[str] = frozenset()  # "even": the words of the requirement the edge case is of


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, stem) of every word; backticked literals count as words (`sku` is what is sorted by)."""
    return [(m.start(), m.end(), _stem(m.group(0))) for m in re.finditer(r"`[^`\n]+`|[\w'’-]+", text)]


def _stem(word: str) -> str:
    """vocabulary.stem, with a final -ed, -es or -e dropped so "name", "names" and "named" meet."""
    s = stem(word.strip("`").lower())
    s = s[:-2] if len(s) > 4 and s.endswith(("ed", "es")) else s
    return s[:-1] if len(s) > 3 and s.endswith("e") else s


VERBS = frozenset(_stem(w) for w in VERB_WORDS)
# what a payload is called ("exactly this text:", "the line below, verbatim"): a mark before the block binds it
PAYLOAD = frozenset(_stem(w) for w in ("text", "string", "line", "block", "content", "message", "format", "payload",
                                        "bytes", "value"))
OWN_WORDS = frozenset(_stem(w) for w in ("order", "sort", "sorted", "first", "duplicate", "duplicates", "unique", "distinct",
                                         "once", "win", "wins", "over", "precedence", "priority", "prevail", "prevails"))


def _content(stems: list[str]) -> list[str]:
    """Words that can be what a qualifier binds: not stop words, fillers, numbers or the keep/change family."""
    return [s for s in stems if s not in OBLIGATION_STOP and s not in FILLER and s not in FAMILY and len(s) >= 3
            and not s.isdigit()]


def _segment(clause: str, start: int, end: int) -> tuple[str, str]:
    """The words before and after a match up to the nearest punctuation: what the qualifier can bind."""
    left = re.split(r"[,;:()\[\]—–]|\s-\s", clause[:start])[-1]
    right = re.split(r"[,;:()\[\]—–]|\s-\s", clause[end:])[0]
    return left, right


KEEP_SAID = re.compile(r"\bexactly as (?:it|they) (?:is|are|was|were|stands?)\b", re.I)  # a prohibition's, not ours


@functools.lru_cache(maxsize=256)  # once per Original, however many candidates the gate reads against it
def qualifiers(original: str) -> tuple[Qualifier, ...]:
    """The exactness, order and uniqueness qualifiers of the Original's prose, each with its anchor: up to two
    content words after it and one before it, within its stretch of the clause ("whose name is exactly the text
    below" binds name and text; "exactly what is in `out.txt`" binds what it follows and `out.txt`)."""
    out: list[Qualifier] = []
    for clause in clauses(original):
        forbidding = [(at, at + len(p)) for p in parts(clause) if is_directive(p) and (at := clause.find(p)) >= 0]
        asides = [(a.start(), a.end()) for a in re.finditer(r"\([^)]*\)", clause)]
        matches = list(EXACT.finditer(clause))
        in_aside = [any(a <= m.start() < b for a, b in asides) for m in matches]
        for m, aside in zip(matches, in_aside, strict=True):
            # "exactly as it is", "keep `x` unchanged": the prohibition's own words, which obligations.py checks;
            # "exactly as written (it must appear verbatim)": an aside restating the clause's qualifier adds none
            if KEEP_SAID.match(clause, m.start()) or any(a <= m.start() < b for a, b in forbidding) or \
                    (aside and not all(in_aside)):
                continue
            left, right = _segment(clause, m.start(), m.end())
            anchor = [a for a in _content([t[2] for t in _tokens(right)]) if a not in VERBS][:2] + \
                [a for a in _content([t[2] for t in _tokens(left)]) if a not in VERBS][-1:]
            family = "single" if "single" in m.group(0).lower() else "exact"
            if anchor:
                out.append(Qualifier(family, " ".join(clause[m.start():].split()[:5]), frozenset(anchor)))
        toks = _tokens(clause)
        for family, pattern in (("order", ORDER), ("unique", UNIQUE), ("precedence", PRECEDENCE)):
            out += _windowed(family, pattern, clause, toks)
        for m in EVEN.finditer(clause):
            case = _content([t[2] for t in _tokens(_segment(clause, m.start(), m.end())[1])])[:EDGE_WORDS]
            about = _content([t[2] for t in _tokens(clause[:m.start()])])[-WINDOW:]
            if case:
                out.append(Qualifier("even", " ".join(m.group(0).split()), frozenset(case), frozenset(about)))
        out += [Qualifier("empty", " ".join(m.group(0).split()), frozenset({"empty"})) for m in EMPTY.finditer(clause)]
        out += [Qualifier("bound", " ".join(m.group(0).split()), frozenset({m.group("unit").lower()}))
                for m in BOUND.finditer(clause)]
    return tuple(out)


def _windowed(family: str, pattern: re.Pattern[str], clause: str, toks: list[tuple[int, int, str]]) -> list[Qualifier]:
    """Order and uniqueness qualifiers bind the words around them ("each list sorted and without duplicates")."""
    out = []
    for m in pattern.finditer(clause):
        first = next((i for i, t in enumerate(toks) if t[1] > m.start()), 0)
        last = next((i for i, t in enumerate(toks) if t[0] >= m.end()), len(toks))
        own = {t[2] for t in toks[first:last]}
        window = _content([t[2] for t in toks[max(0, first - WINDOW):first] + toks[last:last + WINDOW]])
        bound = set(window) | (set(_content(sorted(own))) - OWN_WORDS)
        if bound:
            out.append(Qualifier(family, " ".join(m.group(0).split()), frozenset(bound)))
    return out


WIDE = {"order": ORDER_WIDE, "unique": UNIQUE_WIDE, "precedence": PRECEDENCE_WIDE}  # the windowed families (_windowed)


def _kept(q: Qualifier, tokenized: list[tuple[str, list[tuple[int, int, str]]]]) -> bool:
    """A mark of the qualifier's family near one of its anchor words in some (clause, tokens) of the candidate (a
    bound: its unit anywhere; emptiness: said anywhere)."""
    if q.family == "bound":
        (unit,) = q.anchor
        said = re.compile(rf"\b{unit}s?\b", re.I)
        return any(said.search(clause) or (unit == "second" and AT_ONCE.search(clause)) for clause, _ in tokenized)
    if q.family == "empty":
        return any(EMPTY_WIDE.search(clause) for clause, _ in tokenized)
    if q.family == "unique":
        tokenized = [(clause, toks) for clause, toks in tokenized if not DEDUP_LET_GO.search(clause)]
    if q.family == "even":
        tokenized = [(clause, toks) for clause, toks in tokenized if not EDGE_LET_GO.search(clause)]
    # what is ordered may stand across a comma: "one line per file, sorted by region"
    if q.family in WIDE:
        return _marked_near(WIDE[q.family], q.anchor, tokenized)
    if q.family == "even":
        return _marked_near(EVEN_WIDE, q.anchor, tokenized) or _marked_near(ANY_CASE, q.about, tokenized)
    for k, (clause, toks) in enumerate(tokenized):
        marks = list(EXACT_WIDE.finditer(clause)) + (list(ONE.finditer(clause)) if q.family == "single" else [])
        marks = [m for m in marks if not _in_name(clause, m)]
        for m in marks:
            first = next((i for i, t in enumerate(toks) if t[1] > m.start()), len(toks))
            last = next((i for i, t in enumerate(toks) if t[0] >= m.end()), len(toks))
            # counted in content words within the mark's stretch of the clause: "exactly the contents of `out.txt`"
            # binds `out.txt`, "the text below, joined into a single line" does not bind "text"; the mark binds itself
            left, right = _segment(clause, m.start(), m.end())
            lo, hi = m.start() - len(left), m.end() + len(right)
            before = _content([t[2] for t in toks[:first] if t[0] >= lo])[-NEAR:]
            if not before:  # "the block below, byte for byte": a mark that opens its stretch qualifies the one before
                before = _content([t[2] for t in toks[:first]])[-NEAR:]
            after = _content([t[2] for t in toks[last:] if t[1] <= hi])[:NEAR]
            near = set(before) | {t[2] for t in toks[first:last]} | set(after)
            # "Message to commit with (…; every character exactly as shown)": an aside qualifies what it is attached to
            opened = re.search(r"\([^()]*$", clause[:m.start()])
            if opened:
                near |= set(_content([t[2] for t in toks if t[1] <= opened.start()])[-NEAR:])
            elif re.match(r"[^()]*\)", clause[m.end():]):  # the aside opened in an earlier clause (split at its ';')
                for prev, ptoks in reversed(tokenized[max(0, k - 3):k]):
                    if (at := prev.rfind("(")) >= 0:
                        near |= set(_content([t[2] for t in ptoks if t[1] <= at])[-NEAR:])
                        break
            if near & q.anchor:
                return True
            # "it gets exactly one argument, exactly:" and the block: an exactness word that is its clause's whole last
            # stretch (the colon before a payload) qualifies the payload, whatever the Original called it
            if (not clause[m.end():].strip(" .") and not left.strip() and q.anchor & PAYLOAD
                    and re.fullmatch(r"exactly|verbatim|precisely|\w+[- ]for[- ]\w+|literally|to the letter", m.group(0), re.I)):
                return True
    return False


def _marked_near(pattern: re.Pattern[str], words: frozenset[str], tokenized: list[tuple[str, list[tuple[int, int, str]]]]) -> bool:
    """A mark of the pattern within WINDOW words of one of the words, in some (clause, tokens) of the candidate."""
    for clause, toks in tokenized:
        for m in pattern.finditer(clause):
            if _in_name(clause, m):
                continue
            first = next((i for i, t in enumerate(toks) if t[1] > m.start()), len(toks))
            last = next((i for i, t in enumerate(toks) if t[0] >= m.end()), len(toks))
            if {t[2] for t in toks[max(0, first - WINDOW):last + WINDOW]} & words:
                return True
    return False


def _in_name(text: str, m: re.Match[str]) -> bool:
    """The match is part of a file or identifier name (`first.txt`, `sort_keys`), not a word of the prose."""
    return bool(re.match(r"[./_-]\w", text[m.end():m.end() + 2]) or re.search(r"[`/_.-]$", text[:m.start()]))


def dropped_qualifiers(original: str, candidate: str) -> list[Qualifier]:
    """The Original's qualifiers the candidate states nowhere next to what they bind."""
    tokenized = [(clause, _tokens(clause)) for clause in clauses(candidate)]  # once, for every qualifier
    return [q for q in qualifiers(original) if not _kept(q, tokenized)]


def keeping_requirements(original: str) -> list[tuple[str, set[str]]]:
    """(text, words) of each positive keeping requirement of the Original (module docstring)."""
    out = []
    for clause in clauses(original):
        for part in parts(clause):
            m = KEEP_EXISTING.match(part)
            if m and not candidate_directive(part):  # a prohibition already: obligations.py keeps it
                words = content_words(m.group("what")) - FAMILY
                if words:
                    out.append((" ".join(part.split()), words))
    return out


def dropped_keeping(original: str, candidate: str) -> list[str]:
    """The Original's keeping requirements no protecting part of the candidate carries."""
    cand = clauses(candidate)
    protecting = [content_words(part, asides=True) for clause in cand for part in parts(clause)
                  if candidate_directive(part) or KEEPS.match(part) or PROTECTS.search(part)]
    dropped = [text for text, words in keeping_requirements(original)
               if not any(len(words & found) * 2 >= len(words) for found in protecting)]
    # "Leave the working tree clean": the state word and half the words of what is left in it, in one clause
    states = [m for clause in clauses(original) for part in parts(clause) if (m := LEAVE_STATE.match(part))]
    said = [(content_words(clause, asides=True), clause) for clause in cand] if states else []
    for m in states:
        words, state = content_words(m.group("what")) - FAMILY, m.group("state").lower()
        if not any(STATE_WORDS[state].search(text) and len(words & found) * 2 >= len(words) for found, text in said):
            dropped.append(" ".join(m.group(0).split()))
    return dropped


# "leave them out", "exclude the drafts", "skip", "ignore", "omit", "disregard", "don't count": what to leave out
EXCLUDES = re.compile(r"\b(?:leave (?:[\w-]+ ){0,3}out|left out|exclud\w*|omit\w*|skip\w*|ignor\w*|disregard\w*|"
                      r"(?:don't|do not) count)\b", re.I)
# a paraphrase leaves out with any word that excludes, limits or negates ("only orders with a total count")
EXCLUDES_WIDE = re.compile(r"\b(?:leave|left|out|exclud\w*|omit\w*|skip\w*|ignor\w*|disregard\w*|drop\w*|filter\w*|"
                           r"discard\w*|only|without|except\w*|not|no|never|none)\b|n't\b", re.I)
EXCLUSION_WORDS = 12  # longer, the exclusion is an aside of another requirement


def exclusions(original: str) -> list[tuple[str, set[str]]]:
    """(text, words of what is left out) of each short exclusion statement of the Original (module docstring)."""
    out = []
    found = clauses(original)
    for i, clause in enumerate(found):
        for part in parts(clause):
            if not EXCLUDES.search(part) or len(part.split()) > EXCLUSION_WORDS:
                continue
            words = content_words(EXCLUDES.sub(" ", part)) - FAMILY  # what is left out, without the verb
            if len(words) < 2 and i:  # "leave them out": what it leaves out is named in the clause before
                words |= content_words(found[i - 1]) - FAMILY
            if words:
                out.append((" ".join(part.split()), words))
    return out


def dropped_exclusions(original: str, candidate: str) -> list[str]:
    """The Original's exclusions that no candidate clause (or two consecutive ones) states."""
    cand = clauses(candidate)
    stretches = [" ".join(cand[i:i + 2]) for i in range(len(cand))]
    said = [content_words(text, asides=True) for text in stretches if EXCLUDES_WIDE.search(text)]
    return [text for text, words in exclusions(original) if not any(len(words & have) * 2 >= len(words) for have in said)]
