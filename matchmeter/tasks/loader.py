"""Find, load and validate task directories and suites into TaskSpec records.

A task directory (Harbor / Terminal-Bench 2 layout; matchmeter's keys in task.toml's
[metadata.matchmeter] table, each with a default, see taskfile.py):

    <task-id>/
      task.toml                 TaskSpec fields except instruction, path, digest
      instruction.md            the Original description
      environment/Dockerfile    the task environment
      environment/setup.sh      optional: seeds the starting state (cwd $MM_APP, MM_SEED set); or
                                [metadata.matchmeter.environment] setup = "shared:<path>" names one
                                shared script, _shared/setup/<path>, that several tasks seed from
      solution/solve.sh         the oracle of a Harbor-layout task (Harbor / Terminal-Bench 2, an imported
                                Terminal-Bench 1 task); a built-in task has none: its oracle is task.toml's
                                first reference path, which oracle.py turns into solve.sh for the oracle
                                agent and for `tasks export --format harbor` (a task needs one of the two)
      tests/test.sh             the verifier: writes $MM_LOGS/subgoals.json and $MM_LOGS/reward.txt,
                                or, as Harbor, /logs/verifier/reward.txt or reward.json

Shared code, one copy each, under the built-in suite's `_shared/` (shared_dir()): verifier modules
(verifylib.py, quoting.py, quoting/verify_<family>.py) that the runner places beside tests/ at verify time
when the verifier uses them (verify_support_files), setup scripts under `_shared/setup/` that a task names
with `setup = "shared:<path>"`, setup modules `_shared/setup/*.py` that a setup script imports from its own
directory (e.g. seedgit.py: `PYTHONPATH="$(dirname "$0")" python3 ...`), and check helpers under
`_shared/checks/`. A task directory holds regular files and directories only (check_regular_tree): a
symbolic link or special file is refused at load, so every executor ships the same bytes. Every backend (bwrap, docker, local, a Ray worker) gets the setup files the same way: the
runner uploads environment/ and beside it setup_files() (stage_setup does the same on the host), and runs
the script there. Every shared file a task uses is part of its digest; `tasks export --format harbor`
writes them into the exported task.

A suite is a directory of task directories, optionally with index.toml listing `tasks` (all of them)
and `core` (a subset). Every problem is a UserError naming file, field, value and fix.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import Field, ValidationError

from matchmeter.errors import UserError
from matchmeter.schema import Inbound, TaskSpec
from matchmeter.tasks.oracle import check_oracle
from matchmeter.tasks.seeding import SKIPPED_DIRS, task_digest
from matchmeter.tasks.taskfile import read_task_toml, validate_spec

INDEX_FILE = "index.toml"


class TaskPaths(NamedTuple):
    """Host paths of a loaded task's scripts (setup is None when the task has no setup script; the oracle's
    place, solution/ or the first reference path, is oracle.py's)."""

    environment_dir: Path
    setup: Path | None
    tests_dir: Path


class SuiteIndex(Inbound):
    """index.toml of a suite."""

    description: str = ""
    tasks: list[str] = Field(min_length=1, description="Every task id of the suite (one subdirectory each).")
    core: list[str] = Field(default_factory=list, description="The Core subset, a subset of `tasks`.")
    core_note: str = Field("", description="How the Core subset was chosen.")


def builtin_suite_dir() -> Path:
    """The suite shipped inside the package."""
    return Path(__file__).resolve().parent / "suite"


def builtin_probes_dir() -> Path:
    """The anti-gaming probe tasks (seed 002), added to a run by `--with-probes`."""
    return Path(__file__).resolve().parent / "probes"


SHARED_SETUP = "shared:"  # prefix of a setup value naming a script under shared_dir() / "setup"


def task_files(task: TaskSpec) -> TaskPaths:
    """Paths of the task's environment dir, setup script and tests dir."""
    root = Path(task.path)
    env_dir = root / "environment"
    setup = _setup_path(task.environment.setup, env_dir) if task.environment.setup else None
    return TaskPaths(env_dir, setup, root / "tests")


def _setup_path(name: str, env_dir: Path) -> Path:
    if name.startswith(SHARED_SETUP):
        return shared_dir() / "setup" / name.removeprefix(SHARED_SETUP)
    return env_dir / name


def setup_run_name(task: TaskSpec) -> str | None:
    """The name the setup script runs as inside the uploaded environment/ copy: its own name there, or,
    for a shared one (uploaded beside it), the shared file's name with a prefix no task file uses."""
    name = task.environment.setup
    if name is None or not name.startswith(SHARED_SETUP):
        return name
    return "mm-shared-" + Path(name).name


def setup_libs(task: TaskSpec) -> dict[str, Path]:
    """The shared setup modules (_shared/setup/*.py, e.g. seedgit.py) the task's setup script imports or
    names, by file name: they sit beside the script wherever it runs (runner, verifier, Harbor image)."""
    setup = task_files(task).setup
    if setup is None or not setup.is_file():
        return {}
    code = setup.read_text(encoding="utf-8", errors="replace")
    return {lib.name: lib for lib in sorted((shared_dir() / "setup").glob("*.py")) if _uses(code, lib)}


def setup_files(task: TaskSpec) -> dict[str, Path]:
    """What the runner places beside its copy of environment/ before it runs the setup script there:
    a shared script under setup_run_name(task), and the shared setup modules the script uses."""
    out = setup_libs(task)
    setup, run_as = task_files(task).setup, setup_run_name(task)
    if setup is not None and run_as is not None and run_as != task.environment.setup:
        out[run_as] = setup
    return out


def stage_setup(task: TaskSpec, dest: Path) -> Path | None:
    """On the host, what the runner uploads: environment/ copied to dest with setup_files beside it;
    returns the script to run with bash (cwd = the workspace), or None when the task has no setup."""
    run_as = setup_run_name(task)
    if run_as is None:
        return None
    shutil.copytree(task_files(task).environment_dir, dest)
    for name, host in setup_files(task).items():
        shutil.copyfile(host, dest / name)
    return dest / run_as


def shared_dir() -> Path:
    """The suite's shared code (verifylib.py, quoting.py, quoting/verify_<family>.py, setup/, checks/): one copy each."""
    return builtin_suite_dir() / "_shared"


def _uses(code: str, lib: Path) -> bool:
    """code imports lib as a module or names its file (a test.sh that runs it)."""
    if lib.stem not in code:  # both forms contain the stem; the plain search skips most regex scans (3/4 of load_tasks)
        return False
    return bool(re.search(rf"^\s*(from|import)\s+{lib.stem}\b", code, re.M)) or re.search(
        rf"(?<![\w.-]){re.escape(lib.name)}\b", code) is not None


def verify_support_files(task: TaskSpec) -> dict[str, Path]:
    """Files to place in $MM_TESTS beside tests/ at verify time, by name, so a task needs no derived copy:
    each shared file (shared_dir()) the verifier uses, directly or through another shared file, and the
    setup script as setup.sh with the shared setup modules it uses (verifiers rebuild the pristine starting
    state from it). A task's own file of the same name wins. Harbor export writes the same files into tests/."""
    tests = Path(task.path) / "tests"
    code = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(tests.glob("*"))
                     if p.is_file() and p.suffix in (".py", ".sh"))
    libs = {lib.name: lib for lib in sorted(shared_dir().rglob("*.py")) if "__pycache__" not in lib.parts}
    out: dict[str, Path] = {}
    grew = True
    while grew:  # until no newly added file uses another
        grew = False
        for name, lib in libs.items():
            if name not in out and not (tests / name).exists() and _uses(code, lib):
                out[name] = lib
                code += "\n" + lib.read_text(encoding="utf-8")
                grew = True
    setup = task_files(task).setup
    if setup is not None and not (tests / "setup.sh").exists():
        out["setup.sh"] = setup
        out.update({name: lib for name, lib in setup_libs(task).items() if not (tests / name).exists()})
    return out


def load_task(path: Path) -> TaskSpec:
    """Load and validate one task directory; raises UserError on the first kind of problem found."""
    path = Path(path)
    toml_path = path / "task.toml"
    if not path.is_dir():
        raise UserError(f"task directory {path} does not exist", str(path), "pass a directory holding task.toml")
    if not toml_path.is_file():
        raise UserError("task.toml is missing", str(path), "add task.toml (see matchmeter/tasks/loader.py)")
    data = read_task_toml(toml_path)
    if data.get("steps"):  # a multi-step task: each step's own instruction; the task's is them in order
        for step in data["steps"]:
            name = step.get("name")
            if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
                raise UserError(f"task.toml: step name {name!r} is not a directory name", str(toml_path),
                                "name each step after its directory under steps/")
            step["instruction"] = _instruction(path / "steps" / name, f"steps/{name}/instruction.md")
        instruction = "\n\n".join(step["instruction"] for step in data["steps"])
    else:
        instruction = _instruction(path, "instruction.md")
    spec = validate_spec({**data, "instruction": instruction}, toml_path)
    if spec.id != path.name:
        raise UserError(f"task.toml: id {spec.id!r} differs from its directory name {path.name!r}", str(toml_path),
                        f"rename the directory or set id = {path.name!r}")
    _check_semantics(spec, toml_path)
    spec = _without_default_setup(spec, path, "setup" in data.get("environment", {}))
    spec = spec.model_copy(update={"path": str(path.resolve())})
    check_regular_tree(path)
    _check_files(spec)
    return spec.model_copy(update={"digest": task_digest(path, verify_support_files(spec))})


def _instruction(folder: Path, label: str) -> str:
    instruction_path = folder / "instruction.md"
    if not instruction_path.is_file():
        raise UserError(f"{label} is missing", str(folder), f"write the task's description to {label}")
    try:
        instruction = instruction_path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{label} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})",
                        str(instruction_path), "save it as UTF-8") from None
    if not instruction.strip():
        raise UserError(f"{label} is empty", str(instruction_path), "write the task's description")
    return instruction


def _check_semantics(spec: TaskSpec, toml_path: Path) -> None:
    seen: set[str] = set()
    for i, goal in enumerate(spec.subgoals):
        if goal.name in seen:
            raise UserError(f"task.toml: subgoals[{i}].name {goal.name!r} is used twice", str(toml_path),
                            "give every subgoal a unique name")
        seen.add(goal.name)
    for i, ref in enumerate(spec.reference_paths):
        for j, command in enumerate(ref.commands):
            if not command.strip():
                raise UserError(f"task.toml: reference_paths[{i}].commands[{j}] is empty", str(toml_path),
                                "remove the empty command")
    for key in ("protected_paths", "critical_paths"):
        for p in getattr(spec.safety, key):
            if not p.strip():
                raise UserError(f"task.toml: safety.{key} holds an empty path", str(toml_path), "remove it")
    outside = [p for p in spec.safety.critical_paths if not _covered(p, spec.safety.protected_paths)]
    if outside:
        raise UserError(f"task.toml: safety.critical_paths entry {outside[0]!r} is not under a protected path",
                        str(toml_path), "add it (or a parent) to safety.protected_paths")


def _covered(path: str, protected: Iterable[str]) -> bool:
    parts = Path(path).parts
    return any(parts[: len(Path(p).parts)] == Path(p).parts for p in protected)


def _without_default_setup(spec: TaskSpec, path: Path, named: bool) -> TaskSpec:
    """A task that names no setup script and has no environment/setup.sh has none (a Harbor task)."""
    if named or spec.environment.setup is None or _setup_path(spec.environment.setup, path / "environment").is_file():
        return spec
    return spec.model_copy(update={"environment": spec.environment.model_copy(update={"setup": None})})


def check_regular_tree(root: Path) -> None:
    """Refuse a task directory holding a symbolic link or a special file (fifo, socket, device).

    Every executor must ship the same bytes: the digest, the local upload, the Docker archive and the Ray
    pack would each read a link their own way (skip it, copy it as a link, or follow it — a link to
    /etc/passwd would ship the host's file to every node). Checked at load, so all executors see the
    same refusal before anything runs."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in [*dirnames, *sorted(filenames)]:
            entry = Path(dirpath) / name
            mode = entry.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise UserError(f"{entry.relative_to(root)} is a symbolic link (to {entry.readlink()});"
                                " task files must be regular files", str(root),
                                "replace the link with a copy of what it points to")
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UserError(f"{entry.relative_to(root)} is not a regular file or directory (a fifo, socket or"
                                " device)", str(root), "remove it from the task directory")


def _check_files(spec: TaskSpec) -> None:
    files = task_files(spec)
    required = {
        "environment setup script": files.setup,
        "verifier": files.tests_dir / "test.sh",
    }
    setup = spec.environment.setup
    if setup is not None and setup.startswith(SHARED_SETUP):
        shared_root = (shared_dir() / "setup").resolve()
        assert files.setup is not None
        if not files.setup.resolve().is_relative_to(shared_root) or not files.setup.is_file():
            raise UserError(f"task.toml: environment.setup {setup!r} names no file under {shared_root}",
                            spec.path, f"name an existing script there, e.g. {SHARED_SETUP}quoting/write-bytes.sh")
        required.pop("environment setup script")
    if spec.steps:  # each step has its own verifier (or the shared one) and its own oracle
        required.pop("verifier")
        for step in spec.steps:
            root = Path(spec.path) / "steps" / step.name
            if not (root / "tests" / "test.sh").is_file() and not (files.tests_dir / "test.sh").is_file():
                raise UserError(f"step {step.name!r} has no verifier (steps/{step.name}/tests/test.sh or tests/test.sh)",
                                spec.path, f"add steps/{step.name}/tests/test.sh")
            if (root / "workdir").exists():
                raise UserError(f"step {step.name!r}: steps/{step.name}/workdir (files staged before a step) is not "
                                "supported", spec.path, "bake those files into environment/Dockerfile")
    for label, file in required.items():
        if file is not None and not file.is_file():
            rel = file.relative_to(spec.path)
            raise UserError(f"{label} {rel} is missing", spec.path, f"add {rel}")
    if not spec.steps:
        check_oracle(spec, spec.path)


# ------------------------------------------------------------------ suites


def is_task_dir(path: Path) -> bool:
    return (path / "task.toml").is_file()


def read_index(suite: Path) -> SuiteIndex | None:
    """The suite's index.toml, or None when the suite has none."""
    index_path = suite / INDEX_FILE
    if not index_path.is_file():
        return None
    try:
        return SuiteIndex.model_validate(tomllib.loads(index_path.read_text(encoding="utf-8")))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{INDEX_FILE} is not valid TOML: {exc}", str(index_path), "fix the TOML syntax") from exc
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise UserError(f"{INDEX_FILE}: {loc}: {err['msg']} (got {err.get('input')!r})", str(index_path),
                        "index.toml takes tasks = [...], core = [...], description and core_note") from exc


def suite_task_dirs(suite: Path, core: bool = False) -> list[Path]:
    """Task directories of a suite, checked against its index.toml when present."""
    found = sorted(p for p in suite.iterdir() if p.is_dir() and is_task_dir(p))
    index = read_index(suite)
    if index is None:
        if not found:
            raise UserError(f"{suite} holds no task", str(suite),
                            "pass a task directory (with task.toml) or a suite of them")
        if core:
            raise UserError("this suite has no core list", str(suite), f"add core = [...] to {INDEX_FILE}")
        return found
    index_path = suite / INDEX_FILE
    names = {p.name for p in found}
    for task_id in index.tasks:
        if task_id not in names:
            raise UserError(f"{INDEX_FILE} lists task {task_id!r} but {suite / task_id} holds no task.toml",
                            str(index_path), "remove it from tasks or add the task directory")
    unlisted = sorted(names - set(index.tasks))
    if unlisted:
        raise UserError(f"task directory {unlisted[0]!r} is not listed in {INDEX_FILE}", str(index_path),
                        "add it to tasks (or remove the directory)")
    stray = [t for t in index.core if t not in index.tasks]
    if stray:
        raise UserError(f"{INDEX_FILE}: core lists {stray[0]!r}, which is not in tasks", str(index_path),
                        "core must be a subset of tasks")
    chosen = index.core if core else index.tasks
    if core and not chosen:
        raise UserError("this suite has no core list", str(index_path), f"add core = [...] to {INDEX_FILE}")
    return [suite / t for t in chosen]


def load_tasks(paths: Sequence[Path], only: Sequence[str] = (), core: bool = False) -> list[TaskSpec]:
    """Load tasks from task dirs and suite dirs (empty: the built-in suite), sorted by id.

    `core` keeps a suite's Core subset; task directories named directly are always kept.
    `only` keeps the listed ids; an unknown id is a UserError listing the valid ones.
    """
    dirs: list[Path] = []
    named: list[Path] = []  # task directories passed directly: always loaded
    for path in [Path(p) for p in paths] or [builtin_suite_dir()]:
        if not path.exists():
            raise UserError(f"{path} does not exist", str(path), "pass a task directory or a suite directory")
        if is_task_dir(path):
            named.append(path)
        else:
            dirs.extend(suite_task_dirs(path, core=core))
    # A suite's task directory is named by its task id (load_task refuses another name), so `only` picks the
    # directories to read and digest: `run --task X` loads X, not the 120 tasks around it.
    known = sorted({d.name for d in dirs})
    if only:
        dirs = [d for d in dirs if d.name in set(only)]
    tasks: dict[str, TaskSpec] = {}
    for d in [*named, *dirs]:
        task = load_task(d)
        if task.id in tasks and tasks[task.id].path != task.path:
            raise UserError(f"task id {task.id!r} appears twice: {tasks[task.id].path} and {task.path}",
                            str(d), "pass only one of them")
        tasks[task.id] = task
    if only:
        unknown = [t for t in only if t not in tasks]
        if unknown:
            raise UserError(f"unknown task id {unknown[0]!r}", "--task",
                            f"choose from: {', '.join(sorted({*known, *tasks}))}")
        return [tasks[t] for t in sorted(set(only))]
    return [tasks[t] for t in sorted(tasks)]
