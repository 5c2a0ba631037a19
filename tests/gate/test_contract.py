"""The task contract and the rules against it, on real suite descriptions: the misses and false rejections
the gate-v2 issue reports, each as one case."""

from __future__ import annotations

import pytest

from matchmeter.gate.contract import extract_contract, norm_path, numbers_in, paths_in
from matchmeter.gate.rules import ReferenceKnowledge, check_rules
from matchmeter.tasks.loader import builtin_suite_dir, load_task


def task(name: str):
    return load_task(builtin_suite_dir() / name)


def reasons(name: str, candidate: str) -> list[str]:
    t = task(name)
    return [r for res in check_rules(t.instruction, candidate, ReferenceKnowledge.of_task(t)) for r in res.reasons]


def edit(name: str, old: str, new: str, tail: str = "") -> str:
    text = task(name).instruction
    assert old in text
    return text.replace(old, new, 1) + (f"\n{tail}\n" if tail else "")


def test_contract_of_fix_permissions():
    contract = extract_contract(task("fix-permissions").instruction)
    rendered = contract.render()
    assert "path: site/bin" in rendered
    assert "path: vendor" in rendered
    numbers = {i.text: i.count for i in contract.of_kind("number")}
    assert numbers == {"644": 1, "755": 2}
    # "Don't change what's in the files, and leave `vendor/` exactly as it is." holds two obligations
    contents, vendor = contract.of_kind("prohibition")
    assert (contents.text, contents.objects, contents.strength) == ("Don't change what's in the files", [], "change")
    assert (vendor.objects, vendor.strength) == (["vendor"], "change")


def test_contract_numbers_carry_units_and_words():
    assert numbers_in("older than 7 days, keep two, round to 2 decimal places") == {
        ("7", "day"): 1, ("2", ""): 1, ("2", "decimal"): 1}
    assert numbers_in("seven days") == numbers_in("7 days")
    assert numbers_in("double the pool") == {("x2", ""): 1}


def test_paths_absolute_relative_and_normalised():
    assert set(paths_in("paths under `/api/` and ./usage.txt and `build/`")) == {"/api", "usage.txt", "build"}
    assert paths_in("no file/directory exists; day/month/year") == []
    assert norm_path("./a/b/") == "a/b"


@pytest.mark.parametrize(("name", "candidate", "expected"), [
    ("fix-permissions", ("fix-permissions", "every directory should be `755`", "every directory should be `775`"),
     "changes_number:new value 775"),
    ("du-top-dirs", ("du-top-dirs", "the three largest", "the five largest"), "changes_number:3"),
    ("cleanup-old-tmp", ("cleanup-old-tmp", "more than 7 days ago", "more than seven hours ago"), "changes_number:7 day"),
    ("profile-literal-line", ("profile-literal-line", "Don't touch `config/secrets.env`.", "Don't delete `config/secrets.env`."),
     "drops_prohibition:"),
    ("ini-to-json", ("ini-to-json", "Keep `conf/app.ini` as it is.", "You can remove `conf/app.ini` afterwards."),
     "drops_prohibition:"),
    ("latency-percentile", ("latency-percentile", "paths under `/api/`", "paths under `/v1/api/`"), "drops_literal:path:/api"),
    ("q-append-line-h1", ("q-append-line-h1", "Hello, it's", "Hi, it's"), "drops_literal:"),
    ("git-revert-bad-commit", ("git-revert-bad-commit", "`max_connections = 0`", "max_connections = 1"), "drops_literal:"),
    ("merge-by-rule", ("merge-by-rule", "(there is only one\nrelease branch)", "(there is one\nrelease branch)"), "drops_scope:"),
])
def test_issue_misses_are_caught(name, candidate, expected):
    found = reasons(name, edit(*candidate))
    assert any(r.startswith(expected) for r in found), found


@pytest.mark.parametrize(("name", "tail", "expected"), [
    ("du-top-dirs", "First list everything with ls -lR so you know what is there.", "adds_command:ls -lR"),
    ("git-revert-bad-commit", "Use git log -S on the setting to find the commit, then git revert it.",
     "leaks_reference:git log"),
    ("fix-permissions", "The easiest way is find with -type d and -exec chmod.", "leaks_reference:find"),
    ("top-region-revenue", "First sum units per region, then pick the largest, and finally write both files.",
     "adds_step_list:prose_plan"),
])
def test_commands_in_prose_and_prose_plans_are_caught(name, tail, expected):
    found = reasons(name, task(name).instruction.rstrip() + "\n\n" + tail + "\n")
    assert any(r.startswith(expected) for r in found), found


@pytest.mark.parametrize(("name", "candidate"), [
    ("du-top-dirs", ("du-top-dirs", "Write `usage.txt`", "Write `./usage.txt`")),
    ("merge-by-rule", ("merge-by-rule", " (there is only one\nrelease branch).", ". There is only one release branch.")),
    ("csv-clean-contacts", ("csv-clean-contacts", "Leave the other fields as they are, and leave `data/contacts.csv` itself unchanged.",
                            "Also:\n- leave the other fields as they are;\n- leave `data/contacts.csv` itself unchanged.")),
    ("html-broken-links", ("html-broken-links", "External links don't\nneed checking.",
                           "External links don't need checking. A link is broken when no file/directory is at its target.")),
    ("sort-inbox", ("sort-inbox", "Leave `archive/` alone.", "Leave archive/ alone.")),
    ("fix-permissions", ("fix-permissions", "be `755`.", "be `755`. In short: the site/bin/*.sh scripts stay 755.")),
])
def test_faithful_rewrites_the_issue_saw_rejected_now_pass(name, candidate):
    assert reasons(name, edit(*candidate)) == []


def test_git_in_prose_without_a_subcommand_is_not_a_command():
    text = task("git-revert-bad-commit").instruction
    assert reasons("git-revert-bad-commit", text + "\nThe git repository is the one named above; find the commit first.\n") == []
