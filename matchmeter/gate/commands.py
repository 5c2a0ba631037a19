"""Commands as the gate compares them: normalised to (tool, arguments), found in code spans and in prose.

A description that hands the agent a command lowers the task's difficulty whether the command is in
backticks ("`git log -S ...`") or in prose ("first list everything with ls -lR", "use git log -S on it,
then git revert"). A prose mention counts as a command when the tool word is followed by an argument:
a flag, a subcommand of a tool that has them (git, pip, ...), or (for tools that are not also English
verbs) a path or quoted argument. "find the commit" and "sort it" stay prose.

Prose plans ("first ..., then ..., finally ...") and numbered or bulleted lists of new actions are step
lists; a bullet list that restates the Original's requirements is not (its items' words are the Original's).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from matchmeter.gate.contract import CODE_FENCE, key_words
from matchmeter.gate.vocabulary import BACKTICK

HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n.*?\n\s*\1\b", re.S)
SHELL_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                            "in", "function", "return", "continue", "break", "select", "time", "local", "export"})
COMMON_TOOLS = frozenset({"ls", "find", "grep", "egrep", "sed", "awk", "sort", "uniq", "cut", "head", "tail", "cat", "tr",
                          "wc", "xargs", "git", "jq", "python", "python3", "pip", "chmod", "chown", "tar", "gzip",
                          "gunzip", "zcat", "du", "df", "stat", "touch", "mkdir", "cp", "mv", "rm", "ln", "printf",
                          "echo", "diff", "patch", "sha256sum", "md5sum", "crontab", "nohup", "kill", "pkill", "ps",
                          "curl", "wget", "sqlite3", "perl", "bash", "sh", "tee", "date", "readlink", "realpath",
                          "iconv", "column", "paste", "join", "comm", "base64", "xxd", "od", "file", "make", "setsid",
                          "systemctl", "npm", "node", "csvkit", "csvcut", "mlr", "datamash", "bc", "expr", "test"})
# tools that are also everyday English verbs: a command in prose only with a flag after them
PROSE_VERBS = frozenset({"find", "sort", "cut", "head", "tail", "cat", "touch", "test", "file", "join", "paste",
                         "date", "kill", "make", "patch", "diff", "echo", "stat", "column", "tee", "split", "set"})
SUBCOMMANDS = {"git": {"log", "revert", "reset", "rebase", "cherry-pick", "merge", "commit", "add", "status", "branch",
                       "checkout", "switch", "reflog", "bisect", "stash", "diff", "show", "fsck", "tag", "restore",
                       "blame", "grep", "rev-list", "update-ref", "ls-files", "apply", "am", "format-patch"},
               "pip": {"install"}, "npm": {"install", "run"}, "systemctl": {"start", "restart", "enable"},
               "python3": {"-m", "-c"}, "python": {"-m", "-c"}}
FLAG = re.compile(r"^--?[A-Za-z][\w-]*$")
ARGLIKE = re.compile(r"^(?:--?[A-Za-z][\w-]*|['\"].*|[\w.*<>-]*/[\w./*<>-]*|\*?\.[a-z]{1,5}|[\w-]+\.[a-z]{1,5}|\{\}|\+|-?\d+)$")
SEQUENCE = re.compile(r"\b(?:first(?:ly)?|then|next|after that|afterwards|finally|start by|begin by|once (?:that|done)|"
                      r"step \d|lastly|second(?:ly)?)\b", re.I)
NUMBERED = re.compile(r"(?m)^\s*(?:\d+[.)]|step \d+[:.])\s+(\S.*)$", re.I)
BULLET = re.compile(r"(?m)^\s*[-*•]\s+(\S.*)$")


@dataclass(frozen=True)
class Command:
    tool: str
    args: tuple[str, ...]

    @property
    def head(self) -> str:
        """Tool and first argument: the part that says what to do (`git log`, `find -type`, `ls -lR`)."""
        return f"{self.tool} {self.args[0]}" if self.args else self.tool

    def __str__(self) -> str:
        return " ".join([self.tool, *self.args])


def parse_shell(text: str) -> list[Command]:
    """Every simple command of a shell text: pipelines, lists, $(...) and heredoc bodies split apart."""
    out = []
    for segment in re.split(r"\|\||&&|[|;\n]|\$\(|`", HEREDOC.sub(" ", text)):
        try:
            words = shlex.split(segment, posix=True)
        except ValueError:
            words = segment.split()
        while words and ("=" in words[0] or words[0] in ("sudo", "nohup", "env", "exec", "then", "do", "(", "{")):
            words = words[1:]
        if words and re.fullmatch(r"[a-z][\w.+-]*", words[0]) and words[0] not in SHELL_KEYWORDS:
            out.append(Command(words[0], tuple(w for w in words[1:] if w not in (")", "}"))))
    return out


def code_spans(text: str) -> list[str]:
    spans = [m.group(1) for m in CODE_FENCE.finditer(text)]
    spans += BACKTICK.findall(CODE_FENCE.sub(" ", text))
    return spans + [line[2:] for line in text.splitlines() if line.startswith("$ ")]


def prose_commands(text: str, tools: frozenset[str]) -> list[Command]:
    """Commands mentioned in prose: a known tool word followed by an argument (see module docstring)."""
    words = re.sub(r"[`,;:()]", " ", CODE_FENCE.sub(" ", text)).split()
    out = []
    for i, word in enumerate(words):
        tool = word.rstrip(".")
        if tool not in tools or word.endswith("."):
            continue
        after = [w.rstrip(".") for w in words[i + 1:i + 5]]
        args = [w for w in after if ARGLIKE.match(w)]
        if after and after[0] in SUBCOMMANDS.get(tool, ()):
            out.append(Command(tool, (after[0], *[a for a in args if a != after[0]])))
        elif any(FLAG.match(w) for w in after[:3]):
            out.append(Command(tool, tuple(a for a in after[:4] if ARGLIKE.match(a))))
        elif tool not in PROSE_VERBS and after and ARGLIKE.match(after[0]) and not after[0].startswith("-"):
            out.append(Command(tool, (after[0],)))
    return out


def commands_in(text: str, tools: frozenset[str] = COMMON_TOOLS) -> list[Command]:
    """Commands in code spans (parsed as shell when they look like a command) and in prose."""
    found = []
    for span in code_spans(text):
        for cmd in parse_shell(span):
            if cmd.tool in tools and (cmd.args or cmd.tool not in PROSE_VERBS):
                found.append(cmd)
    return found + prose_commands(text, tools)


def _covered(item: str, original_words: set[str], original: str = "") -> bool:
    """The item restates the Original: half its key words are the Original's, or it has none and every code
    span of it is the Original's (`GET /health`: `{"ok": true}`)."""
    words = key_words(item)
    if not words:
        spans = BACKTICK.findall(item)
        return bool(spans) and all(span in original for span in spans)
    return sum(w in original_words for w in words) >= 0.5 * len(words)


def step_list_reasons(original: str, candidate: str) -> list[str]:
    """`adds_step_list` for new numbered steps, new action bullets, or a new prose plan (≥2 more sequence words
    in sentences that are not restatements of the Original)."""
    known = set(key_words(original))
    new_numbered = [i for i in NUMBERED.findall(candidate) if i not in NUMBERED.findall(original)]
    new_bullets = [i for i in BULLET.findall(candidate) if i not in BULLET.findall(original)]
    if [i for i in new_numbered if not _covered(i, known, original)]:
        return ["adds_step_list"]
    if len([i for i in new_bullets if not _covered(i, known, original)]) >= 2:
        return ["adds_step_list"]
    extra = _plan_words(candidate, known) - _plan_words(original, known)
    return ["adds_step_list:prose_plan"] if extra >= 2 else []


def _plan_words(text: str, known: set[str]) -> int:
    """Sequence words of the sentences that say something new: "First, the flag should be switched on.
    Second, ..." enumerates the Original's own requirements and is no plan."""
    count = 0
    for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
        hits = SEQUENCE.findall(sentence)
        rest = SEQUENCE.sub(" ", sentence)
        if hits and len(key_words(rest)) >= 2 and not _covered(rest, known):  # "First, compression." is a label
            count += len(hits)
    return count
