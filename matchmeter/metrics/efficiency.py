"""Efficiency card (SPEC §5, seed `004_…`): canonical commands, invalid and redundant actions,
distance to the nearest reference path, explore/exploit shares, E, Q and Q·E.

Input is plain data — a list of steps `{"command": str | None, "exit_code": int | None, "output": str}`
and the task's reference paths as lists of command strings — so the card can be computed from
stored `trajectory.json` files (`steps_from_trajectory`) or from hand-written fixtures alike.
The canonicaliser is a table (`COMMAND_ALIASES`, `PREFIXES_DROPPED`, `HARMLESS_FLAGS`) so that every
normalisation is visible and tested case by case. Q is on the card's 0–100 point scale; E in [0, 1];
the composite Q·E is therefore in [0, 100].
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from matchmeter.schema import ExecutionResult, TaskSpec, Trajectory

# Leading token sequences rewritten to one canonical program (longest match first).
COMMAND_ALIASES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("python3", "-m", "pip"): ("pip3",),
    ("python", "-m", "pip"): ("pip3",),
    ("pip",): ("pip3",),
    ("apt",): ("apt-get",),
    ("python",): ("python3",),
}
# Wrappers that do not change what the command does inside a root sandbox.
PREFIXES_DROPPED = ("sudo", "command")
# Per program, flags that only change verbosity or confirmation prompts. Keyed per program because
# `grep -q` changes the output, while `apt-get -q` does not change the result.
HARMLESS_FLAGS: dict[str, frozenset[str]] = {
    "apt-get": frozenset({"-y", "--yes", "--assume-yes", "-q", "-qq", "--quiet"}),
    "pip3": frozenset({"-q", "--quiet", "--no-cache-dir", "--disable-pip-version-check", "-y", "--yes",
                       "--no-input"}),
    "git": frozenset({"-q", "--quiet", "--no-pager"}),
    "curl": frozenset({"-s", "--silent", "-S", "--show-error"}),
    "wget": frozenset({"-q", "--quiet"}),
    "npm": frozenset({"--silent", "-s", "--yes", "-y"}),
}
OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})
QUERY_PROGRAMS = frozenset({
    "ls", "cat", "grep", "egrep", "fgrep", "rg", "head", "tail", "find", "man", "wc", "less", "more", "stat",
    "file", "which", "type", "pwd", "tree", "du", "df", "ps", "env", "printenv", "whoami", "id", "uname", "diff",
    "cmp", "date", "locate", "whereis", "readlink", "realpath", "md5sum", "sha256sum", "apt-cache", "help", "info",
})
STATE_PROGRAMS = frozenset({
    "mkdir", "mv", "cp", "rm", "rmdir", "touch", "chmod", "chown", "chgrp", "ln", "tee", "dd", "truncate",
    "install", "patch", "unzip", "useradd", "userdel", "groupadd", "kill", "pkill", "crontab", "systemctl",
})
STATE_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset({"add", "commit", "checkout", "reset", "merge", "rebase", "mv", "rm", "stash", "apply", "init",
                      "clone", "switch", "restore", "pull", "cherry-pick", "tag", "revert", "am"}),
    "apt-get": frozenset({"install", "remove", "purge", "update", "upgrade", "autoremove", "dist-upgrade"}),
    "pip3": frozenset({"install", "uninstall"}),
    "npm": frozenset({"install", "uninstall", "ci", "i"}),
    "dpkg": frozenset({"-i", "--install", "-r", "--remove", "-P", "--purge"}),
}
QUERY_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset({"status", "log", "diff", "show", "blame", "ls-files", "rev-parse", "grep"}),
    "pip3": frozenset({"list", "show", "freeze", "check"}),
    "dpkg": frozenset({"-l", "-L", "-s", "--list", "--status"}),
}
_INVALID_PATTERNS = re.compile(
    r"syntax error|unexpected EOF|unexpected end of file|permission denied|no such file or directory|"
    r"cannot access|cannot stat|not a directory", re.IGNORECASE)


def tokenize(command: str) -> list[str] | None:
    """Shell-rule tokens with operators (`;`, `&&`, `|`, `>`, …) as their own tokens; None when the
    command cannot be tokenised (unbalanced quotes)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def _segments(tokens: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for tok in tokens:
        if tok in OPERATORS:
            out.append([])
        else:
            out[-1].append(tok)
    return [seg for seg in out if seg]


def _normalise_segment(seg: list[str]) -> list[str]:
    while seg and seg[0] in PREFIXES_DROPPED:
        seg = seg[1:]
    for prefix in sorted(COMMAND_ALIASES, key=len, reverse=True):
        if tuple(seg[: len(prefix)]) == prefix:
            seg = [*COMMAND_ALIASES[prefix], *seg[len(prefix):]]
            break
    harmless = HARMLESS_FLAGS.get(seg[0], frozenset()) if seg else frozenset()
    return [seg[0], *[t for t in seg[1:] if not _is_harmless(t, harmless)]] if seg else seg


def _is_harmless(token: str, harmless: frozenset[str]) -> bool:
    if token in harmless:
        return True
    # a cluster such as `-yq` is harmless when every letter is
    return (token.startswith("-") and not token.startswith("--") and len(token) > 2
            and all(f"-{ch}" in harmless for ch in token[1:]))


def canonicalize(command: str) -> str:
    """Canonical form: shell tokens, aliases applied, harmless flags dropped, whitespace folded.

    A command the shell could not tokenise is only whitespace-folded (it is a syntax error anyway).
    """
    tokens = tokenize(command)
    if tokens is None:
        return " ".join(command.split())
    parts: list[str] = []
    seg: list[str] = []
    for tok in [*tokens, ";"]:
        if tok in OPERATORS:
            if seg:
                parts.extend(shlex.quote(t) if not _is_redirect(t) else t for t in _normalise_segment(seg))
                seg = []
            if tok != ";" or parts:
                parts.append(tok)
        else:
            seg.append(tok)
    while parts and parts[-1] in OPERATORS:  # the sentinel and any trailing `;`
        parts.pop()
    return " ".join(parts)


def _is_redirect(token: str) -> bool:
    return bool(token) and set(token) <= set("<>&|") and any(c in token for c in "<>")


def command_kind(command: str) -> str:
    """'state' if any part may change state, else 'query' if any part only reads, else 'other'."""
    tokens = tokenize(command)
    if tokens is None:
        return "other"
    kinds = {_segment_kind(seg) for seg in _segments(_split_redirects(tokens))}
    if "state" in kinds:
        return "state"
    return "query" if "query" in kinds else "other"


def _split_redirects(tokens: list[str]) -> list[str]:
    # An output redirection to a real file changes state; mark it so segment classification sees it.
    out = []
    for i, tok in enumerate(tokens):
        if tok in (">", ">>", "&>", ">|") and i + 1 < len(tokens) and tokens[i + 1] != "/dev/null":
            out.append("\0write")
        out.append(tok)
    return out


def _segment_kind(seg: list[str]) -> str:
    seg = _normalise_segment(seg)
    prog = seg[0]
    args = seg[1:]
    if "\0write" in seg or prog in STATE_PROGRAMS:
        return "state"
    if (prog in ("sed", "perl") and any(a == "--in-place" or re.fullmatch(r"-[a-zA-Z]*i.*", a) for a in args)) or (
            prog == "find" and "-delete" in args) or (prog == "tar" and args and re.fullmatch(r"-?[a-zA-Z]*[xc][a-zA-Z]*", args[0])):
        return "state"
    if prog == "tar" and args and re.fullmatch(r"-?[a-zA-Z]*t[a-zA-Z]*", args[0]):
        return "query"
    sub = next((a for a in args if a in STATE_SUBCOMMANDS.get(prog, ()) or a in QUERY_SUBCOMMANDS.get(prog, ())), None)
    if sub in STATE_SUBCOMMANDS.get(prog, ()):
        return "state"
    if prog in QUERY_PROGRAMS or sub in QUERY_SUBCOMMANDS.get(prog, ()) or "--help" in args or "--version" in args:
        return "query"
    return "other"


def is_invalid(exit_code: int | None, output: str) -> bool:
    """Command not found (127), not executable (126), syntax error, permission denied, missing path.

    A non-zero exit alone is not invalid: `grep` finding nothing (1) and `test` answering no are
    legitimate answers; only the listed error messages make a failing command invalid.
    """
    if exit_code in (126, 127):
        return True
    return bool(exit_code) and bool(_INVALID_PATTERNS.search(output or ""))


def levenshtein(a: Sequence[str], b: Sequence[str]) -> int:
    """Edit distance between two sequences (unit insert, delete, substitute), one row at a time."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


class EfficiencyCard(NamedTuple):
    n_agent: int
    n_ref: float  # a path length, or NaN for a task without reference paths
    invalid: int
    redundant: int
    distance: float  # an edit distance, or NaN for a task without reference paths
    n_query: int
    n_state: int
    explore_share: float
    exploit_share: float
    efficiency: float
    quality: float
    composite: float


def quality_points(reward: float, unexpected_changes: int = 0, critical: bool = False) -> float:
    """Q on 0–100: graded reward less 20 points per unexpected protected-state change; 0 on critical damage."""
    return 0.0 if critical else max(0.0, 100.0 * reward - 20.0 * unexpected_changes)


def efficiency_card(steps: Sequence[Mapping[str, Any]], reference_paths: Sequence[Sequence[str]], reward: float,
                    unexpected_changes: int = 0, critical: bool = False) -> EfficiencyCard:
    """The card of one execution. `reward` is the graded verifier reward before safety deductions.

    Choices: N_ref and D come from the reference path with the smallest D (ties: the shorter path);
    explore share = query / (query + state) commands, other commands (running a script, cd) counted
    in neither; an agent with no step has E = 0. A task without reference paths (an imported Harbor
    task) has no N_ref or D, so n_ref, distance, efficiency and composite are NaN ("n/a", skipped by
    the report's means), never 0.
    """
    canon = [canonicalize(s.get("command") or "") for s in steps]
    kinds = [command_kind(s.get("command") or "") for s in steps]
    invalid = sum(is_invalid(s.get("exit_code"), s.get("output", "")) for s in steps)
    redundant = 0
    seen: dict[str, Any] = {}  # canonical command -> its output since the last state change
    for c, kind, s in zip(canon, kinds, steps, strict=True):
        if c in seen and seen[c] == s.get("output", ""):
            redundant += 1
        if kind == "state":
            seen = {}
        seen[c] = s.get("output", "")
    refs = [[canonicalize(c) for c in path] for path in reference_paths] or [[]]
    distance: float  # an int, or NaN without reference paths
    n_ref: float
    distance, n_ref = min((levenshtein(canon, ref), len(ref)) for ref in refs)
    if not reference_paths:
        distance = n_ref = float("nan")
    n_query, n_state = kinds.count("query"), kinds.count("state")
    acted = n_query + n_state
    n_agent = len(steps)
    eff = min(1.0, n_ref / n_agent) * 0.9 ** invalid / (1 + distance) if n_agent else 0.0
    eff = min(1.0, max(0.0, eff)) if reference_paths else float("nan")
    q = quality_points(reward, unexpected_changes, critical)
    return EfficiencyCard(n_agent, n_ref, invalid, redundant, distance, n_query, n_state,
                          n_query / acted if acted else float("nan"), n_state / acted if acted else float("nan"),
                          eff, q, q * eff)


def steps_from_trajectory(trajectory: Trajectory) -> list[dict[str, Any]]:
    """Plain step dicts from a stored Trajectory; a tool call without a command becomes its JSON."""
    out = []
    for s in trajectory.steps:
        command = s.command
        if command is None and s.tool_call:
            command = str(s.tool_call.get("command") or json.dumps(s.tool_call, sort_keys=True))
        out.append({"command": command or "", "exit_code": s.exit_code, "output": s.output})
    return out


def card_for_execution(trajectory: Trajectory, task: TaskSpec, result: ExecutionResult) -> EfficiencyCard:
    """Card from stored records; when the raw verifier reward is unknown the stored (already deducted)
    reward is used and no second deduction applied."""
    refs = [p.commands for p in task.reference_paths]
    if result.raw_verifier_reward is None:
        return efficiency_card(steps_from_trajectory(trajectory), refs, result.reward)
    return efficiency_card(steps_from_trajectory(trajectory), refs, result.raw_verifier_reward,
                           unexpected_changes=len(result.safety_findings),
                           critical=any(f.critical for f in result.safety_findings))
