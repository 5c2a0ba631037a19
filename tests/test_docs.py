"""The docs promise commands, flags, files and counts; each promise is checked against the code here.

- every `matchmeter …` command (and each of its `--flags`) written in code in README.md or docs/, every
  command in README's command table and every `make` target named exists;
- every repository path (and `file.py::test_name`) the README or docs/ name (matchmeter/…, tests/…, docs/…, scripts/…, benchmarks/…)
  exists in the checkout, inside the package (`llm/gateway.py`) or, for a task's own files (`tests/test.sh`),
  in a built-in task (a `*` is a glob);
- the task counts in README.md and the suite README equal the built-in suite's.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path

import pytest
import typer.main

from matchmeter.cli import app
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SUITE_README = ROOT / "matchmeter" / "tasks" / "suite" / "README.md"
DOCS = sorted([README, SUITE_README, *(ROOT / "docs").glob("*.md")])
SUBPACKAGES = tuple(f"{d.name}/" for d in (ROOT / "matchmeter").iterdir() if (d / "__init__.py").is_file())
PATH_ROOTS = ("matchmeter/", "tests/", "docs/", "scripts/", "benchmarks/", ".ci/", *SUBPACKAGES)


def _code(text: str) -> list[str]:
    """Inline code spans and fenced-block commands (continuation lines joined)."""
    blocks = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    lines = [ln for block in blocks for ln in block.replace("\\\n", " ").splitlines()]
    return spans + lines


def _tree() -> dict[tuple[str, ...], set[str]]:
    """Command path → its option names, for every command and group of the CLI."""
    out: dict[tuple[str, ...], set[str]] = {}

    def walk(command, path):  # noqa: ANN001, ANN202 - click objects
        out[path] = {"--help", *(o for p in command.params for o in (*p.opts, *getattr(p, "secondary_opts", [])))}
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return out


def _command(words: list[str], tree: dict[tuple[str, ...], set[str]]) -> tuple[tuple[str, ...], list[str]]:
    """The longest command path the words start with, and the flags that follow it."""
    path: tuple[str, ...] = ()
    for word in words:
        if (*path, word) in tree:
            path = (*path, word)
        else:
            break
    return path, [w.split("=")[0] for w in words[len(path):] if w.startswith("--")]


def _invocations(text: str) -> list[list[str]]:
    found = []
    for code in _code(text):
        try:
            words = shlex.split(code, comments=True)
        except ValueError:
            words = code.split()
        for i, word in enumerate(words):
            if (word == "matchmeter" and words[i - 1:i] not in (["from"], ["import"])) or word.endswith("/bin/matchmeter"):
                found.append(words[i + 1:])
    return found


def _command_problems(text: str) -> list[str]:
    tree = _tree()
    problems = []
    for words in _invocations(text):
        path, flags = _command(words, tree)
        rest = words[len(path):]
        is_group = any(len(p) > len(path) and p[:len(path)] == path for p in tree)
        if is_group and rest and not rest[0].startswith("-"):
            problems.append(f"`matchmeter {' '.join(words)}`: no such command")
            continue
        problems += [f"`matchmeter {' '.join(path)} {f}`: no such option" for f in flags if f not in tree[path]]
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_matchmeter_command_and_flag_written_in_the_docs_exists(doc):
    assert _command_problems(doc.read_text(encoding="utf-8")) == []


def test_every_command_in_the_readme_table_and_every_make_target_exists():
    tree = _tree()
    text = README.read_text(encoding="utf-8")
    table = [ln.split("|")[1] for ln in text.splitlines() if ln.startswith("| `")]
    named = [tuple(span.split()) for cell in table for span in re.findall(r"`([^`]+)`", cell)]
    assert len(named) >= 15
    assert [n for n in named if n not in tree] == []
    # "For scripts:" spans such as `tasks list --json` name a command and a flag it must have
    spans = [s.split() for s in re.findall(r"`([a-z][a-z -]*--[a-z-]+)`", text)]
    missing = []
    for words in spans:
        path, flags = _command(words, tree)
        if path:
            missing += [f"{' '.join(path)} {f}" for f in flags if f not in tree[path]]
    assert missing == []
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))
    assert {t for t in re.findall(r"\bmake ([a-z][\w-]*)", text)} <= targets


def _paths(text: str) -> set[str]:
    candidates = re.findall(r"`([^`\s]+)`", text) + re.findall(r"\]\(([^)\s]+)\)", text)
    out = set()
    for c in candidates:
        c = c.split("#")[0].rstrip(".,;:)")
        if c.startswith(PATH_ROOTS) and "<" not in c:
            out.add(c)
    return out


def _missing_paths(text: str) -> list[str]:
    named = _paths(text)
    # `llm/gateway.py` is inside the package, `metrics/test_ams.py` inside tests/, and a task's own files
    # (`tests/test.sh`) inside a built-in task
    bases = [ROOT, ROOT / "matchmeter", ROOT / "tests", *(d for d in builtin_suite_dir().iterdir() if d.is_dir())]
    missing = []
    for spec in sorted(named):
        path, _, test = spec.partition("::")
        found = [f for base in bases for f in base.glob(path.rstrip("/"))]
        defines = re.compile(rf"^\s*def {re.escape(test.split('[')[0])}\(", re.M)
        if not found or (test and not any(f.is_file() and defines.search(f.read_text()) for f in found)):
            missing.append(spec)
    return missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_repository_path_the_docs_name_exists(doc):
    assert _missing_paths(doc.read_text(encoding="utf-8")) == []


CONTRIBUTING = ROOT / "docs" / "contributing.md"
NEWCOMER_CHANGES = ("Add an agent adapter", "Add a sandbox backend", "Add a report metric")


def _steps_without_a_test(text: str) -> list[str]:
    """The numbered steps of each `## Add ...` section of contributing.md that name no test file of this repository
    (a task's own `tests/test.sh` is not one)."""
    missing = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title = section.splitlines()[0]
        for number, step in re.findall(r"^(\d+)\. (.*?)(?=^\d+\. |\Z)", section, re.M | re.S):
            named = [p.partition("::")[0] for p in _paths(step) if p.startswith("tests/")]
            if not any((ROOT / p).is_file() and p.endswith(".py") for p in named):
                missing.append(f"{title} step {number}")
    return missing


def test_every_step_of_contributing_names_the_test_that_guards_it():
    """Every step of contributing.md's changes names the test that exercises it, and each newcomer change (an agent,
    a backend, a report metric) says it is one file plus one registry line and names the test that adds a
    throwaway one that way (that every named test exists: test_every_repository_path_the_docs_name_exists)."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    assert _steps_without_a_test(text) == []
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    for title in NEWCOMER_CHANGES:
        [section] = [s for s in sections if s.startswith(title)]
        assert "one file plus one registry line" in " ".join(section.split()).lower(), title
        assert re.search(r"`tests/[^`]+\.py::test_[a-z_]+`", section), title
    assert _steps_without_a_test("## Add a thing\n\n1. **File**: `matchmeter/cli.py` and `tests/test.sh`.\n"
                                 "2. **Test**: `tests/test_docs.py`.\n") == ["Add a thing step 1"]


def test_the_checks_would_catch_a_missing_command_flag_or_file():
    assert _command_problems("`matchmeter frobnicate`, `matchmeter tasks lsit` and\n```\nmatchmeter run \\\n"
                             "    --agent bash --no-such-flag\n```\nbut not `from matchmeter import runner`") == [
        "`matchmeter frobnicate`: no such command", "`matchmeter tasks lsit`: no such command",
        "`matchmeter run --no-such-flag`: no such option"]
    assert _missing_paths("see `docs/nowhere.md`, [x](tests/gone.py), `tests/test_docs.py::test_no_such_test` and "
                          "`llm/gateway.py`, `tests/test_docs.py::test_suite_counts_in_the_readmes_are_the_suites`, "
                          "but not `runs/<name>/`") == ["docs/nowhere.md", "tests/gone.py",
                                                        "tests/test_docs.py::test_no_such_test"]
    tree = _tree()
    assert _command(["tasks", "list", "--json"], tree) == (("tasks", "list"), ["--json"])
    assert "--no-such-flag" not in tree[("run",)]


def test_suite_counts_in_the_readmes_are_the_suites():
    tasks = load_tasks([builtin_suite_dir()])
    core = load_tasks([builtin_suite_dir()], core=True)
    families = Counter(t.source_family for t in tasks)
    core_families = Counter(t.source_family for t in core)
    core_pattern = r"Core subset: (\d+) tasks \((\d+) terminal, (\d+) skills, (\d+) data-analysis, (\d+) quoting\)"
    for doc in (README, SUITE_README):
        text = re.sub(core_pattern, "", " ".join(doc.read_text(encoding="utf-8").split()))
        total = re.search(r"(\d+) (?:small, )?seeded (?:shell )?tasks", text)
        assert total, f"{doc.name} states no task count"
        assert int(total.group(1)) == len(tasks), doc.name
        stated = {f: int(n) for n, f in re.findall(r"(\d+) `?(terminal|skills|data-analysis|quoting)`?", text)}
        assert stated == dict(families), doc.name
    suite_text = " ".join(SUITE_README.read_text(encoding="utf-8").split())
    core_stated = re.search(core_pattern, suite_text)
    assert core_stated, "the suite README states no Core count"
    assert [int(n) for n in core_stated.groups()] == [len(core), core_families["terminal"], core_families["skills"],
                                                      core_families["data-analysis"], core_families["quoting"]]
