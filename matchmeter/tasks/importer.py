"""Convert a Terminal-Bench 1 task directory into a matchmeter (Harbor-style) task directory.

TB1 layout: task.yaml (instruction — or the older `descriptions: [{key: base, description}]` —,
author_name/author_email, difficulty, category, tags, max_agent_timeout_sec, max_test_timeout_sec,
parser_name, run_tests_in_same_shell, ...), Dockerfile (+ docker-compose.yaml), solution.sh,
run-tests.sh and tests/. The result keeps TB1's all-or-nothing grading as one subgoal "tests_pass":
tests/test.sh runs the original run-tests.sh and turns its exit status into subgoals.json/reward.txt.
The reference path is solution.sh's command lines; the family is "terminal".

Network: TB1 tasks often fetch at solve or test time (run-tests.sh installing uv and pytest, a
solution running pip/apt/curl). `network_needs` finds those lines in solution.sh, run-tests.sh and
tests/*.sh; when any is found the imported task gets `network_mode = "public"` (sandbox network on)
and the importer reports each line as a reason the task cannot run offline.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any, NamedTuple

from matchmeter.errors import UserError
from matchmeter.tasks.harbor import to_matchmeter_table
from matchmeter.tasks.loader import load_task

_DIFFICULTIES = {"easy", "medium", "hard"}
# Dockerfile lines of TB1 tasks that the matchmeter base image replaces (base image, tmux/asciinema helpers).
_TB1_PLUMBING = re.compile(r"^\s*(FROM\b|.*\b(tmux|asciinema)\b)", re.I)

_TB1_OWN_FILES = {"task.yaml", "solution.sh", "solution.yaml", "run-tests.sh", "tests", "Dockerfile",
                  "docker-compose.yaml", "docker-compose.yml"}

_TEST_SH = """#!/usr/bin/env bash
# Imported from Terminal-Bench 1: runs the original run-tests.sh (pytest-style, all or nothing) and
# turns its exit status into matchmeter's result files.
here="${MM_TESTS:-$(dirname "$0")}"
export TEST_DIR="$here"
mkdir -p "${MM_LOGS:?}"
if bash "$here/run-tests.sh"; then score=1; else score=0; fi
printf '{"tests_pass": %s}\\n' "$score" > "$MM_LOGS/subgoals.json"
printf '%s\\n' "$score" > "$MM_LOGS/reward.txt"
"""


# (pattern, what it needs the network for); matched per line with comments stripped.
_NETWORK_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), what) for p, what in (
    (r"\b(curl|wget)\b.*\b(https?|ftp)://", "downloads a URL"),
    (r"\b(pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b", "installs Python packages"),
    (r"\buv\s+(add|sync|tool\s+install)\b|\buvx\b", "installs Python packages with uv"),
    (r"\b(apt-get|apt)\s+(-\S+\s+)*(install|update)\b", "uses the Debian package registry"),
    (r"\bnpm\s+(install|ci|i)\b|\byarn\s+(add|install)\b|\bnpx\b", "installs npm packages"),
    (r"\bcargo\s+(install|fetch|add)\b|\bgo\s+(get|install|mod\s+download)\b|\bgem\s+install\b",
     "installs packages from a language registry"),
    (r"\bgit\s+(clone|fetch|pull)\b.*(https?://|git@)", "clones a remote repository"),
))


def network_needs(src: Path) -> list[str]:
    """Why the TB1 task at src cannot run offline: one "file:line: what: command" per network use."""
    scripts = [src / "solution.sh", src / "run-tests.sh", *sorted((src / "tests").glob("*.sh"))]
    reasons = []
    for script in scripts:
        if not script.is_file():
            continue
        for number, line in enumerate(script.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            code = line.split("#", 1)[0] if not line.lstrip().startswith("#!") else ""
            for pattern, what in _NETWORK_PATTERNS:
                if pattern.search(code):
                    reasons.append(f"{script.relative_to(src)}:{number}: {what}: {code.strip()[:100]}")
                    break
    return reasons


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml  # PyYAML: only the importer needs it

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise UserError(f"task.yaml is not valid YAML: {exc}".replace("\n", " "), str(path), "fix the YAML") from exc
    if not isinstance(data, dict):
        raise UserError("task.yaml must be a mapping", str(path), "see Terminal-Bench 1's task.yaml format")
    return data


def _instruction(meta: dict[str, Any], path: Path) -> str:
    if isinstance(meta.get("instruction"), str) and meta["instruction"].strip():
        return str(meta["instruction"]).strip() + "\n"
    for entry in meta.get("descriptions") or []:  # TB1 before the `instruction` key
        if isinstance(entry, dict) and entry.get("key", "base") == "base" and entry.get("description"):
            return str(entry["description"]).strip() + "\n"
    raise UserError("task.yaml has no instruction", str(path), "add instruction: (or descriptions: [{key: base, ...}])")


def solution_commands(script: str) -> list[str]:
    """Command lines of solution.sh for the reference path: no shebang, comments, blanks or `set` lines.

    Multi-line constructs (heredocs, trailing backslashes, open quotes/blocks) are joined into one command.
    """
    commands: list[str] = []
    pending = ""
    heredoc: str | None = None
    for line in script.splitlines():
        if heredoc is not None:
            pending += "\n" + line
            if line.strip() == heredoc:
                commands.append(pending)
                pending, heredoc = "", None
            continue
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#") or re.match(r"set\s+-", stripped)):
            continue
        pending = f"{pending}\n{line}" if pending else stripped
        match = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if match:
            heredoc = match.group(1)
            continue
        if pending.endswith("\\") or not _complete(pending):
            continue
        commands.append(pending)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


def _complete(command: str) -> bool:
    """True when quotes are balanced and no block (if/for/while/case/{ or function) is left open."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return False
    opens = sum(w in ("if", "for", "while", "until", "case", "{") for w in words)
    closes = sum(w in ("fi", "done", "esac", "}") for w in words)
    return opens <= closes


def _task_toml(task_id: str, meta: dict[str, Any], commands: list[str], network: bool) -> str:
    difficulty = str(meta.get("difficulty", "medium")).lower()
    agent_s = float(meta.get("max_agent_timeout_sec", 600.0))
    verify_s = float(meta.get("max_test_timeout_sec", 120.0))
    tags = [str(t) for t in meta.get("tags") or []]
    lines = [
        f"# Imported from Terminal-Bench 1 by matchmeter.tasks.importer (author: {meta.get('author_name') or meta.get('author_email') or 'unknown'})",
        f"id = {json.dumps(task_id)}",
        'source_family = "terminal"',
        f"category = {json.dumps(str(meta.get('category') or 'uncategorized'))}",
        f"difficulty = {json.dumps(difficulty if difficulty in _DIFFICULTIES else 'medium')}",
        f"tags = {json.dumps(tags + ['tb1-import'])}",
        "",
        "[budgets]",
        f"wall_s = {agent_s}",
        "",
        "[timeouts]",
        f"agent_s = {agent_s}",
        f"verify_s = {verify_s}",
        "",
        "[[subgoals]]",
        'name = "tests_pass"',
        "weight = 1.0",
        'description = "The original Terminal-Bench tests pass (all or nothing)."',
        "",
        "[[reference_paths]]",
        "commands = [",
        *[f"  {json.dumps(c)}," for c in commands],
        "]",
    ]
    if network:
        lines += ["", "# Needs the network (see `matchmeter tasks import` output).", "[environment]",
                  'network_mode = "public"']
    return to_matchmeter_table("\n".join(lines) + "\n")


class Imported(NamedTuple):
    path: Path
    network_reasons: list[str]
    """Why the task cannot run offline (empty: it can)."""


def import_tb1(src: Path, dest: Path) -> Imported:
    """Write src (a TB1 task dir) as dest/<task-id> in matchmeter's format; return it with its network needs.

    dest may be the target task directory itself when it is named like src.
    """
    src, dest = Path(src), Path(dest)
    yaml_path = src / "task.yaml"
    if not yaml_path.is_file():
        raise UserError("task.yaml is missing", str(src), "pass a Terminal-Bench 1 task directory")
    for required in ("solution.sh", "run-tests.sh", "Dockerfile"):
        if not (src / required).is_file():
            raise UserError(f"{required} is missing", str(src), "only complete Terminal-Bench 1 tasks can be imported")
    meta = _read_yaml(yaml_path)
    out = dest if dest.name == src.name else dest / src.name
    if out.exists() and any(out.iterdir()):
        raise UserError(f"{out} already exists and is not empty", str(out), "remove it or choose another destination")
    solution = (src / "solution.sh").read_text(encoding="utf-8")
    commands = solution_commands(solution) or ["true"]
    (out / "environment").mkdir(parents=True, exist_ok=True)
    (out / "solution").mkdir()
    (out / "tests").mkdir()
    (out / "instruction.md").write_text(_instruction(meta, yaml_path), encoding="utf-8")
    reasons = network_needs(src)
    (out / "task.toml").write_text(_task_toml(src.name, meta, commands, bool(reasons)), encoding="utf-8")
    docker_lines = [ln for ln in (src / "Dockerfile").read_text(encoding="utf-8").splitlines() if not _TB1_PLUMBING.match(ln)]
    (out / "environment" / "Dockerfile").write_text("FROM matchmeter-base:latest\n" + "\n".join(docker_lines) + "\n")
    # TB1 bakes the starting state into the image; our sandboxes start from an empty workspace.
    (out / "environment" / "setup.sh").write_text(
        "#!/usr/bin/env bash\n# Imported from Terminal-Bench 1: the starting state comes from the Dockerfile.\ntrue\n")
    # Files the Dockerfile may COPY (TB1 builds with the task dir as context) go to environment/.
    for item in src.iterdir():
        if item.name not in _TB1_OWN_FILES:
            copy = shutil.copytree if item.is_dir() else shutil.copy2
            copy(item, out / "environment" / item.name)
    shutil.copy2(src / "solution.sh", out / "solution" / "solve.sh")
    if (src / "tests").is_dir():
        shutil.copytree(src / "tests", out / "tests", dirs_exist_ok=True)
    shutil.copy2(src / "run-tests.sh", out / "tests" / "run-tests.sh")
    (out / "tests" / "test.sh").write_text(_TEST_SH)
    for script in (out / "environment" / "setup.sh", out / "solution" / "solve.sh", out / "tests" / "test.sh"):
        script.chmod(0o755)
    load_task(out)  # the result must pass our own validation
    return Imported(out, reasons)
