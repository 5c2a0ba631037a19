"""Gate v3 rules: obligations by meaning (split, merged, reordered, synonyms), descriptive negations, hedges,
literal presence, case/form-insensitive leaks, leaked answer values, the length warning. Synthetic cases
(the held-out split is measured, never tuned on)."""

from __future__ import annotations

import pytest

from matchmeter.gate.contract import extract_contract
from matchmeter.gate.rules import ReferenceKnowledge, check_rules

ORIGINAL = ("Rebuild the index in `db/` from `data/items.csv`. Don't rewrite or drop the old snapshots (others "
            "still read them), and keep every other table as it is. The export must be JSON, rounded to 2 decimal "
            "places. Write the total to `answer.txt`.\n")


def reasons(candidate: str, original: str = ORIGINAL, knowledge: ReferenceKnowledge | None = None) -> list[str]:
    return [r for res in check_rules(original, candidate, knowledge or ReferenceKnowledge()) for r in res.reasons]


@pytest.mark.parametrize("candidate", [
    # split into two sentences, the reason first
    "Rebuild the index in `db/` from `data/items.csv`. Others still read the old snapshots, so don't rewrite or "
    "drop them. Every other table stays as it is. The export must be JSON, rounded to 2 decimal places. Write the "
    "total to `answer.txt`.",
    # merged, reordered, keep → preserve/remain synonyms
    "Write the total to `answer.txt` after you rebuild the index in `db/` from `data/items.csv`; the export must "
    "be JSON, rounded to 2 decimal places. Every other table must remain unchanged, and the old snapshots must not "
    "be rewritten or dropped.",
])
def test_a_paraphrase_that_splits_merges_or_reorders_keeps_its_obligations(candidate):
    assert reasons(candidate) == []


@pytest.mark.parametrize(("candidate", "expected"), [
    (ORIGINAL.replace("Don't rewrite or drop the old snapshots (others still read them), and", "Others still read the old snapshots;"),
     "drops_prohibition:Don't rewrite or drop the old snapshots"),
    (ORIGINAL.replace("keep every other table as it is", "keep every other table as it is where possible"),
     "weakens_obligation:where possible"),
    (ORIGINAL.replace("The export must be JSON", "Ideally the export is JSON"), "weakens_obligation:ideally"),
    (ORIGINAL.replace("Don't rewrite or drop", "Don't drop"), "drops_prohibition:Don't rewrite or drop"),
])
def test_a_dropped_or_weakened_obligation_is_named(candidate, expected):
    found = reasons(candidate)
    assert any(r.startswith(expected) for r in found), found


def test_a_descriptive_negation_is_not_a_prohibition():
    original = ("`data/sales/` has one CSV per store (a closed store has no row that day; people don't always "
                "type names the same way). Don't touch `data/raw/`.\n")
    contract = extract_contract(original)
    assert [i.text for i in contract.of_kind("prohibition")] == ["Don't touch `data/raw/`."]
    assert reasons("Leave `data/raw/` untouched. `data/sales/` has one CSV per store.\n", original) == []


def test_literals_need_presence_not_their_count_but_a_changed_copy_is_caught():
    original = "Set `pool_size` in `a.json`. `pool_size` must be an integer.\n"
    assert reasons("In `a.json`, set `pool_size` to an integer.\n", original) == []
    found = reasons("Set `pool-size` in `a.json`. `pool_size` must be an integer.\n", original)
    assert "drops_literal:quoted:pool_size" in found


def test_a_number_that_counts_the_list_after_it_need_not_be_restated():
    original = "Three changes to `a.json`, please: enable `x`, disable `y` and remove `z`.\n"
    assert reasons("In `a.json`: enable `x`, disable `y`, and remove `z`.\n", original) == []
    assert reasons("Change `a.json`: enable `x`, disable `y`, remove `z` and set 42.\n", original) == [
        "changes_number:new value 42"]


def test_leaks_are_case_and_form_insensitive():
    knowledge = ReferenceKnowledge(tokens={"latin-1", "csv.DictReader"})
    original = "Convert `in.csv` to UTF-8.\n"
    for said in ("Latin-1", "LATIN1", "latin 1", "CSV.DictReader"):
        assert reasons(f"Convert `in.csv` (it is {said}) to UTF-8.\n", original, knowledge) != [], said


def test_an_answer_value_new_to_the_rewrite_is_a_leak():
    knowledge = ReferenceKnowledge(given_answers={"69813.66", "North"})
    original = "Which region earned most? Write its name to `answer.txt`.\n"
    found = reasons("Which region earned most (north, 69813.66)? Write its name to `answer.txt`.\n", original, knowledge)
    assert "leaks_answer:69813.66" in found
    assert "leaks_answer:north" in found


def test_the_length_bound_is_a_warning_for_the_judge_not_a_rejection():
    results = check_rules(ORIGINAL, "Rebuild `db/` from `data/items.csv`; JSON, 2 decimal places, total in "
                          "`answer.txt`. Don't rewrite or drop old snapshots; keep every other table as it is.",
                          ReferenceKnowledge())
    length = next(r for r in results if r.rule == "length")
    assert length.passed
    assert length.warnings[0].startswith("length_out_of_bounds:0.")
    assert all(r.passed for r in results), [r.reasons for r in results]


def test_requirements_enumerated_with_first_second_are_not_a_plan():
    original = "Two changes to `a.json`: enable the `x` flag and double the pool size.\n"
    candidate = "`a.json` needs two changes. First, the `x` flag is enabled. Second, the pool size is doubled.\n"
    assert reasons(candidate, original) == []


@pytest.mark.bwrap
def test_answer_values_come_from_the_oracle_run_on_seed_0_in_a_sandbox(tmp_path, monkeypatch):
    from matchmeter.gate.answers import answer_values
    from matchmeter.runner.oracle_outputs import oracle_outputs
    from matchmeter.tasks.loader import builtin_suite_dir, load_task

    monkeypatch.setenv("MATCHMETER_CACHE_DIR", str(tmp_path))  # a real run, not a cached one
    task = load_task(builtin_suite_dir() / "top-region-revenue")
    values = answer_values(task, oracle_outputs)
    knowledge = ReferenceKnowledge.of_task(task, oracle=oracle_outputs)
    region = sorted(v for v in values if v.isalpha())
    revenue = sorted(v for v in values if "." in v)
    assert len(region) == 1
    assert len(revenue) == 1
    leaked = task.instruction.rstrip() + f" (a previous attempt found {region[0]}, {revenue[0]})\n"
    found = reasons(leaked, task.instruction, knowledge)
    assert f"leaks_answer:{revenue[0]}" in found
    assert f"leaks_answer:{region[0]}" in found
