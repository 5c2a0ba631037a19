"""Read a verifier's verdict from wherever it wrote it: matchmeter's files or Harbor's.

Looked for in this order, the first present wins:

1. `$MM_LOGS/reward.txt` (+ optional `$MM_LOGS/subgoals.json`): matchmeter's own tasks.
2. `$MM_LOGS/verifier/reward.json`: Harbor's JSON reward, an object of finite numbers. Its `reward`
   key is the reward; keys naming the task's subgoals are subgoal scores (graded by weight when
   there is no `reward` key); a single value is the reward. Harbor prefers it over reward.txt.
3. `$MM_LOGS/verifier/reward.txt`: Harbor's plain reward (a number on the last line).

`$MM_LOGS` is `/logs` on bwrap and docker, so Harbor's `/logs/verifier/…` is case 2/3 unchanged.
The runner must create `$MM_LOGS/verifier` before running tests/test.sh (Harbor does; TB2 verifiers
write into it without `mkdir`), which `prepare_command` gives.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.errors import VerifierError
from matchmeter.schema import TaskSpec

if TYPE_CHECKING:
    from matchmeter.runner.sandbox import Sandbox as _Exec


class Verdict(NamedTuple):
    graded: float
    """Reward in [0, 1] before safety deductions (weighted subgoals when scored)."""
    scores: dict[str, float]
    """Subgoal scores the verifier wrote (empty when it wrote only a reward)."""
    raw: float
    """The reward number as written (unclamped)."""
    source: str
    """Which file decided: "reward.txt", "verifier/reward.json" or "verifier/reward.txt"."""


def prepare_command(logs: str) -> str:
    """Shell command the runner runs before the verifier: Harbor's verifier directory must exist."""
    return f'mkdir -p "{logs}/verifier"'


def _cat(sandbox: _Exec, path: str) -> str | None:
    # Read by the harness, never by a program inside the sandbox (a planted `cat` could forge it), and only
    # after halt(): nothing is left running that could rewrite the file.
    text = sandbox.read_text(path, 1 << 20)
    return text if text is not None and text.strip() else None


def _number(text: str, name: str) -> float:
    try:
        value = float(text.strip().splitlines()[-1])
    except ValueError as exc:
        raise VerifierError(f"{name} is not a number: {text.strip()[:80]!r}") from exc
    if not math.isfinite(value):
        raise VerifierError(f"{name} is not a finite number: {text.strip()[:80]!r}")
    return value


def _clamp(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def graded_from_scores(scores: dict[str, float], task: TaskSpec, name: str) -> float:
    """Weighted mean of subgoal scores (each clamped to [0, 1]); unknown names are a VerifierError."""
    weights = {g.name: g.weight for g in task.subgoals}
    unknown = set(scores) - set(weights)
    if unknown:
        raise VerifierError(f"{name} names unknown subgoals {sorted(unknown)}; task.toml has {sorted(weights)}")
    return sum(weights[n] * _clamp(scores.get(n, 0.0)) for n in weights) / sum(weights.values())


def _ours(sandbox: _Exec, logs: str, text: str, task: TaskSpec) -> Verdict:
    raw = _number(text, "reward.txt")
    subgoals = _cat(sandbox, f"{logs}/subgoals.json")
    if subgoals is None:
        return Verdict(_clamp(raw), {}, raw, "reward.txt")
    try:
        scores = {str(k): float(v) for k, v in json.loads(subgoals).items()}
    except (ValueError, AttributeError, TypeError) as exc:
        raise VerifierError(f"subgoals.json is not a JSON object of numbers: {exc}") from exc
    return Verdict(graded_from_scores(scores, task, "subgoals.json"), scores, raw, "reward.txt")


def _harbor_json(text: str, task: TaskSpec) -> Verdict:
    name = "verifier/reward.json"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise VerifierError(f"{name} is not JSON: {exc}") from exc
    values = data if isinstance(data, dict) else {"reward": data}
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise VerifierError(f"{name}: {key} is not a finite number (got {value!r})")
    subgoal_names = {g.name for g in task.subgoals}
    scores = {k: float(v) for k, v in values.items() if k in subgoal_names}
    if "reward" in values:
        raw = float(values["reward"])
        return Verdict(graded_from_scores(scores, task, name) if scores else _clamp(raw), scores, raw, name)
    if scores:
        graded = graded_from_scores(scores, task, name)
        return Verdict(graded, scores, graded, name)
    if len(values) == 1:
        raw = float(next(iter(values.values())))
        return Verdict(_clamp(raw), {}, raw, name)
    raise VerifierError(f"{name} has no `reward` key and its keys {sorted(values)} name no subgoal of the task")


def read_verdict(sandbox: _Exec, logs: str, task: TaskSpec) -> Verdict:
    """The verdict of the verifier that just ran; VerifierError when no reward file exists or one is bad."""
    text = _cat(sandbox, f"{logs}/reward.txt")
    if text is not None:
        return _ours(sandbox, logs, text, task)
    text = _cat(sandbox, f"{logs}/verifier/reward.json")
    if text is not None:
        return _harbor_json(text, task)
    text = _cat(sandbox, f"{logs}/verifier/reward.txt")
    if text is not None:
        raw = _number(text, "verifier/reward.txt")
        return Verdict(_clamp(raw), {}, raw, "verifier/reward.txt")
    raise VerifierError(f"the verifier wrote no reward file ({logs}/reward.txt, {logs}/verifier/reward.json "
                        f"or {logs}/verifier/reward.txt)")
