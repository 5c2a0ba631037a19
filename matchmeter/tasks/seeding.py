"""Seeded task state on the host side: the MM_* environment of a task script, and tree digests.

A task's scripts (environment/setup.sh, solution/solve.sh, tests/test.sh) read their context from
MM_SEED, MM_APP, MM_TESTS and MM_LOGS; `script_env` builds that mapping the same way for every caller.
`tree_digest` hashes a directory's relative paths and bytes: the loader uses it for the task digest,
tests use it to show that two seeds give different starting states. `task_digest` adds the shared
files the runner supplies at verify time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

# Byte-code caches appear next to verify.py when a test imports it on the host; they are not task content.
SKIPPED_DIRS = {"__pycache__", ".pytest_cache"}


def script_env(seed: int, app: str, tests: str, logs: str) -> dict[str, str]:
    """The variables every task script may rely on."""
    return {"MM_SEED": str(seed), "MM_APP": app, "MM_TESTS": tests, "MM_LOGS": logs}


def tree_files(root: Path) -> list[Path]:
    """Every regular file under root (symlinks not followed), sorted by relative POSIX path."""
    files = [
        p for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and not SKIPPED_DIRS.intersection(p.relative_to(root).parts)
    ]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def tree_digest(root: Path) -> str:
    """sha256 over (relative path, NUL, size, NUL, bytes) of every file, in sorted path order."""
    h = hashlib.sha256()
    for path in tree_files(root):
        data = path.read_bytes()
        h.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        h.update(str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    return h.hexdigest()


def task_digest(root: Path, supplied: dict[str, Path]) -> str:
    """tree_digest of the task directory, extended by the files supplied beside its tests at verify time
    (shared verifier code): editing one changes the digest of every task that uses it, so no stored
    result of the old verifier is reused. Equals tree_digest(root) when nothing is supplied."""
    if not supplied:
        return tree_digest(root)
    h = hashlib.sha256(tree_digest(root).encode("ascii"))
    for name, path in sorted(supplied.items()):
        data = path.read_bytes()
        h.update(b"\0" + name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0" + data)
    return h.hexdigest()
