"""Gate rules v3.2 to v3.5: qualifiers (exactness, order, keeping what is there), hedges and values in other words,
and the paraphrases the rules before them rejected.

Every case here is synthetic: written for these tests, never taken from a corpus split (corpus/README.md,
"Gate v3.2 rule work"). Each unfaithful case must be rejected with the named reason, each faithful one passed.
"""

from __future__ import annotations

import pytest

from matchmeter.gate.qualifiers import dropped_keeping, dropped_qualifiers, qualifiers
from matchmeter.gate.rules import ReferenceKnowledge, check_rules


def reasons(original: str, candidate: str) -> list[str]:
    return [r for res in check_rules(original, candidate, ReferenceKnowledge()) for r in res.reasons]


# (original, unfaithful candidate, the reason's prefix)
DROPPED = [
    # exactness: the qualifier is gone though every word it binds is still there
    ("Write `out.txt` with exactly one line per user.", "Write `out.txt` with a line per user.", "drops_qualifier"),
    ("The daemon keeps exactly one copy of the cache warm.", "The daemon keeps a copy of the cache warm.", "drops_qualifier"),
    ("Copy the banner below into `motd` verbatim.", "Copy the banner below into `motd`.", "drops_qualifier"),
    ("End `notes.txt` with a single blank line.", "End `notes.txt` with a blank line.", "drops_qualifier"),
    ("Store each record in `db/` with exactly the original timestamps.",
     "Store each record in `db/` with its parsed timestamps.", "drops_qualifier"),
    # a "single" that qualifies another noun does not keep this one
    ("Set the title to exactly the text below.", "Set the title to the text below, joined into a single line.",
     "drops_qualifier"),
    # order
    ("List the hosts of `hosts.txt` in the original order, one per line.", "List the hosts of `hosts.txt`, one per line.",
     "drops_order"),
    ("Apply the migrations in the order listed, then write `done.txt`.", "Apply the migrations, then write `done.txt`.",
     "drops_order"),
    ("Write `top.csv` sorted by `score`, highest first.", "Write `top.csv` with every `score`.", "drops_order"),
    # keeping what is already there, stated positively
    ("Add the job to `crontab.txt`. Keep the existing entries.", "Add the job to `crontab.txt`.", "drops_requirement"),
    ("Rebase the branch onto `main` and keep the fixes that were committed in the meantime.",
     "Rebase the branch onto `main`.", "drops_requirement"),
    # hedges in other words
    ("Log every restart with the exit code.", "Log every restart with the exit code if it is available.",
     "weakens_obligation"),
    ("Insert the snippet below verbatim.", "Insert the snippet below, as close to verbatim as the parser allows.",
     "weakens_obligation"),
    # a literal inside a longer token is not the literal
    ("Set the owner of `spool/` to `ops`.", "Set the owner of `spool/` to `ops-team`.", "drops_literal"),
    # a prohibition inside a parenthetical, after the clause's first words
    ("Revert the bad commit with a new commit (don't rewrite history, others pulled it).",
     "Revert the bad commit with a new commit.", "drops_prohibition"),
    # v3.3: hedges across a line break and in other words
    ("Report each rate and the z statistic.", "Report each rate and, if you think it makes\nsense, the z statistic.",
     "weakens_obligation"),
    ("Store the key in `k.txt` exactly as written.", "Store the key in `k.txt` exactly as written; use your judgement.",
     "weakens_obligation"),
    ("Store the key in `k.txt` exactly as written.",
     "Store the key in `k.txt` as written, though small differences are likely fine.", "weakens_obligation"),
    # v3.3: "unchanged" outside a prohibition qualifies what it follows
    ("Print a header, then every line of FILE unchanged.", "Print a header, then each line of FILE with its number.",
     "drops_qualifier"),
    # v3.3: a value stated inside a new code span, a decimal below one
    ("Write `{\"median\": <number>}` per sensor to `m.json`.",
     "Write `{\"median\": <number>}` per sensor to `m.json`, e.g. `{\"median\": 21.35}`.", "changes_number:new value 21.35"),
    ("Report the churn ratio in `c.json`.", "Report the churn ratio in `c.json` (it is about 0.118).",
     "changes_number:new value 0.118"),
    # v3.3: indentation swapped
    ("Indent the recipe line with one tab.", "Indent the recipe line with four spaces.", "changes_format:spaces"),
    # v3.4: uniqueness, any "in the ... order", hedges of belief, id-like digits in a new code span
    ("Write each list to `lists.json`, sorted and without duplicates.", "Write each list to `lists.json`, sorted.",
     "drops_unique"),
    ("Print one line per band to `hist.txt`, in the band order above.", "Print one line per band to `hist.txt`.",
     "drops_order"),
    ("Write the header exactly as shown.", "Write the header (I'm fairly sure) exactly as shown.", "weakens_obligation"),
    ("It is stored, not run. It must hold exactly the lines below.",
     "It is stored, not run. As far as I know it must hold exactly the lines below.", "weakens_obligation"),
    ("Match the block byte for byte.", "Match the block byte for byte as closely as is practical.", "weakens_obligation"),
    ("Put the ticket id from `TICKET` in its place.", "Put the ticket id from `TICKET` (currently `OPS-58213`) in its place.",
     "changes_number:new value 58213"),
    # v3.5: a made-up commit hash, hedges of guessing and of choice, a newline requirement dropped, a separator swapped
    ("Write the first bad commit's hash to `bad.txt`.", "Write the first bad commit's hash (`4be1c07d93a2`) to `bad.txt`.",
     "changes_number:new value 4be1c07d93a2"),
    ("Count the errors per service.", "I reckon counting the errors per service is enough.", "weakens_obligation"),
    ("Create an empty file in `inbox/`.", "Create a file in `inbox/`; empty or not, whichever you prefer.", "weakens_obligation"),
    ("Point each branch at the commit it had.", "Point each branch at a commit; the latest one you can find is fine.",
     "weakens_obligation"),
    ("Write `out.txt`: the lines of the block, each ending with a newline.", "Write `out.txt`: the lines of the block.",
     "drops_literal:format:newline"),
    ("Write `items.csv`, a proper CSV file.", "Write `items.csv`, separating the fields with semicolons.",
     "changes_format:semicolon-separated"),
]


@pytest.mark.parametrize(("original", "candidate", "reason"), DROPPED, ids=[c[2] + f"-{i}" for i, c in enumerate(DROPPED)])
def test_a_dropped_or_weakened_requirement_is_named(original: str, candidate: str, reason: str):
    found = reasons(original, candidate)
    assert any(r.startswith(reason) for r in found), found


# (original, faithful candidate)
KEPT = [
    # exactness said another way
    ("Write `out.txt` with exactly one line per user.", "Write `out.txt` with a single line per user."),
    ("Write `out.txt` with exactly one line per user.", "Write `out.txt`: one line per user and no more."),
    ("Copy the banner below into `motd` verbatim.", "Copy the banner below into `motd` byte for byte."),
    ("End `notes.txt` with a single blank line.", "End `notes.txt` with one blank line."),
    ("The file's name is exactly the text below.", "Name the file exactly as below: every character is part of the name."),
    ("Every other character stays exactly as shown.", "Apart from that, every character is to be kept as shown."),
    ("It should print exactly what is in `expected.txt`.", "Its output must be exactly what `expected.txt` contains."),
    # "exactly as it is" belongs to the prohibition it ends, which obligations.py checks
    ("Leave `vendor/` exactly as it is.", "`vendor/` is not to be altered in any way."),
    # order said another way
    ("List the hosts of `hosts.txt` in the original order, one per line.",
     "List the hosts of `hosts.txt`, one per line, keeping the order they had."),
    ("Write `top.csv` sorted by `score`, highest first.", "Write `top.csv` in descending `score` order."),
    # keeping what is there said another way
    ("Add the job to `crontab.txt`. Keep the existing entries.",
     "Add the job to `crontab.txt`; the entries already there must stay."),
    ("Add the job to `crontab.txt`. Keep the existing entries.",
     "Add the job to `crontab.txt` without removing the existing entries."),
    ("Rebase the branch onto `main` and keep the fixes that were committed in the meantime.",
     "Rebase the branch onto `main`, keeping the fixes committed in the meantime."),
    # paraphrases v3.1 rejected
    ("Where both sides pin a package, keep the higher pin.", "Where the two sides pin a package, keep the higher pin."),
    ("I need two figures from `data/h.csv` (one row per household; some rows have no income):\n\n"
     "- the median income;\n- the mean income.\n",
     "From `data/h.csv` (one row per household; some rows have no income), compute the median and the mean income."),
    ("Its only recipe line must be the text below.", "Give it exactly one recipe line: the text below."),
    ("Its only recipe line must be the text below.", "It has a single recipe line, the text below."),
    ("Fit a line to `w.csv` (rows without a total can't be used), and report the slope.",
     "Fit a line to `w.csv` and report the slope; rows without a total can't be used."),
    ("The branch must contain what it contains now and stay based on the same `main` commit.",
     "The branch must contain what it contains now and must still be based on the same `main` commit."),
    ("Links that already work and the files in `assets/` should stay as they are.",
     "Leave links that already work, and the files in `assets/`, as they are."),
    ("Fix `report.sh` so it keeps working when the data changes; don't just print the expected text.",
     "Fix `report.sh` so it keeps working when the data changes; printing the expected text is not a fix."),
    ("Serve two routes:\n\n- `GET /a` → `{\"ok\": true}`\n- `GET /b` → `{\"ok\": false}`\n",
     "Serve two routes:\n\n- `GET /a`: `{\"ok\": true}`.\n- `GET /b`: `{\"ok\": false}`.\n"),
    ("Find the bad commit. Then revert it with a new commit (don't rewrite history, others pulled it).",
     "Two steps:\n\n1. Find the bad commit.\n2. Revert it with a new commit. Don't rewrite history (others pulled it)."),
    # v3.3: subjects split from their predicate by commas, other keeping verbs, the rest by a path
    ("Links that already work and the files in `assets/` should stay as they are.",
     "Links that already resolve, and the files in `assets/`, must be left unchanged."),
    ("Don't change anything under `release/` or `vendor.sha256`.",
     "Nothing under `release/`, and not `vendor.sha256`, may be changed."),
    ("Don't recreate the merged ones, and don't move `main` or any other existing branch.",
     "The merged ones stay deleted, and `main` and every other existing branch keep pointing where they point now."),
    ("Append the line below to `conf/app.conf`. Nothing else in the file should change.",
     "In `conf/app.conf` change nothing except for one addition: the line below, appended."),
    ("Replace the placeholder in `templates/page.html`. The rest of the page must not change.",
     "The rest of `templates/page.html` must not change; only replace the placeholder."),
    ("`scratch.txt` stays out of the repository and where it is.",
     "`scratch.txt` must remain outside the repository, in its current place."),
    ("Set `API_TOKEN` in `.env`. The other settings stay as they are.", "Set `API_TOKEN` in `.env`. Other settings stay as they are."),
    # v3.3: the size of the Original's list, part labels, a qualifier after a comma, the indentation kept
    ("Write migration 4:\n\n- a column;\n- an index;\n- a record.\n",
     "Write migration 4. It has 3 parts: a column, an index and a record."),
    ("Compress every old log with gzip. Then delete the compressed logs older than 30 days.",
     "First, compression. Every old log is compressed with gzip. Second, cleanup. The compressed logs older than 30 days "
     "are deleted."),
    ("Replace `b.txt` with the block below: exactly the lines of the block, byte for byte.",
     "Overwrite `b.txt` with the block below, byte for byte."),
    ("Indent the recipe line with one tab.", "Indent the recipe line with a tab, not spaces."),
    # v3.4: keeping said without a verb, by "no other ... may differ", "none of ... may be changed", "should not come
    # back"; scope by "nothing beyond"; an aside restating exactness; "once" as a conjunction; ordering in other words
    ("Replace the file. Leave `snippets/INDEX` alone.", "Replace the file. `snippets/INDEX`: leave alone."),
    ("Every other character stays exactly as shown.", "Every other character exactly as shown."),
    ("Every other character stays exactly as shown.", "No other character may differ from what is shown."),
    ("Every other character stays exactly as shown.", "Each other character remains exactly as shown."),
    ("The files already in `inbox/` stay as they are.", "None of the files already in `inbox/` may be changed."),
    ("Don't recreate the merged ones.", "The merged branches should not come back."),
    ("Only Python's standard library is available.", "Nothing beyond Python's standard library is available."),
    ("Replace it with the text below, exactly as written (the text is HTML and must appear verbatim).",
     "The text below is HTML: replace it with that text, exactly as written."),
    ("Once `start.sh` has run, every job gets processed.", "After `start.sh` has run, every job gets processed."),
    ("Each contact once: keep only the first row for an email address (compare emails after cleaning), in the original "
     "order.", "Only the first row per email address survives (compare the emails after cleaning), rows stay in the "
     "original order, and no contact appears twice."),
    ("The file stays sorted by package name.", "Don't let the file fall out of order by package name."),
    # v3.5: "a pair of", "no history rewriting", "you don't", "you keep", "remaining", "rest of", "every X other than",
    # "apart from X nothing", an order followed, one number per line
    ("I need two small services on `127.0.0.1`.", "I need a pair of small services on `127.0.0.1`."),
    ("Revert it (don't rewrite history, others pulled it).", "Revert it. No history rewriting (others pulled it)."),
    ("They must stay symlinks; don't replace them with copies.", "They have to remain symlinks; you don't swap them for copies."),
    ("Add the job. Keep the existing entries.", "Add the job. You keep the existing entries."),
    ("Every other character stays exactly as shown.", "All remaining characters stay exactly as shown."),
    ("Everything else in the template stays exactly as it is.", "Rest of the template exactly as is."),
    ("Set `app.motd`. Keep every other setting as it is.", "Set `app.motd`. Every setting other than `app.motd` is kept as it is."),
    ("Append the line. Nothing else in the file should change.",
     "Append the line. Apart from the added line nothing in the file should change."),
    ("Print one line per band to `h.txt`, in the band order above.",
     "Print one line per band to `h.txt`, following the band order given above."),
    ("List their line numbers in `errors.txt`, one per line.", "List their line numbers in `errors.txt`, one number per line."),
    ("Write the lines, each ending with a newline.", "Write the lines, each one newline-terminated."),
]


@pytest.mark.parametrize(("original", "candidate"), KEPT, ids=[f"kept-{i}" for i in range(len(KEPT))])
def test_a_paraphrase_that_keeps_every_requirement_passes(original: str, candidate: str):
    assert reasons(original, candidate) == []


def test_a_qualifier_binds_the_words_next_to_it_not_the_whole_sentence():
    (q,) = [q for q in qualifiers("The worker keeps exactly one job running, started from `jobs/`.") if q.family == "exact"]
    assert "job" in q.anchor
    assert "start" not in q.anchor
    # the reading is by proximity: an exactness word next to the same noun anywhere keeps it (a known limit)
    assert dropped_qualifiers("Keep exactly one job running.", "Keep a job running. Each job is exactly as queued.") == []
    assert dropped_qualifiers("Keep exactly one job running.", "Keep a job running. The queue is exact.") != []


def test_keeping_counts_only_what_is_named_as_already_there():
    # "keep the higher version" says what to choose, not what to preserve: no keeping requirement
    assert dropped_keeping("Where both pin a package, keep the higher version.", "Where both pin a package, use the max.") == []
    assert dropped_keeping("Keep the other entries.", "Rewrite the file.") == ["Keep the other entries."]


def test_an_all_capitals_word_of_an_output_leaks_only_in_capitals():
    knowledge = ReferenceKnowledge(given_answers={"CREATE", "TABLE", "North_West"})
    def leaks(candidate: str) -> list[str]:
        return [r for res in check_rules("Write the migration to `m.sql`.", candidate, knowledge) for r in res.reasons
                if r.startswith("leaks_answer")]
    assert leaks("Write the migration to `m.sql`; create a table for it.") == []
    assert leaks("Write the migration to `m.sql`; it starts with CREATE TABLE.") == ["leaks_answer:CREATE", "leaks_answer:TABLE"]
    assert leaks("Write the migration to `m.sql` for north_west.") == ["leaks_answer:north_west"]  # any case (v3)


def test_an_anchor_is_a_thing_not_the_verb_that_handles_it():
    (q,) = qualifiers("Use exactly this commit message.")
    assert q.anchor == {"commit", "messag"}


def test_a_requirement_whose_words_are_gone_is_pointed_out_to_the_judge_not_rejected():
    from matchmeter.gate.rules import judge_warnings

    original = "Convert `books.xml` to `books.json`. Text must come out as real text with no XML escapes left over."
    candidate = "Convert `books.xml` to `books.json`."
    assert reasons(original, candidate) == []
    assert [w for w in judge_warnings(original, candidate) if w.startswith("requirement_words_missing:Text must")]
    assert not [w for w in judge_warnings(original, original + " ") if w.startswith("requirement_words_missing")]


def test_a_part_with_no_word_is_joined_not_a_crash():
    from matchmeter.gate.obligations import merged_subjects

    assert merged_subjects(["...", "nothing may be changed"]) == ["..., nothing may be changed"]
