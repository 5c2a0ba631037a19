"""Writes the labelled gate corpus (gate_corpus.jsonl) from the suite's descriptions; run once, output committed.

Each case is one rewrite of a suite description, written the way a model asked to "make this clearer"
tends to write (restating, bulleting, re-punctuating, unquoting) and, for the unfaithful ones, with
one realistic slip of a known kind. The split into dev / test is fixed here, by SEED, before any gate
rule was written against the corpus: a random fifth of the cases is the held-out test set.

    python -m matchmeter.gate.corpus.make_corpus      # rewrites gate_corpus.jsonl next to this file
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matchmeter.gate.corpus.hand_cases import HAND_CASES
from matchmeter.schema import sha256_text

SEED = 15
TEST_FRACTION = 0.2
SUITE = Path(__file__).resolve().parents[2] / "tasks" / "suite"
OUT = Path(__file__).resolve().parent / "gate_corpus.jsonl"
BACKTICK = re.compile(r"`([^`\n]+)`")
PATHISH = re.compile(r"^[\w.\-<>*]*(/[\w.\-<>*]*)+$|^[\w\-]+\.[A-Za-z]\w{0,5}$")
WORDS = {"two": "three", "three": "four", "seven": "eight", "five": "six", "double": "triple", "one": "two"}


def _sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`*(])", flat) if s]


def _has_block(text: str) -> bool:
    return "```" in text or "\n    " in text or "-----" in text


def _ticks(text: str) -> list[str]:
    return list(dict.fromkeys(BACKTICK.findall(text)))


def _paths(text: str) -> list[str]:
    return [t for t in _ticks(text) if PATHISH.match(t)]


def _values(text: str) -> list[str]:
    return [t for t in _ticks(text) if not PATHISH.match(t) and len(t) >= 3]


def _reference(task_dir: Path) -> list[str]:
    import tomllib

    data = tomllib.loads((task_dir / "task.toml").read_text())
    return [c for p in data.get("reference_paths", []) for c in p.get("commands", []) if "\n" not in c]


# ------------------------------------------------------------------ faithful rewrites


def f_restate(text: str, rnd: random.Random) -> str | None:
    paths = _paths(text)
    extra = [
        "Every name and value above is meant exactly as written.",
        "Nothing beyond what is described above is needed.",
        "In other words, the result is judged only on the points above.",
    ]
    if paths:
        extra.append(f"All paths mentioned ({', '.join(paths[:3])}) are relative to the working directory.")
    return text.rstrip() + "\n\n" + rnd.choice(extra) + "\n"


def f_bullets(text: str, rnd: random.Random) -> str | None:
    if _has_block(text):
        return None
    sents = _sentences(text)
    if len(sents) < 3:
        return None
    head = rnd.choice(["What is needed:", "Requirements:", "To summarise the task:"])
    return sents[0] + "\n\n" + head + "\n" + "\n".join(f"- {s}" for s in sents[1:]) + "\n"


def f_dotslash(text: str, rnd: random.Random) -> str | None:
    rel = [p for p in _paths(text) if not p.startswith("/") and "/" in p.rstrip("/") or p.endswith("/")]
    if not rel:
        return None
    p = rnd.choice(rel)
    new = text.replace(f"`{p}`", f"`./{p}`", 1)
    if p.endswith("/") and rnd.random() < 0.5:
        new = new.replace(f"`./{p}`", f"`./{p.rstrip('/')}`", 1)
    return new.rstrip() + "\n\n(Paths are relative to the working directory.)\n"


def f_unquote(text: str, rnd: random.Random) -> str | None:
    paths = [p for p in _paths(text) if " " not in p]
    if not paths:
        return None
    new = text
    for p in rnd.sample(paths, min(2, len(paths))):
        new = new.replace(f"`{p}`", p)
    return new.rstrip() + "\n\nTo be clear, the task is exactly as stated above.\n"


def f_repunctuate(text: str, rnd: random.Random) -> str | None:
    if ";" not in text and ", and " not in text:
        return None
    new = re.sub(r";\s+(\w)", lambda m: ". " + m.group(1).upper(), text, count=2)
    if new == text:
        new = text.replace(", and ", ". And ", 1)
    return new.rstrip() + "\n\nPlease read every requirement above carefully.\n"


def f_reorder(text: str, rnd: random.Random) -> str | None:
    paras = [p for p in text.strip().split("\n\n") if p.strip()]
    if len(paras) < 2 or _has_block(text):
        return None
    last = paras.pop()
    return paras[0] + "\n\n" + "Important: " + last[0].lower() + last[1:] + "\n\n" + "\n\n".join(paras[1:]) + "\n"


def f_prohibition_synonym(text: str, rnd: random.Random) -> str | None:
    swaps = [(r"\bDon't touch\b", "Do not modify"), (r"\bdon't change\b", "do not make any change to"),
             (r"\bLeave (`[^`]+`) alone\b", r"Leave \1 exactly as it is"),
             (r"\bleave (`[^`]+`) exactly as it is\b", r"do not modify \1 in any way"),
             (r"\bKeep (`[^`]+`) as it is\b", r"Do not change \1"), (r"\bDon't\b", "Do not")]
    for pat, rep in swaps:
        new = re.sub(pat, rep, text, count=1)
        if new != text:
            return new.rstrip() + "\n\nThat restriction is strict.\n"
    return None


FAITHFUL = [f_restate, f_bullets, f_dotslash, f_unquote, f_repunctuate, f_reorder, f_prohibition_synonym]


# ------------------------------------------------------------------ unfaithful rewrites (rule-detectable kinds)


def u_path(text: str, rnd: random.Random) -> str | None:
    paths = [p for p in _paths(text) if "." in p.rsplit("/", 1)[-1] or p.endswith("/")]
    if not paths:
        return None
    p = rnd.choice(paths)
    if p.endswith("/"):
        options = [p.rstrip("/") + ("_old/" if p.rstrip("/").endswith("s") else "s/"), "the folder", p.rstrip("/").rsplit("/", 1)[-1] + "_data/"]
    else:
        stem, _, ext = p.rpartition(".")
        options = [f"{stem}s.{ext}" if stem else "the file", "the file",
                   p.rsplit("/", 1)[-1] if "/" in p else f"{stem}.txt" if ext != "txt" else f"{stem}.out"]
    new_p = rnd.choice(options)
    quoted = rnd.random() < 0.5 and " " not in new_p
    new = text.replace(f"`{p}`", f"`{new_p}`" if quoted else new_p, 1)
    return new.rstrip() + "\n\nAll paths are relative to the working directory.\n"


def u_literal(text: str, rnd: random.Random) -> str | None:
    vals = _values(text)
    block = re.findall(r"(?m)^(?:    |)(\S.*\S)$", text.split("```")[1]) if text.count("```") >= 2 else []
    choices = []
    for v in vals:
        choices.append((f"`{v}`", v.replace("_", "-") if "_" in v else v.capitalize() if v[0].islower() else v.lower()))
    for line in block:
        choices.append((line, line.replace('"', "'") if '"' in line else line.rstrip("!.") + ("" if line[-1] in "!." else ".")))
    choices = [(a, b) for a, b in choices if b and b not in (a, a.strip("`"))]
    if not choices:
        return None
    old, new = rnd.choice(choices)
    return text.replace(old, new if old.startswith("`") is False else (f"`{new}`" if rnd.random() < .5 else new), 1)


def u_number(text: str, rnd: random.Random) -> str | None:
    nums = [m for m in re.finditer(r"(?<![\w.$%/-])(\d+)(?![\w/.-]\w)", text)
            if m.group(1) != "0" and not re.match(r"\d+\.\s", text[m.start():]) and text[m.start() - 1:m.start()] != "`"]
    words = [m for m in re.finditer(r"\b(two|three|five|seven|double)\b", text, re.I)]
    if words and (not nums or rnd.random() < 0.35):
        m = rnd.choice(words)
        w = m.group(1)
        rep = WORDS[w.lower()]
        rep = rep.capitalize() if w[0].isupper() else rep
        return text[: m.start()] + rep + text[m.end():]
    if not nums:
        return None
    m = rnd.choice(nums)
    n = int(m.group(1))
    rep = str(n + 1) if n < 100 else str(n + 10 ** (len(str(n)) - 2))
    if re.search(r"\d+\s*(days?|seconds?|minutes?|hours?)", text[m.start():m.end() + 10]) and rnd.random() < 0.4:
        unit_match = re.match(r"\d+\s*(\w+)", text[m.start():])
        assert unit_match is not None  # m starts with digits and the search above found a unit after them
        unit = unit_match.group(1)
        alt = {"days": "hours", "day": "hour", "seconds": "minutes", "minutes": "seconds", "hours": "days"}
        return text[: m.start()] + text[m.start():].replace(unit, alt.get(unit, unit), 1)
    return text[: m.start()] + rep + text[m.end():]


_BODY = r"(?:[^.\n]|\.(?=\w))*"  # a sentence part: no full stop, but dots inside file names
PROHIB = re.compile(_BODY + r"\b(?:Don't|Do not|don't|Leave|leave|Keep|keep|Never|never|must not|only)\b" + _BODY + r"[.!](?!\w)")


def u_prohibition(text: str, rnd: random.Random) -> str | None:
    found = [m for m in PROHIB.finditer(text) if len(m.group(0)) > 12 and not m.group(0).startswith("    ")
             and "```" not in text[: m.start()][-200:]]
    if not found:
        return None
    m = rnd.choice(found)
    sent = m.group(0)
    weak = [(r"\b[Dd]on't (touch|change|modify)\b", "don't delete"), (r"\b[Ll]eave (`[^`]+`) (alone|exactly as it is)",
            r"you may tidy up \1 if it helps"), (r"\bonly\b", "mainly"), (r"\b[Nn]ever\b", "avoid when possible to")]
    for pat, rep in weak:
        new = re.sub(pat, rep, sent, count=1)
        if new != sent and rnd.random() < 0.6:
            return text.replace(sent, new, 1)
    return (text[: m.start()] + text[m.end():]).rstrip() + "\n\nThe result is checked only on the points above.\n"


LEAK_TEMPLATES = ["A quick way to start is to run {cmd} and look at the output.",
                  "First list what is there with {cmd}, then make the change.",
                  "Tip: `{cmd}` does most of the work here.",
                  "You can check your result with {cmd}.",
                  "Use {cmd} for this; it handles the tricky cases."]


def u_leak(text: str, rnd: random.Random, ref: list[str]) -> str | None:
    cmds = [c for c in ref if 6 <= len(c) <= 160]
    if not cmds:
        return None
    cmd = rnd.choice(cmds)
    return text.rstrip() + "\n\n" + rnd.choice(LEAK_TEMPLATES).format(cmd=cmd) + "\n"


def u_steps(text: str, rnd: random.Random) -> str | None:
    paths = _paths(text) or ["the input"]
    a, b = paths[0], paths[-1]
    plans = [f"Work through it in order: first inspect {a}, then make the change, and finally check {b} again.",
             f"Start by reading {a}; next, work out what has to change; after that apply it, and finally verify {b}.",
             f"Steps:\n1. Look at {a}.\n2. Make the change.\n3. Check {b} before you finish.",
             f"Suggested approach:\n- first read {a}\n- then write the result\n- then re-read {b} to confirm\n- finally stop"]
    return text.rstrip() + "\n\n" + rnd.choice(plans) + "\n"


def u_length(text: str, rnd: random.Random) -> str | None:
    sents = _sentences(text)
    if rnd.random() < 0.5 and len(sents) >= 3 and not _has_block(text):
        return " ".join(sents[: max(1, len(sents) // 3)]) + "\n"
    pad = ("Background: this kind of task comes up a lot in day-to-day operations work, and it is worth taking the "
           "time to understand the whole situation before acting, because small mistakes are easy to make and hard "
           "to notice afterwards. Read the description carefully, think about the edge cases, and make sure the "
           "result is what a careful colleague would expect to find. ")
    return text.rstrip() + "\n\n" + pad * (1 + 3 * len(text) // len(pad)) + "\n"


UNFAITHFUL: dict[str, Callable[..., str | None]] = {"path": u_path, "literal": u_literal, "number": u_number, "prohibition": u_prohibition,
              "command_leak": u_leak, "step_list": u_steps, "length": u_length}


ORIGINALS = Path(__file__).resolve().parent / "originals.json"


def _descriptions(originals: dict[str, str] | None) -> dict[str, str]:
    """The descriptions cases are written against: the frozen originals.json when given, else the suite's."""
    if originals is not None:
        return originals
    return {p.parent.name: p.read_text() for p in sorted(SUITE.glob("*/instruction.md"))}


def build(originals: dict[str, str] | None = None) -> list[dict[str, Any]]:
    rnd = random.Random(SEED)
    cases: list[dict[str, Any]] = []
    descriptions = _descriptions(originals)
    for name in sorted(descriptions):
        task_dir, text = SUITE / name, descriptions[name]
        ref = _reference(task_dir)
        wanted: list[str | Callable[[str, random.Random], str | None]] = [k for k in UNFAITHFUL if rnd.random() < 0.2]
        faithful = [f for f in rnd.sample(FAITHFUL, len(FAITHFUL)) if f(text, random.Random(0))]
        wanted += faithful[: 1 + (rnd.random() < 0.3)]
        for what in wanted:
            if isinstance(what, str):
                fn = UNFAITHFUL[what]
                cand = fn(text, rnd, ref) if what == "command_leak" else fn(text, rnd)
                label, kind = "unfaithful", what
            else:
                cand, label, kind = what(text, rnd), "faithful", "faithful:" + what.__name__[2:]
            if cand and " ".join(cand.split()) != " ".join(text.split()):
                cases.append({"task": task_dir.name, "label": label, "kind": kind, "candidate": cand,
                              "original_sha256": sha256_text(text), "origin": "generated"})
    for task, label, kind, cand in HAND_CASES:
        text = descriptions[task]
        cases.append({"task": task, "label": label, "kind": kind, "candidate": cand,
                      "original_sha256": sha256_text(text), "origin": "hand"})
    order = list(range(len(cases)))
    random.Random(SEED).shuffle(order)
    test = set(order[: round(TEST_FRACTION * len(cases))])
    for i, case in enumerate(cases):
        case["id"] = f"c{i:03d}"
        case["split"] = "test" if i in test else "dev"
    return cases


def main() -> None:
    # The corpus is a frozen data set: it is written against the suite's descriptions of today, which are
    # kept beside it (originals.json) so later edits to a task's instruction do not invalidate it.
    ORIGINALS.write_text(json.dumps(_descriptions(None), indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    cases = build()
    header = {"meta": {"seed": SEED, "test_fraction": TEST_FRACTION, "cases": len(cases),
                       "split": "random fifth by random.Random(seed).shuffle of case indices, fixed before rules"}}
    lines = [json.dumps(header)] + [json.dumps(c, ensure_ascii=False) for c in cases]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
