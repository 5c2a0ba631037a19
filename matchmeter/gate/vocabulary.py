"""The words of obligations: how a clause forbids (keep / change / delete, negations, hedges) and the content
words two clauses are compared by, stemmed and folded (keep/stay/leave/preserve → <protect>, delete/remove →
<delete>, everything else / the rest → <rest>, a few same-thing words to one spelling). contract.py finds
obligations with them, obligations.py matches a candidate's against them.
"""

from __future__ import annotations

import re

BACKTICK = re.compile(r"`([^`\n]+)`")

OBLIGATION_WORDS = 0.5  # share of an object-less obligation's content words a candidate clause must carry
KEEP_VERB = r"(?:leave|leaves|left|keep|keeps|kept|stay|stays|remain|remains|preserve|preserved|retain|retained|retains)"
KEEP_END = (r"(?:alone|unchanged|untouched|unmodified|outside|in (?:its|their) (?:current|present|existing|original) "
            r"(?:place|location|spot|position|folder|directory)|as (?:it|they) (?:is|are|was|were|stands?)|where (?:it|they) (?:is|are)|"
            r"(?:exactly|precisely) as|in place|intact|the same|out of|byte for byte|as written|off limits)")
KEEPING = re.compile(rf"\b{KEEP_VERB}\b(?:[^.;:\n]|\.(?=[\w/]))*?\b{KEEP_END}", re.I)
CHANGE = r"(?:chang|modif|alter|touch|edit|delet|remov|rewrit|drop|renam|mov)\w*"
REST_KEPT = re.compile(rf"\b(?:nothing else|no other|everything else|the rest|the remainder|all else|nothing)\b(?:[^.;\n]|\.(?=\w))*?\b(?:{CHANGE}|stays?|remains?)",
                       re.I)
MODAL_NOT = re.compile(r"\b(?:must not|mustn't|must never|should not|shouldn't|should never|may not|cannot|can't|"
                       r"(?:is|are) not to be|not allowed|no need to|try not to|is not to|are not to|(?:neither|nor) (?:may|must|should|can))\b", re.I)
IMPERATIVE_NOT = re.compile(r"^(?:[\W\d]*(?:and|but|so|also|please|then|whatever you do|in any case|but)\b)*[\W]*"
                            r"(?:don't|do not|never|avoid)\b", re.I)
HEDGES = re.compile(r"\b(?:where(?:ver)? possible|if possible|whenever possible|as (?:far|much) as possible|ideally|"
                    r"preferably|if you (?:like|want|wish|can)|where you can|if convenient|when convenient|if it helps|"
                    r"try (?:not )?to|optional(?:ly)?|if practical|where practical|best effort|roughly|approximately|"
                    r"more or less|if needed|as needed|can be skipped|is fine either way|when(?:ever)? possible|"
                    r"(?:if|where|when(?:ever)?) (?:feasible|practicable|reasonable|it makes sense|time permits|you have time)|"
                    r"as (?:best|well)(?: as)? you can|(?:do|try) your best|as far as (?:practical|you can|reasonable)|"
                    r"if at all possible|nice to have|not (?:strictly )?(?:required|necessary|mandatory|essential)|"
                    r"(?:at|to) your discretion|up to you|should you (?:wish|want|prefer)|if you prefer|"
                    r"if (?:it'?s|it is) (?:easy|simple|convenient)|no need to be (?:exact|strict|precise)|"
                    r"within reason|(?:is|are) encouraged|(?:is|are) recommended|aim to|it would be (?:good|nice|better)|"
                    r"(?:if|where|when(?:ever)?) (?:it is |it's |they are |they're |one is )?(?:available|applicable|known)|"
                    r"as close (?:to [\w-]+ )?as (?:possible|you can|\w+ (?:\w+ )?allows?)|"
                    r"if you think (?:it|that|this) (?:makes sense|is (?:sensible|right|appropriate|needed|useful|worth it))|"
                    r"(?:it's|it is|that's|that is|are|is) (?:probably|likely|usually) (?:fine|ok|okay|acceptable|good enough)|"
                    r"probably|presumably|i'd guess|i guess|i suppose|use your (?:own )?judg(?:e)?ment|as you see fit|"
                    r"if (?:something|anything) else seems|unless (?:it's|it is) (?:hard|difficult|awkward|tricky)|"
                    r"(?:small|minor|slight) (?:differences|deviations|changes) (?:are|is) (?:\w+ )?(?:fine|ok|okay|acceptable)|"
                    r"i believe|i(?: am|'m) (?:fairly |pretty |quite |not (?:entirely )?)?sure|as far as i (?:know|can tell)|"
                    r"if i(?: am|'m) not mistaken|if i remember (?:correctly|right)|i think|i'm not certain|"
                    r"as closely? as (?:is )?(?:practical|possible|practicable|reasonable|you can|feasible)|"
                    r"i reckon|maybe|perhaps|possibly|whichever you (?:prefer|like|choose)|either (?:is|way is) fine|"
                    r"(?:whatever|whichever|any(?:thing|one)?|the (?:latest|first|last|closest|nearest) one) you can find|"
                    r"(?:is|are|would be) (?:fine|good enough|ok|okay|acceptable|alright) (?:too|as well)|"
                    r"along (?:these|those|the same|similar) lines|something (?:close|similar) to|"
                    r"or something (?:like|similar|close)|give or take|or so|as far as i (?:remember|recall)|"
                    r"i (?:may|might|could) (?:have|be) (?:\w+ )?(?:wrong|off|mistaken)|"
                    r"(?:a|one) (?:character|char|letter|digit|byte|word)s? or two|"
                    r"(?:any|whatever|whichever) (?:reasonable|sensible|standard|common|usual) (?:[\w-]+ ){0,3}(?:will do|"
                    r"is fine|works|should do|you like)|not too much trouble|"
                    r"(?:it's|it is|that's|that is|it'll be|it will be) (?:fine|ok|okay|acceptable|alright|no problem) if|"
                    r"(?:when|where) (?:it'?s|it is) (?:easy|simple|convenient|clear)|either (?:\w+ )?(?:will do|is fine|works)|"
                    r"(?:are|is|would be|will be) (?:also |equally |perfectly )?(?:fine|acceptable|ok|okay)(?=\s*[.;)]|\s+if\b)|"
                    # the alternative allowed ("if it ends up expanded, that works just as well") or the requirement
                    # said to go unchecked ("whether it has one isn't something we check"): a requirement made optional
                    r"(?:just|equally) as (?:well|good|fine|acceptable)|"
                    r"(?:(?:is|are)(?: not|n't)|will not be|won't be) (?:checked|verified|enforced)|"
                    r"(?:is|are|'s)(?: not|n't) (?:something|anything) (?:we|i|anyone|anybody|the [\w-]+) "
                    r"(?:check|verif|enforce|test|look)\w*|"
                    r"(?:we|i|the (?:checker|tests?|grader|verifier)) (?:don't|doesn't|do not|does not|won't|will not|never) "
                    r"(?:check|verify|enforce|test|look at)|(?:nobody|no one) (?:checks|verifies|enforces)|"
                    # a must said to hold as a rule only ("rows should usually be sorted", "mostly as written", "in most
                    # cases"), a preference ("station id then month would be nice", "if it comes easily"), said to matter
                    # little ("I don't think the order matters much") or let go where it clashes ("keep them where they
                    # don't get in the way", "the patch's version can win")
                    r"(?:should|must|needs? to|has to|have to|is to|are to) (?:usually|mostly|generally|normally|typically)|"
                    r"(?:usually|generally|normally|typically),? (?:you )?(?:should|must|need|want|would|'d)|in most cases|"
                    r"for the most part|most of the time|more often than not|(?:nearly|almost) always|rule of thumb|"
                    r"(?:mostly|largely) (?:as|in|sorted|unchanged|the same|intact|correct|right|verbatim|exact)|"
                    r"(?:would|'d) be (?:nice|nicer|good|great|better|preferable|helpful|appreciated)|if (?:it|that|this) comes easily|"
                    r"if (?:it'?s|it is|that'?s|that is|it isn'?t|it is not) (?:not )?(?:too )?(?:hard|easy enough|straightforward|"
                    r"no trouble|too much (?:work|trouble|effort))|"
                    r"matters? (?:much|that much|too much|a lot|greatly)|(?:doesn't|does not|don't|do not|won't|will not|wouldn't) "
                    r"(?:really|much|particularly|greatly) matter|"
                    r"(?:where|when|if|unless|as long as|so long as|provided)\s+(?:they|it|one|that|those|these|this|there)\s+"
                    r"(?:doesn't|don't|does not|do not|won't)\s+(?:clash|conflict|get in the way|interfere|collide)|"
                    r"unless (?:they|it|one|that|those|these|this) (?:clash|conflict|gets? in the way|interfere|collide)\w*|"
                    r"(?:can|may|is allowed to|are allowed to|gets? to) (?:win|prevail|take precedence))\b",
                    re.I)
# stems (prefixes) of the keep/change family and of deletion: all protect the same object
PROTECT = ("leav", "left", "keep", "kept", "stay", "remain", "preserv", "retain", "unchang", "untouch", "alon", "intact",
           "chang", "modif", "unmodif", "alter", "edit", "touch", "same")
DELETE = ("delet", "remov", "drop", "eras", "strip", "trim")
PHRASE_STOP = frozenset({"wher", "anywher", "anyth", "everyth", "someth", "exist", "current", "already"})
# words a paraphrase uses for the same thing ("what's already there" = "the existing part"), one spelling each
SAME_WORD = {"already": "existing", "current": "existing", "currently": "existing", "present": "existing",
             "input": "file", "inputs": "file", "document": "file", "documents": "file", "option": "setting",
             "options": "setting", "char": "character", "chars": "character", "surrounding": "around",
             "displayed": "shown", "printed": "shown", "appears": "shown"}
IRREGULAR = {"rewritten": "rewrite", "rewrote": "rewrite", "written": "write", "wrote": "write"}
OBLIGATION_STOP = frozenset({"the", "and", "any", "anything", "its", "it's", "that", "this", "these", "those", "them", "they", "you",
                  "your", "are", "was", "were", "for", "with", "from", "into", "when", "but", "not", "don't", "should",
                  "must", "will", "also", "only", "just", "all", "every", "other", "else", "there", "what", "what's",
                  "which", "have", "has", "had", "can", "may", "each", "one", "their", "then", "than", "been", "without",
                  "never", "nor", "do", "does", "is", "be", "to", "of", "in", "on", "it", "as", "or", "a", "an",
                  "exactly", "way", "whatever", "please", "itself", "nothing", "neither", "either", "so", "whole",
                  "being", "once", "done", "after", "before", "still", "ever", "avoid", "no", "let", "need",
                  "needs", "make", "sure", "ones"})


def stem(word: str) -> str:
    w = re.sub(r"['’]s$", "", word.lower()).strip("'’")  # "the Makefile's content" names the Makefile
    w = IRREGULAR.get(w, w)
    w = SAME_WORD.get(w, w)
    for _ in range(2):  # "settings" → "setting" → "sett", as "setting" → "sett"
        for suffix in ("ing", "ed", "es", "s", "e"):
            if len(w) > len(suffix) + 3 and w.endswith(suffix) and not w.endswith("ss"):
                w = w[: -len(suffix)]
                break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":  # "dropp" → "drop"
        w = w[:-1]
    if w.startswith(PROTECT):
        return "<protect>"
    if w.startswith(DELETE) or w == "rm":
        return "<delete>"
    return w


# "everything else", "nothing else", "every other", "the rest", "the remainder", "the remaining": one word, however it
# is said
REST = re.compile(r"\b(?:(?:every|any|no|all|some|each)(?:thing|one)?\s+(?:else|other)|nothing else|all the other|the rest|"
                  r"nothing (?:except|but|other than|apart from|besides)|(?:all |any )?remaining|rest of|the remainder|remainder of|all else|"
                  r"(?:every|all|any|each)(?= [\w-]+ (?:other than|except|but|besides|apart from))|"
                  r"(?:apart from|except for|besides) (?:the |that |this |its |your )?[\w-]+(?: [\w-]+)?(?= nothing)|(?<![\w-] )other(?= (?:\w+ )?(?:settings?|files?|lines?|"
                  r"entries|keys?|values?|fields?|rows?|columns?|branch(?:es)?|parts?|characters?|sections?|tables?|records?|"
                  r"notes?|jobs?|links?|options?|content)\b)|"
                  r"the remaining|the others?|everything|anything|^\W*(?:(?:and|but|so)\s+)?(?:apart from|except for|other than|besides)|"
                  r"(?:apart from|except(?: for)?|other than|besides|beyond) (?:that|this|these|those|them|it))\b", re.I)
FAMILY = frozenset({"<protect>", "<delete>"})


def content_words(text: str, asides: bool = False) -> set[str]:
    """Stemmed content words, the keep/change family folded into <protect>, delete/remove into <delete> and
    else/other/rest into <rest>; without parentheticals unless `asides` (an Original's aside is the reason,
    not the obligation; a candidate may move an obligation into one)."""
    text = BACKTICK.sub(" ", text) if asides else re.sub(r"\([^)]*\)", " ", BACKTICK.sub(" ", text))
    text = REST.sub(" zzrest ", text)
    words = re.findall(r"[a-z][a-z0-9_'’-]+", text.lower())
    return {"<rest>" if w == "zzrest" else stem(w) for w in words if w not in OBLIGATION_STOP and len(w) >= 3}
