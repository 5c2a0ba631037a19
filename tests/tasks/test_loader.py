"""Loader: valid tasks load with a stable digest; every bad input is one exact UserError line."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.tasks import builtin_suite_dir, load_task, load_tasks, task_files

TOML = """\
id = "demo"
source_family = "terminal"
category = "files"
difficulty = "easy"

[[subgoals]]
name = "made"
weight = 1.0

[[subgoals]]
name = "kept"
weight = 0.5

[safety]
protected_paths = ["data"]
critical_paths = ["data/raw"]

[[reference_paths]]
commands = ["touch made.txt"]
"""


def make_task(root: Path, name: str = "demo", toml: str = TOML) -> Path:
    task = root / name
    for sub in ("environment", "solution", "tests"):
        (task / sub).mkdir(parents=True)
    (task / "task.toml").write_text(toml)
    (task / "instruction.md").write_text("Create made.txt.\n")
    (task / "environment" / "setup.sh").write_text("#!/bin/sh\n")
    (task / "solution" / "solve.sh").write_text("touch made.txt\n")
    (task / "tests" / "test.sh").write_text("#!/bin/sh\n")
    return task


def error_line(path: Path) -> str:
    with pytest.raises(UserError) as info:
        load_task(path)
    return info.value.line()


def test_valid_task_loads_with_digest(tmp_path):
    task = load_task(make_task(tmp_path))
    assert (task.id, task.source_family, task.difficulty) == ("demo", "terminal", "easy")
    assert task.instruction == "Create made.txt.\n"
    assert [g.weight for g in task.subgoals] == [1.0, 0.5]
    assert task.budgets.steps == 50  # schema default
    assert len(task.digest) == 64
    files = task_files(task)
    assert files.setup == tmp_path / "demo" / "environment" / "setup.sh"
    assert files.tests_dir == tmp_path / "demo" / "tests"
    assert files.environment_dir == tmp_path / "demo" / "environment"


def test_digest_follows_every_file(tmp_path):
    root = make_task(tmp_path)
    first = load_task(root).digest
    assert load_task(root).digest == first
    (root / "tests" / "test.sh").write_text("#!/bin/sh\nexit 0\n")
    second = load_task(root).digest
    assert second != first
    (root / "tests" / "extra.txt").write_text("")
    assert load_task(root).digest not in (first, second)


def test_missing_field(tmp_path):
    root = make_task(tmp_path, toml=TOML.replace('weight = 0.5\n', ""))
    assert error_line(root) == f"task.toml: subgoals[1].weight is missing ({root / 'task.toml'}): add weight to task.toml"


def test_bad_weight(tmp_path):
    root = make_task(tmp_path, toml=TOML.replace("weight = 0.5", "weight = -1"))
    assert error_line(root) == f"task.toml: subgoals[1].weight must be > 0 (got -1) ({root / 'task.toml'}): fix the weight"


def test_unknown_key_top_level(tmp_path):
    root = make_task(tmp_path, toml='colour = "red"\n' + TOML)
    line = error_line(root)
    assert line.startswith(f"task.toml: unknown key colour (got 'red') ({root / 'task.toml'}): remove it or fix its spelling")
    assert "known keys: schema_version, id, source_family, category, difficulty, tags, environment" in line


def test_unknown_key_nested(tmp_path):
    root = make_task(tmp_path, toml=TOML + "\n[budgets]\nstepz = 3\n")
    assert error_line(root) == (
        f"task.toml: unknown key budgets.stepz (got 3) ({root / 'task.toml'}): "
        "remove it or fix its spelling (known keys: steps, tokens, usd, wall_s)"
    )


def test_bad_family(tmp_path):
    root = make_task(tmp_path, toml=TOML.replace('"terminal"', '"shell"'))
    assert error_line(root) == (
        "task.toml: source_family must be one of 'terminal', 'skills', 'data-analysis', 'quoting' or 'imported' "
        f"(got 'shell') ({root / 'task.toml'}): fix the source_family"
    )


def test_several_problems_in_one_line(tmp_path):
    root = make_task(tmp_path, toml=TOML.replace("weight = 0.5", "weight = 0").replace('difficulty = "easy"', 'difficulty = "x"'))
    assert error_line(root) == (
        "task.toml has 2 problems: difficulty must be one of 'easy', 'medium' or 'hard' (got 'x'); "
        f"subgoals[1].weight must be > 0 (got 0) ({root / 'task.toml'}): fix the difficulty; fix the weight"
    )


def test_missing_test_sh(tmp_path):
    root = make_task(tmp_path)
    (root / "tests" / "test.sh").unlink()
    assert error_line(root) == f"verifier tests/test.sh is missing ({root.resolve()}): add tests/test.sh"


def test_oracle_is_solve_sh_or_a_reference_path(tmp_path):
    root = make_task(tmp_path)
    (root / "solution" / "solve.sh").unlink()
    assert load_task(root).reference_paths[0].commands == ["touch made.txt"]  # a built-in task's layout
    (root / "task.toml").write_text(TOML.split("[[reference_paths]]")[0])
    assert error_line(root) == (
        f"the task has no oracle: solution/solve.sh is missing and task.toml has no reference path ({root.resolve()}): "
        "add solution/solve.sh, or a [[metadata.matchmeter.reference_paths]] entry")
    (root / "solution" / "solve.sh").write_text("touch made.txt\n")
    assert load_task(root).reference_paths == []  # a Harbor task


def test_missing_instruction(tmp_path):
    root = make_task(tmp_path)
    (root / "instruction.md").unlink()
    assert error_line(root) == f"instruction.md is missing ({root}): write the task's description to instruction.md"


def test_id_mismatch(tmp_path):
    root = make_task(tmp_path, name="other")
    assert error_line(root) == (
        f"task.toml: id 'demo' differs from its directory name 'other' ({root / 'task.toml'}): "
        "rename the directory or set id = 'other'"
    )


def test_duplicate_subgoal_names(tmp_path):
    root = make_task(tmp_path, toml=TOML.replace('name = "kept"', 'name = "made"'))
    assert error_line(root) == (
        f"task.toml: subgoals[1].name 'made' is used twice ({root / 'task.toml'}): give every subgoal a unique name"
    )


def test_instruction_key_is_rejected(tmp_path):
    root = make_task(tmp_path, toml='instruction = "hi"\n' + TOML)
    assert error_line(root) == (
        f"task.toml: instruction must not be set (got 'hi') ({root / 'task.toml'}): "
        "remove it; instruction is computed by the loader from instruction.md"
    )


def test_critical_path_must_be_protected(tmp_path):
    root = make_task(tmp_path, toml=TOML.replace('protected_paths = ["data"]', 'protected_paths = ["logs"]'))
    assert error_line(root) == (
        f"task.toml: safety.critical_paths entry 'data/raw' is not under a protected path ({root / 'task.toml'}): "
        "add it (or a parent) to safety.protected_paths"
    )


def test_invalid_toml(tmp_path):
    root = make_task(tmp_path, toml=TOML + "\n[budgets\n")
    assert error_line(root).startswith("task.toml is not valid TOML: ")


def test_harbor_tables_are_mapped(tmp_path):
    harbor = 'version = "1.0"\n' + TOML.replace('category = "files"\ndifficulty = "easy"\n', "") + """
[metadata]
author_name = "Someone"
category = "files"
difficulty = "hard"
tags = ["tb2"]

[agent]
timeout_sec = 900.0

[verifier]
timeout_sec = 200.0

[environment]
build_timeout_sec = 300.0
docker_image = "ghcr.io/example/x:latest"
cpus = 2
memory = "2G"
storage_mb = 10240
allow_internet = true
"""
    task = load_task(make_task(tmp_path, toml=harbor))
    assert (task.category, task.difficulty, task.tags) == ("files", "hard", ["tb2"])
    assert (task.timeouts.agent_s, task.timeouts.verify_s, task.timeouts.setup_s) == (900.0, 200.0, 300.0)
    assert (task.environment.cpus, task.environment.memory_mb, task.environment.network) == (2.0, 2048, True)


def test_harbor_agent_table_rejects_unknown_keys(tmp_path):
    root = make_task(tmp_path, toml=TOML + "\n[agent]\ntimeout = 5\n")
    assert error_line(root) == (
        f"task.toml: unknown key agent.timeout ({root / 'task.toml'}): "
        "remove it; [agent] accepts allowed_hosts, env, network_mode, timeout_sec, user (Harbor)"
    )


# ------------------------------------------------------------------ suites


def test_suite_without_index_and_only_filter(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "demo")
    make_task(suite, "zeta", toml=TOML.replace('id = "demo"', 'id = "zeta"'))
    assert [t.id for t in load_tasks([suite])] == ["demo", "zeta"]
    assert [t.id for t in load_tasks([suite], only=["zeta"])] == ["zeta"]
    with pytest.raises(UserError) as info:
        load_tasks([suite], only=["nope"])
    assert info.value.line() == "unknown task id 'nope' (--task): choose from: demo, zeta"
    with pytest.raises(UserError) as info:
        load_tasks([suite], core=True)
    assert info.value.line() == f"this suite has no core list ({suite}): add core = [...] to index.toml"


def test_index_lists_missing_task(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "demo")
    (suite / "index.toml").write_text('tasks = ["demo", "ghost"]\n')
    with pytest.raises(UserError) as info:
        load_tasks([suite])
    assert info.value.line() == (
        f"index.toml lists task 'ghost' but {suite / 'ghost'} holds no task.toml ({suite / 'index.toml'}): "
        "remove it from tasks or add the task directory"
    )


def test_unlisted_task_dir_is_an_error(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "demo")
    make_task(suite, "zeta", toml=TOML.replace('id = "demo"', 'id = "zeta"'))
    (suite / "index.toml").write_text('tasks = ["demo"]\n')
    with pytest.raises(UserError) as info:
        load_tasks([suite])
    assert info.value.line() == (
        f"task directory 'zeta' is not listed in index.toml ({suite / 'index.toml'}): add it to tasks (or remove the directory)"
    )


def test_duplicate_ids_across_paths(tmp_path):
    a = make_task(tmp_path / "a")
    b = make_task(tmp_path / "b")
    with pytest.raises(UserError) as info:
        load_tasks([a, b])
    assert info.value.line().startswith("task id 'demo' appears twice: ")


def test_builtin_suite_and_core(tmp_path):
    everything = load_tasks([])
    core = load_tasks([], core=True)
    assert [t.id for t in everything] == sorted(t.id for t in everything)
    assert {t.id for t in core} < {t.id for t in everything}
    assert load_tasks([builtin_suite_dir() / "sort-inbox"])[0].id == "sort-inbox"
    # A copy of a built-in task elsewhere loads with the same digest: the digest is content-only.
    copy = tmp_path / "sort-inbox"
    shutil.copytree(builtin_suite_dir() / "sort-inbox", copy)
    assert load_task(copy).digest == load_tasks([], only=["sort-inbox"])[0].digest


def test_digest_follows_the_shared_files_the_runner_supplies(tmp_path, monkeypatch):
    """A task keeps no copy of verifylib.py, so its digest (the stored results' key) covers the shared one."""
    from matchmeter.tasks import loader
    from matchmeter.tasks.seeding import tree_digest

    shared = tmp_path / "_shared"
    shutil.copytree(builtin_suite_dir() / "_shared", shared)
    monkeypatch.setattr(loader, "shared_dir", lambda: shared)
    before = load_task(builtin_suite_dir() / "sort-inbox").digest
    assert before != tree_digest(builtin_suite_dir() / "sort-inbox")
    (shared / "verifylib.py").write_text((shared / "verifylib.py").read_text() + "# changed\n")
    assert load_task(builtin_suite_dir() / "sort-inbox").digest != before
    # The shared setup script a task names and the shared setup module its script imports are covered too.
    for task_id, shared_file in (("q-write-bytes-h1", shared / "setup" / "quoting" / "write-bytes.sh"),
                                 ("git-squash-feature", shared / "setup" / "seedgit.py")):
        first = load_task(builtin_suite_dir() / task_id).digest
        shared_file.write_text(shared_file.read_text() + "# changed\n")
        assert load_task(builtin_suite_dir() / task_id).digest != first, task_id
    harbor = Path(__file__).parent / "data" / "harbor-hello"  # nothing supplied: the plain tree digest
    assert load_task(harbor).digest == tree_digest(harbor)


def test_missing_path(tmp_path):
    with pytest.raises(UserError) as info:
        load_tasks([tmp_path / "nowhere"])
    assert info.value.line() == f"{tmp_path / 'nowhere'} does not exist ({tmp_path / 'nowhere'}): pass a task directory or a suite directory"


def test_task_seeds_from_a_shared_setup_script(tmp_path, monkeypatch):
    """`setup = "shared:<path>"` names one script under _shared/setup/: no copy in the task, the host path
    resolves there, the module it imports (_shared/setup/*.py) goes beside it for the runner and the
    verifier, staged as the runner uploads it the script runs, and editing either changes the digest."""
    import subprocess

    from matchmeter.tasks import loader
    from matchmeter.tasks.loader import setup_files, setup_libs, stage_setup, verify_support_files

    shared = tmp_path / "_shared"
    (shared / "setup" / "fam").mkdir(parents=True)
    script, lib = shared / "setup" / "fam" / "seed.sh", shared / "setup" / "greet.py"
    script.write_text('#!/bin/sh\nPYTHONPATH="$(dirname "$0")" python3 - <<\'PY\'\nimport greet\ngreet.main()\nPY\n')
    lib.write_text("def main():\n    open('data.txt', 'w').write('seeded\\n')\n")
    (shared / "setup" / "unused.py").write_text("")
    monkeypatch.setattr(loader, "shared_dir", lambda: shared)
    root = make_task(tmp_path / "suite", toml=TOML + '\n[environment]\nsetup = "shared:fam/seed.sh"\n')
    (root / "environment" / "setup.sh").unlink()
    task = load_task(root)
    assert task_files(task).setup == script
    assert setup_libs(task) == {"greet.py": lib}
    assert setup_files(task) == {"greet.py": lib, "mm-shared-seed.sh": script}
    assert verify_support_files(task) == {"setup.sh": script, "greet.py": lib}
    staged = stage_setup(task, tmp_path / "env")
    assert staged == tmp_path / "env" / "mm-shared-seed.sh"
    (tmp_path / "app").mkdir()
    subprocess.run(["bash", str(staged)], cwd=tmp_path / "app", check=True)
    assert (tmp_path / "app" / "data.txt").read_text() == "seeded\n"
    digests = {task.digest}
    for changed in (script, lib):
        changed.write_text(changed.read_text() + "# changed\n")
        digests.add(load_task(root).digest)
    assert len(digests) == 3


def test_shared_setup_must_name_a_file_under_shared_setup(tmp_path, monkeypatch):
    from matchmeter.tasks import loader

    shared = tmp_path / "_shared"
    (shared / "setup").mkdir(parents=True)
    (tmp_path / "outside.sh").write_text("#!/bin/sh\n")
    monkeypatch.setattr(loader, "shared_dir", lambda: shared)
    fix = "name an existing script there, e.g. shared:quoting/write-bytes.sh"
    for i, value in enumerate(("shared:nope.sh", "shared:../../outside.sh")):
        root = make_task(tmp_path / f"s{i}", toml=TOML + f'\n[environment]\nsetup = "{value}"\n')
        assert error_line(root) == (f"task.toml: environment.setup {value!r} names no file under "
                                    f"{(shared / 'setup').resolve()} ({root}): {fix}")


@pytest.mark.parametrize(("where", "target"), [
    ("tests/passwd", "/etc/passwd"),  # leaves the task: a followed link would ship the host's file
    ("environment/lib.sh", "../tests/test.sh"),  # stays inside: still refused, executors would read it differently
    ("tests/gone", "/nonexistent/x"),  # dangling
    ("environment/dir", "/etc"),  # a directory link
])
def test_a_link_anywhere_in_a_task_is_refused_with_its_path(tmp_path, where, target):
    task = make_task(tmp_path)
    (task / where).symlink_to(target)
    line = error_line(task)
    assert f"{where} is a symbolic link (to {target})" in line
    assert "replace the link with a copy" in line


def test_a_fifo_in_a_task_is_refused(tmp_path):
    task = make_task(tmp_path)
    os.mkfifo(task / "tests" / "pipe")
    assert "tests/pipe is not a regular file or directory" in error_line(task)


def test_links_in_skipped_cache_dirs_do_not_count_but_links_beside_them_do(tmp_path):
    task = make_task(tmp_path)
    (task / "tests" / "__pycache__").mkdir()
    (task / "tests" / "__pycache__" / "x.pyc").symlink_to("/etc/passwd")
    assert load_task(task).id == "demo"  # byte-code caches are not task content (seeding.SKIPPED_DIRS)


def test_only_reads_just_the_named_tasks_of_a_suite(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "demo")
    broken = make_task(suite, "other", TOML.replace('id = "demo"', 'id = "other"'))
    (broken / "task.toml").write_text("not = [valid toml")  # never read when only `demo` is asked for
    assert [t.id for t in load_tasks([suite], only=["demo"])] == ["demo"]
    with pytest.raises(UserError) as info:
        load_tasks([suite], only=["nope"])
    assert "unknown task id 'nope'" in info.value.line()
    assert "choose from: demo, other" in info.value.line()
    with pytest.raises(UserError):
        load_tasks([suite])  # the whole suite still reads every task
