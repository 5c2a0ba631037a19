"""The reference solution's outputs: the answer values a rewrite must not hand over.

A rewriter that reads trajectories sees the values an agent printed ("the top region is North with
69813.66"); a description that states them gives the answer away. The gate learns them by running the task's
setup and oracle once on seed 0 in a sandbox, never on the host: the gate may not import the runner (same
layer, docs/architecture.md), so the caller passes an OracleRun (the optimizer passes
runner.oracle_outputs.oracle_outputs, which uses an isolated backend, bwrap by default). It keeps the values of
the files the oracle wrote or changed (files up to MAX_FILE bytes: answers, not bulk output): numbers with a
decimal point or three or more digits, dates, e-mail addresses, and words of four or more letters (rules.py
counts a word only when it is not all lower case: "North", not "format"). A result is cached under the cache
directory by task digest.

Without an OracleRun, or when it raises SandboxError (no isolated backend here, a setup that fails), the
task has no answer values and Answers.skipped says why: its leaks are the judge's to catch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import SandboxError
from matchmeter.llm.cache import default_cache_dir
from matchmeter.schema import TaskSpec

MAX_FILE = 4096
VALUE = re.compile(r"(?<![\w.-])(?:\d{4}-\d{2}-\d{2}|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\d+\.\d+|\d{3,}|[A-Za-z][A-Za-z_-]{3,})(?![\w-])")
VERSION = 2  # bump when what is kept changes: cached answers of another version are recomputed
# (task, max bytes) → {path relative to the workspace: text} of what the oracle wrote or changed; raises SandboxError
OracleRun = Callable[..., dict[str, str]]


@dataclass(frozen=True)
class Answers:
    values: frozenset[str]
    skipped: str = ""  # why there are no values ("" when the oracle ran)


_MEMO: dict[str, frozenset[str]] = {}


def answers(task: TaskSpec, run: OracleRun | None) -> Answers:
    """The values of the oracle's outputs (see the module docstring), or none with the reason."""
    if not task.path:
        return Answers(frozenset(), "the task has no directory")
    key = f"{task.id}-{(task.digest or 'nodigest')[:16]}"
    if key in _MEMO:
        return Answers(_MEMO[key])
    cache = default_cache_dir() / "gate-answers" / f"{key}-v{VERSION}.json"
    if cache.is_file():
        _MEMO[key] = frozenset(json.loads(cache.read_text(encoding="utf-8")))
        return Answers(_MEMO[key])
    if run is None:
        return Answers(frozenset(), "no sandbox to run the oracle in was given")
    try:
        outputs = run(task, max_bytes=MAX_FILE)
    except SandboxError as exc:  # nothing cached: a later run with a sandbox retries
        return Answers(frozenset(), f"oracle not run: {exc}")
    values = sorted({v for text in outputs.values() for v in VALUE.findall(text)})
    cache.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(cache, json.dumps(values) + "\n")
    _MEMO[key] = frozenset(values)
    return Answers(_MEMO[key])


def answer_values(task: TaskSpec, run: OracleRun | None) -> set[str]:
    return set(answers(task, run).values)
