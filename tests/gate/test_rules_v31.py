"""Gate v3.1 rules: a prohibition kept in other syntax, split by bullets, moved or merged is kept; a number
stated in other words, units or places is kept; while a dropped prohibition, a changed number, literal or
format and an added hedge are still caught. The rewrites are in rules_v31_cases.py (one-line originals below)."""

from __future__ import annotations

from pathlib import Path

import pytest

from matchmeter.gate.numbers import new_values, stated, unstated
from matchmeter.gate.rules import ReferenceKnowledge, check_rules, keeps_contract, keeps_prohibitions
from tests.gate.rules_v31_cases import FAITHFUL, UNFAITHFUL

SUITE = Path(__file__).resolve().parents[2] / "matchmeter" / "tasks" / "suite"


def reasons(task: str, candidate: str) -> list[str]:
    original = (SUITE / task / "instruction.md").read_text(encoding="utf-8")
    return [r for res in check_rules(original, candidate, ReferenceKnowledge()) for r in res.reasons]


@pytest.mark.parametrize(("task", "style", "candidate"), FAITHFUL, ids=[f"{t}-{s}-{i}" for i, (t, s, _) in enumerate(FAITHFUL)])
def test_a_faithful_paraphrase_passes_the_rules(task, style, candidate):
    assert reasons(task, candidate) == []


EXPECTED = {"dropped-prohibition": "drops_prohibition", "changed-number": "changes_number", "hedge": "weakens_",
            "changed-literal": "drops_literal", "changed-format": "drops_literal"}


@pytest.mark.parametrize(("task", "slip", "candidate"), [u for u in UNFAITHFUL if u[1] in EXPECTED],
                         ids=[f"{t}-{s}-{i}" for i, (t, s, _) in enumerate(UNFAITHFUL) if s in EXPECTED])
def test_a_one_slip_rewrite_is_caught_for_its_slip(task, slip, candidate):
    found = reasons(task, candidate)
    assert any(r.startswith(EXPECTED[slip]) for r in found), found


def test_the_case_set_is_a_real_spread():
    assert len({t for t, _, _ in FAITHFUL}) >= 15
    assert len(FAITHFUL) >= 35
    assert len({s for _, s, _ in FAITHFUL}) >= 7
    assert len([u for u in UNFAITHFUL if u[1] in EXPECTED]) >= 25


PROHIBITIONS = {
    "Don't touch the sources in `build/src/`.": [
        "The sources in `build/src/` are not to be touched.", "`build/src/` holds the sources; leave it alone.",
        "Do not make any changes to `build/src/`.", "Make no changes to `build/src/`.", "Keep your hands off `build/src/`.",
        "Treat `build/src/` as read-only.", "Under no circumstances touch `build/src/`.",
        "Don’t touch the sources in `build/src/`.", "Sources in `build/src/`: do not touch.",
        "`build/src/` is off limits.", "Nothing in `build/src/` may be changed.",
        "The sources in `build/src/` must be preserved.", "Preserve the sources in `build/src/`.",
        "`build/src/` must stay put.", "Leave `build/src/` be.", "`build/src/` is not yours to change.",
        "No modifications to `build/src/`.", "Changes to `build/src/` are not allowed."],
    "Keep `conf/app.ini` as it is.": ["Don't overwrite `conf/app.ini`.", "`conf/app.ini` must be left as it is."],
    "Nothing else in the file should change.": ["Change nothing else in the file.", "Leave the rest of the file untouched.",
                                                "Do not modify any other part of the file."],
    "Every other character stays exactly as shown.": [
        "All other characters must be exactly as shown.", "Apart from that, every character is to be kept exactly as shown.",
        "The rest of the characters stay exactly as shown."],
    "Don't rewrite or drop existing history (other people have already pulled it), and keep every other change.": [
        "Existing history must not be rewritten or dropped, since others already pulled it; every other change stays.",
        "History that exists must be neither rewritten nor dropped (others pulled it already). Keep all the other changes."],
    "The existing part of the Makefile must not change.": [
        "Leave what's already in the Makefile unchanged.", "The Makefile's existing content stays as it is."],
    "`config/defaults.json` is shared with other apps: don't change it.": [
        "`config/defaults.json` is shared with other apps, so leave it untouched.",
        "Don't change `config/defaults.json`; other apps share it."],
    "Keep `schema.sql` and the CSV files unchanged.": ["Neither `schema.sql` nor the CSV files may be modified."],
}


@pytest.mark.parametrize(("original", "candidate"), [(o, c) for o, cs in PROHIBITIONS.items() for c in cs])
def test_a_prohibition_in_other_syntax_is_kept(original, candidate):
    assert keeps_prohibitions(original, candidate).reasons == []


@pytest.mark.parametrize(("original", "candidate"), [
    ("Don't change the template or the CSV. Everything else in the template stays as it is.",
     "Everything else in the template stays as it is."),  # the kept 'everything else' is not the template
    ("Keep `schema.sql` and the CSV files unchanged.", "Keep `schema.sql` unchanged."),  # a conjunct dropped
    ("`config/defaults.json` is shared with other apps: don't change it. Leave `a.txt` alone.",
     "`config/defaults.json` is shared with other apps. Leave `a.txt` alone."),  # the pronoun's referent
    ("Nothing else in the file should change. Every other character stays exactly as shown.",
     "Every other character stays exactly as shown."),  # 'everything else' is not enough on its own
    ("Don't touch `data/raw/`.", "Leave `data/raw/` untouched if possible."),
    ("Don't touch `data/raw/`.", "Don't delete `data/raw/`."),  # only deletion forbidden: weaker
])
def test_a_dropped_or_weakened_prohibition_is_still_caught(original, candidate):
    assert keeps_prohibitions(original, candidate).reasons != []


@pytest.mark.parametrize(("original", "candidate"), [
    ("Round to 1 decimal.", "Round to one decimal."),
    ("Files older than 7 days go.", "Files older than a week go."),
    ("Skip logs touched in the last 24 hours.", "Skip logs touched in the last 24h."),
    ("Skip logs touched in the last 24 hours.", "Skip logs touched in the last day."),
    ("Apply migration 4.", "Apply the fourth migration."),
    ("Keep the two newest logs.", "Keep 2 log files, the newest."),
    ("Write `a.txt`.", "Do these 3 things: open it, fill it, and write `a.txt`."),
    ("Write `a.txt` and `b.txt`.", "Two steps: (1) write `a.txt`, (2) write `b.txt`."),
    ("Write `a.txt` and `b.txt`.", "Step 1: write `a.txt`. Step 2: write `b.txt`."),
    ("Use 0 for an order without items.", "Use zero for an order without items."),
])
def test_a_number_stated_another_way_is_kept(original, candidate):
    assert keeps_contract(original, candidate).reasons == []


@pytest.mark.parametrize(("original", "candidate", "reason"), [
    ("Files older than 7 days go.", "Files older than 7 hours go.", "changes_number:7 day"),
    ("Skip logs touched in the last 24 hours.", "Skip logs touched in the last 48h.", "changes_number:24 hour"),
    ("Round to 2 decimals. Produce two files: a and b.", "Round to 1 decimal. Produce two files: a and b.",
     "changes_number:2 decimal"),
    ("Settings are spread over three files in `c/`: `a`, `b` and `d`.",
     "Settings are spread over two files in `c/`: `a`, `b` and `d`.", "changes_number:new value 2"),
    ("Number lines (counting from 1). Keep a day of logs.", "Number lines (counting from 2). Keep a day of logs.",
     "changes_number:1 (1→0)"),
])
def test_a_changed_number_is_still_caught(original, candidate, reason):
    found = keeps_contract(original, candidate).reasons
    assert any(r.startswith(reason) for r in found), found


def test_number_forms_directly():
    assert ("7", "=day") in stated("older than a week")
    assert unstated([("2", ""), ("2", "file")], stated("two files, 1 decimal")) == [("2", "")]
    assert new_values("Write `a`.", "(1) write `a`, (2) check it, (3) stop at 5") == ["5"]


@pytest.mark.parametrize("hedge", ["when possible", "if feasible", "as best you can", "if time permits",
                                   "if it's easy", "at your discretion", "if at all possible"])
def test_a_hedge_in_other_words_weakens_the_requirement(hedge):
    original = "Write the totals to `out.csv`, sorted by date. Don't touch `data/`.\n"
    found = [r for res in check_rules(original, f"Write the totals to `out.csv`, sorted by date {hedge}. Don't touch "
                                      "`data/`.\n", ReferenceKnowledge()) for r in res.reasons]
    assert any(r.startswith("weakens_obligation:") for r in found), found


@pytest.mark.parametrize(("original", "candidate", "reason"), [
    ("Write `out` as a JSON array.", "Write `out` as JSON Lines.", "changes_format:jsonl"),
    ("Read `in.txt` (UTF-8) and write names in lower case.", "Read `in.txt` (Latin-1) and write names in lower case.",
     "changes_format:latin-1"),
    ("Names in lower case, dates as ISO 8601.", "Names in upper-case, dates as ISO 8601.", "changes_format:uppercase"),
])
def test_a_format_swapped_for_another_of_its_kind_is_caught(original, candidate, reason):
    assert reason in keeps_contract(original, candidate).reasons


@pytest.mark.parametrize(("original", "candidate"), [
    ("Write `out` as JSON, names in lower case.", "Write `out` as JSON with lower-case names."),
    ("Convert `data/catalog.xml` to JSON.", "Turn the XML in `data/catalog.xml` into JSON."),
    ("Dates in ISO 8601.", "Dates in ISO-8601."),
])
def test_a_format_in_other_spelling_is_kept(original, candidate):
    assert keeps_contract(original, candidate).reasons == []


def test_a_thousands_separator_is_the_same_number():
    assert keeps_contract("Flag orders of 1000 or more.", "Flag orders of 1,000 or more.").reasons == []
    assert "changes_number:new value 1500" in keeps_contract("Flag orders of 1000 or more.", "Flag orders of 1,500 or more.").reasons


@pytest.mark.parametrize("tail", [
    "Do not modify:\n\n- the files in `data/`\n- `expected_output.txt`\n",
    "Off limits:\n- the files in `data/`\n- `expected_output.txt`\n",
    "Read-only inputs: the files in `data/` and `expected_output.txt`.\n",
])
def test_a_prohibition_as_a_heading_over_a_list_is_kept(tail):
    original = "Fix `bin/report.sh`. Don't modify the files in `data/` or `expected_output.txt`.\n"
    assert keeps_prohibitions(original, "Fix `bin/report.sh`.\n\n" + tail).reasons == []
    assert keeps_prohibitions("Fix `a.sh`. Keep `schema.sql` and the CSV files unchanged.\n",
                              "Fix `a.sh`.\n\nUnchanged:\n- `schema.sql`\n- the CSV files\n").reasons == []


def test_a_heading_does_not_protect_what_comes_after_its_list():
    original = "Fix `a.sh`. Leave `x/` alone. Don't touch `y.txt`.\n"
    candidate = "Fix `a.sh`.\n\nLeave alone:\n- `x/`\n\nSome notes are in `a.md`, `b.md` and `c.md`. `y.txt` has the totals.\n"
    assert [r for r in keeps_prohibitions(original, candidate).reasons if "y.txt" in r]
