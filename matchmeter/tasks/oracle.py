"""The oracle: a task's reference solution, as the oracle agent runs it and `tasks export` writes it.

A Harbor-layout task (Harbor / Terminal-Bench 2, or one `tasks import` made from Terminal-Bench 1) keeps its
oracle in solution/solve.sh, with whatever else solution/ holds. A built-in task keeps it only in task.toml:
its first reference path, from which `solve_script` writes the script, each command in its own `bash -c`
(no shell state carries over, exactly as the efficiency metric replays the path), so the oracle and the
reference path cannot drift apart and the source tree holds no derived copy.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from matchmeter.errors import UserError
from matchmeter.schema import TaskSpec

SOLVE_SH = "solve.sh"


def solve_script(commands: Sequence[str]) -> str:
    """solve.sh for a reference path: `bash -c` per command under `set -euo pipefail`, in $MM_APP."""
    lines = [
        "#!/usr/bin/env bash",
        "# Oracle = reference_paths[0] of task.toml, one `bash -c` per command (no shell state carries over).",
        "# Written by matchmeter when the oracle runs or the task is exported; the task keeps no copy.",
        "set -euo pipefail",
        'cd "${MM_APP:-.}"',
    ]
    lines += [f"bash -c {shlex.quote(c)}" for c in commands]
    return "\n".join(lines) + "\n"


def own_solution(task: TaskSpec) -> Path | None:
    """The task's own solution/ directory when it holds solve.sh (a Harbor-layout task), else None."""
    solution = Path(task.path) / "solution"
    return solution if (solution / SOLVE_SH).is_file() else None


def check_oracle(task: TaskSpec, where: str) -> None:
    """Raise the one UserError for a task that has no oracle: neither solution/solve.sh nor a reference path."""
    if own_solution(task) is None and not task.reference_paths:
        raise UserError("the task has no oracle: solution/solve.sh is missing and task.toml has no reference path",
                        where, "add solution/solve.sh, or a [[metadata.matchmeter.reference_paths]] entry")


def stage_oracle(task: TaskSpec, dest: Path) -> Path:
    """On the host, the oracle's directory as the oracle agent uploads it and the Harbor export ships it:
    the task's own solution/ copied to dest, or dest/solve.sh written from the first reference path.
    Returns dest/solve.sh (run it with bash, cwd = the workspace)."""
    check_oracle(task, task.path)
    own = own_solution(task)
    if own is not None:
        shutil.copytree(own, dest)
    else:
        dest.mkdir(parents=True)
        (dest / SOLVE_SH).write_text(solve_script(task.reference_paths[0].commands), encoding="utf-8")
        (dest / SOLVE_SH).chmod(0o755)
    return dest / SOLVE_SH
