"""Harbor interchange: move matchmeter's keys under [metadata.matchmeter], and export tasks to Harbor.

`to_matchmeter_table` rewrites a task.toml's text (comments, multi-line strings and key order kept):
top-level keys go under a `[metadata.matchmeter]` header and `[x]` / `[[x]]` become
`[metadata.matchmeter.x]` / `[[metadata.matchmeter.x]]`, except Harbor's own tables (HARBOR_TABLES).
Harbor's `metadata` is a free-form table, so `harbor lint` accepts what lives there.

`export_task` writes one self-contained Harbor task for one seed (`matchmeter tasks export --format
harbor --seed N OUT`): the task's own environment/ (its Dockerfile, whatever state that bakes, and the
files it COPYs) is kept, and the starting state is baked on top at build time (the setup script, the
task's own or the shared one it names, runs in a `RUN` step with MM_SEED=N, with the shared setup modules
it imports copied beside it), the image sets MM_SEED, MM_APP=/app, MM_TESTS=/tests and
MM_LOGS=/logs/verifier so the verifier writes reward.txt where Harbor reads it, and tests/ carries
what our runner supplies at verify time (verify_support_files: the shared verifylib.py, a quoting
family's verifier, setup.sh and its modules, from which the verifier rebuilds the pristine state),
which the source task keeps no copy of. The setup script is renamed so a matchmeter loader of the
export does not seed a second time. solution/ is what the oracle agent runs (oracle.stage_oracle): the
task's own solution/ when it has solve.sh, else solve.sh written from its first reference path, so every
export is a complete Harbor task whose oracle Harbor can run.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from matchmeter.errors import UserError
from matchmeter.schema import TaskSpec
from matchmeter.tasks.dockerfile import BASE_IMAGE, FROM_LINE
from matchmeter.tasks.loader import setup_libs, task_files, verify_support_files
from matchmeter.tasks.oracle import stage_oracle

HARBOR_TABLES = ("metadata", "verifier", "agent", "environment", "solution", "task")
HARBOR_TOP_KEYS = ("version", "schema_version", "source", "artifacts")
MM_TABLE = "metadata.matchmeter"
BAKED_SETUP = "matchmeter-setup.sh"
_HEADER = re.compile(r"^(\s*)(\[\[?)\s*([A-Za-z0-9_.\-\"]+)\s*(\]\]?)(.*)$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")


def _string_state(line: str, open_quote: str | None) -> str | None:
    """Which multi-line string delimiter (''' or \"\"\") is still open after this line."""
    i = 0
    while i < len(line):
        if open_quote:
            end = line.find(open_quote, i)
            if end < 0:
                return open_quote
            i, open_quote = end + 3, None
            continue
        starts = [(line.find(q, i), q) for q in ("'''", '"""') if line.find(q, i) >= 0]
        if not starts or "#" in line[i:min(s for s, _ in starts)]:
            return None
        start, quote = min(starts)
        i, open_quote = start + 3, quote
    return open_quote


def to_matchmeter_table(text: str) -> str:
    """task.toml text with matchmeter's keys moved under [metadata.matchmeter] (idempotent)."""
    if "metadata.matchmeter" in text:
        return text
    out: list[str] = []
    in_string: str | None = None
    top_level, opened = True, False
    for line in text.splitlines():
        if in_string is None:
            header = _HEADER.match(line)
            if header and not line.lstrip().startswith("#"):
                top_level = False
                name = header.group(3)
                if name.split(".")[0] not in HARBOR_TABLES:
                    line = f"{header.group(1)}{header.group(2)}{MM_TABLE}.{name}{header.group(4)}{header.group(5)}"
            elif top_level and not opened and (key := _KEY.match(line)) and key.group(1) not in HARBOR_TOP_KEYS:
                out.append(f"[{MM_TABLE}]")
                opened = True
        out.append(line)
        in_string = _string_state(line, in_string)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _harbor_header(task: TaskSpec) -> str:
    env = task.environment
    tags = ", ".join(_toml_str(t) for t in task.tags)
    return "\n".join([
        "# Exported by `matchmeter tasks export --format harbor`; matchmeter's own keys are under",
        "# [metadata.matchmeter] (Harbor ignores them).",
        'version = "1.0"',
        "",
        "[metadata]",
        f"category = {_toml_str(task.category)}",
        f"difficulty = {_toml_str(task.difficulty)}",
        f"tags = [{tags}]",
        "",
        "# The verifier grades the state the agent left in /app, so it shares the agent's sandbox.",
        "[metadata.harbor.lint]",
        'ignore = ["shared-verifier"]',
        "",
        "[verifier]",
        f"timeout_sec = {task.timeouts.verify_s}",
        "",
        "[agent]",
        f"timeout_sec = {task.timeouts.agent_s}",
        "",
        "[environment]",
        f"build_timeout_sec = {max(task.timeouts.setup_s, 600.0)}",
        f"cpus = {env.cpus:g}",
        f"memory_mb = {env.memory_mb}",
        "network_mode = " + ('"public"' if env.network else '"no-network"'),
        "",
    ])


def _dockerfile(source: str, base: str, seed: int, setup: bool, libs: list[str]) -> str:
    """The task's own Dockerfile (the state it bakes is part of the environment; FROM the matchmeter base
    renamed to `base`), then the seed's state on top, as our runner seeds it after building that image.
    libs: shared setup modules copied beside the setup script (a task that uses none gets the plain layout)."""
    lines = []
    for raw in source.rstrip("\n").splitlines():
        match = FROM_LINE.match(raw)
        if match and match.group(2) == BASE_IMAGE:
            raw = match.group(1) + base + (match.group(3) or "") + match.group(5)
        lines.append(raw)
    lines += [
        "# Exported by matchmeter: the starting state is built here for one seed, so Harbor needs no setup step.",
        f"ENV MM_SEED={seed} MM_APP=/app MM_TESTS=/tests MM_LOGS=/logs/verifier",
        "WORKDIR /app",
    ]
    if setup and libs:
        files = " ".join([BAKED_SETUP, *libs])
        lines += [f"COPY {files} /tmp/",
                  f"RUN bash /tmp/{BAKED_SETUP} && cd /tmp && rm {files}"]
    elif setup:
        lines += [f"COPY {BAKED_SETUP} /tmp/{BAKED_SETUP}",
                  f"RUN bash /tmp/{BAKED_SETUP} && rm /tmp/{BAKED_SETUP}"]
    return "\n".join(lines) + "\n"


def _matchmeter_body(task: TaskSpec) -> str:
    """The source task.toml's matchmeter keys, in the [metadata.matchmeter] layout, minus setup."""
    text = to_matchmeter_table((Path(task.path) / "task.toml").read_text(encoding="utf-8"))
    keep: list[str] = []
    in_ours = False
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith("#"):
            in_ours = header.group(3).startswith(MM_TABLE)
        key = _KEY.match(line)
        if in_ours and not (key and key.group(1) == "setup"):
            keep.append(line)
    return "\n".join(keep) + "\n" if keep else ""


def export_task(task: TaskSpec, out_dir: Path, seed: int, base_image: str = "matchmeter-base:latest") -> Path:
    """Write `out_dir/<task id>/` as a self-contained Harbor task for `seed`; returns the directory."""
    if task.probe:
        raise UserError(f"task {task.id} is an anti-gaming probe", task.path, "export only benchmark tasks")
    src, dest = Path(task.path), out_dir / task.id
    if dest.exists():
        raise UserError(f"{dest} already exists", str(dest), "pass an empty output directory")
    files = task_files(task)
    shutil.copytree(src / "tests", dest / "tests")
    stage_oracle(task, dest / "solution")
    # environment/ is the Dockerfile's build context: every file it may COPY goes along (setup.sh renamed).
    setup = files.setup

    def not_setup(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if setup is not None and Path(folder, n) == setup]

    if files.environment_dir.is_dir():
        shutil.copytree(files.environment_dir, dest / "environment", ignore=not_setup)
    (dest / "environment").mkdir(exist_ok=True)
    (dest / "instruction.md").write_text(task.instruction, encoding="utf-8")
    for name, host in verify_support_files(task).items():
        shutil.copyfile(host, dest / "tests" / name)
    libs = setup_libs(task)
    if files.setup is not None:
        shutil.copyfile(files.setup, dest / "environment" / BAKED_SETUP)
    for name, host in libs.items():  # the shared setup modules the script imports from its own directory
        shutil.copyfile(host, dest / "environment" / name)
    own = files.environment_dir / "Dockerfile"
    source = own.read_text(encoding="utf-8") if own.is_file() else f"FROM {BASE_IMAGE}\n"
    (dest / "environment" / "Dockerfile").write_text(
        _dockerfile(source, base_image, seed, files.setup is not None, sorted(libs)))
    (dest / "task.toml").write_text(_harbor_header(task) + "\n" + _matchmeter_body(task), encoding="utf-8")
    return dest
