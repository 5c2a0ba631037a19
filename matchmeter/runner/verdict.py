"""Read a verifier's verdict from the files of the task's own format, and only when the verifier finished.

A matchmeter task (every task whose task.toml has matchmeter keys, source_family other than "imported")
is judged by `$MM_LOGS/reward.txt` (+ optional `$MM_LOGS/subgoals.json`) and nothing else.

A task in Harbor format (loaded with Harbor's defaults: source_family "imported", taskfile.py) is judged
by Harbor's files, in Harbor's order:

1. `$MM_LOGS/verifier/reward.json`: Harbor's JSON reward, an object whose every value is a finite number
   (anything else, a bare number or `{}` included, is a VerifierError, as Harbor's verifier and its
   `VerifierResult` model refuse them). Every key is kept as written (`Verdict.rewards`, unclamped, as
   Harbor stores and averages them). The scalar reward is Harbor's primary reward: the `reward` key,
   else the one key there is. With several keys and no `reward` Harbor defines no scalar; matchmeter
   then grades keys naming the task's subgoals by weight, and otherwise takes the unweighted mean of
   the keys (each clamped to [0, 1]), so AMS has a number while per-key means stay Harbor's. Keys
   naming the subgoals of a task that declares them are graded by weight whatever else is there.
   Harbor prefers it over reward.txt.
2. `$MM_LOGS/verifier/reward.txt`: Harbor's plain reward (a number on the last line), the key `reward`.

A reward file that exists but is not a regular file (a directory, a fifo, a link, or one under a linked
directory) is a VerifierError, never a reason to look at the next file: code that ran during verification
made it so. `check_finished` turns a verifier that timed out or ended by a signal into a VerifierError
before any file is read: a reward written by a verifier that did not finish is not a verdict.

`$MM_LOGS` is `/logs` on bwrap and docker, so Harbor's `/logs/verifier/…` is read unchanged.
The runner must create `$MM_LOGS/verifier` before running tests/test.sh (Harbor does; TB2 verifiers
write into it without `mkdir`), which `prepare_command` gives.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, NamedTuple, Protocol

from matchmeter.errors import VerifierError
from matchmeter.schema import TaskSpec

if TYPE_CHECKING:
    from matchmeter.runner.sandbox import ExecResult, FileRead, Sandbox

# Exit statuses at or above this mean the verifier's shell, or the last command it ran, was killed by a signal
# (128 + the signal's number, as every shell and our backends report it).
SIGNAL_EXIT = 128


class Verdict(NamedTuple):
    graded: float
    """Reward in [0, 1] before safety deductions (weighted subgoals when scored)."""
    scores: dict[str, float]
    """Subgoal scores the verifier wrote (empty when it wrote only a reward)."""
    raw: float
    """The reward number as written (unclamped)."""
    source: str
    """Which file decided: "reward.txt", "verifier/reward.json" or "verifier/reward.txt"."""
    rewards: dict[str, float]
    """Every key the verifier wrote, as written: reward.json's keys, else {"reward": x} for a reward.txt (what
    Harbor records for it, so an exported matchmeter task reads the same in Harbor)."""


class _Exec(Protocol):
    """What the verdict is read through: a sandbox, or the files one step of it read (FilesRead)."""

    def file_kind(self, path: str) -> str | None: ...

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None: ...


class FilesRead:
    """The files Sandbox.halt(read=...) read once the verifier's processes were gone, asked as a sandbox is; a path
    that was not among them is asked of the sandbox itself."""

    def __init__(self, sandbox: Sandbox, files: dict[str, FileRead]) -> None:
        self.sandbox, self.files = sandbox, files

    def file_kind(self, path: str) -> str | None:
        return self.files[path].kind if path in self.files else self.sandbox.file_kind(path)

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        if path not in self.files:
            return self.sandbox.read_text(path, limit)
        text = self.files[path].text
        return None if text is None else text.encode()[:limit].decode("utf-8", errors="replace")


def verdict_paths(logs: str, task: TaskSpec) -> list[str]:
    """Every file read_verdict may read for this task's format, to be read in one step (Sandbox.halt)."""
    names = ["verifier/reward.json", "verifier/reward.txt"] if harbor_format(task) else ["reward.txt", "subgoals.json"]
    return [f"{logs}/{name}" for name in names]


def prepare_command(logs: str) -> str:
    """Shell command the runner runs before the verifier: Harbor's verifier directory must exist."""
    return f'mkdir -p "{logs}/verifier"'


def harbor_format(task: TaskSpec) -> bool:
    """Whether the task is judged by Harbor's /logs/verifier/reward.* (a task loaded with Harbor's defaults)."""
    return task.source_family == "imported"


def check_finished(verify: ExecResult, timeout_s: float) -> None:
    """VerifierError, in one line, unless the verifier's command ran to its own end."""
    if verify.timed_out:
        raise VerifierError(f"the verifier timed out after {timeout_s:g}s (its deadline); no reward is read")
    if verify.exit_code >= SIGNAL_EXIT:
        signo = verify.exit_code - SIGNAL_EXIT
        raise VerifierError(f"the verifier was killed (exit status {verify.exit_code}, signal {signo}); "
                            "no reward is read")


def with_exit(exc: VerifierError, verify: ExecResult) -> VerifierError:
    """A verdict error (no reward file, a bad one) with how the verifier's command ended and its last output line,
    so the stored error says why (the whole output is in verifier.log)."""
    lines = [line.strip() for line in verify.output.splitlines() if line.strip()]
    last = f": {lines[-1][:200]}" if lines else " with no output"
    return VerifierError(f"{exc}; the verifier exited {verify.exit_code}{last}")


def _cat(sandbox: _Exec, logs: str, name: str) -> str | None:
    """The file's text, None when it is absent or empty; VerifierError when it is there but not a regular file.
    Read by the harness, never by a program inside the sandbox (a planted `cat` could forge it), and only
    after halt(): nothing is left running that could rewrite the file."""
    kind = sandbox.file_kind(f"{logs}/{name}")
    if kind is None:
        return None
    if kind != "file":
        raise VerifierError(f"{name} is a {kind}, not a regular file: something other than the verifier made it")
    text = sandbox.read_text(f"{logs}/{name}", 1 << 20)
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
    subgoals = _cat(sandbox, logs, "subgoals.json")
    if subgoals is None:
        return Verdict(_clamp(raw), {}, raw, "reward.txt", {"reward": raw})
    try:
        scores = {str(k): float(v) for k, v in json.loads(subgoals).items()}
    except (ValueError, AttributeError, TypeError) as exc:
        raise VerifierError(f"subgoals.json is not a JSON object of numbers: {exc}") from exc
    return Verdict(graded_from_scores(scores, task, "subgoals.json"), scores, raw, "reward.txt", {"reward": raw})


def harbor_scalar(rewards: dict[str, float]) -> float | None:
    """Harbor's primary reward of a rewards dict: its `reward` key, else its only key, else None."""
    if "reward" in rewards:
        return rewards["reward"]
    if len(rewards) == 1:
        return next(iter(rewards.values()))
    return None


def scalar_of(rewards: dict[str, float]) -> float:
    """The raw scalar of a non-empty rewards dict: Harbor's primary reward, else the mean of the clamped keys."""
    scalar = harbor_scalar(rewards)
    if scalar is not None:
        return scalar
    return sum(_clamp(v) for v in rewards.values()) / len(rewards)


def _harbor_json(text: str, task: TaskSpec) -> Verdict:
    name = "verifier/reward.json"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise VerifierError(f"{name} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise VerifierError(f"{name} is not a JSON object of reward keys (got {text.strip()[:80]!r}); "
                            'Harbor reads {"reward": <number>, ...}')
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise VerifierError(f"{name}: {key} is not a finite number (got {value!r})")
    rewards = {str(k): float(v) for k, v in data.items()}
    subgoal_names = {g.name for g in task.subgoals}
    scores = {k: v for k, v in rewards.items() if k in subgoal_names}
    scalar = harbor_scalar(rewards)
    if scores:  # a task that declares subgoals (matchmeter keys) is graded by their weights
        graded = graded_from_scores(scores, task, name)
        return Verdict(graded, scores, graded if scalar is None else scalar, name, rewards)
    raw = scalar_of(rewards)
    return Verdict(_clamp(raw), {}, raw, name, rewards)


def read_verdict(sandbox: _Exec, logs: str, task: TaskSpec) -> Verdict:
    """The verdict of the verifier that just ran, from the files of the task's format (module docstring);
    VerifierError when no reward file exists or one is bad."""
    if not harbor_format(task):
        text = _cat(sandbox, logs, "reward.txt")
        if text is not None:
            return _ours(sandbox, logs, text, task)
        raise VerifierError(f"the verifier wrote no reward file ({logs}/reward.txt)")
    text = _cat(sandbox, logs, "verifier/reward.json")
    if text is not None:
        return _harbor_json(text, task)
    text = _cat(sandbox, logs, "verifier/reward.txt")
    if text is not None:
        raw = _number(text, "verifier/reward.txt")
        return Verdict(_clamp(raw), {}, raw, "verifier/reward.txt", {"reward": raw})
    raise VerifierError(f"the verifier wrote no reward file ({logs}/verifier/reward.json or "
                        f"{logs}/verifier/reward.txt; a task in Harbor format)")
