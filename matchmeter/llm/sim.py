"""Simulated models `sim/<persona>`: offline agents that act on a task's reference path, imperfectly.

The stub server answers `sim/*` requests sent to `sim_api_base(stub_url, task_id, seed)`; the URL
tells it which task and seed. A reply is a pure function of (task, seed, persona, conversation so
far): the persona builds a plan from the reference path with a RNG seeded by (persona, task, seed,
sha256 of the description), and turn n (= assistant messages so far) renders plan item n.

- expert:   the reference commands in order, then submit.
- explorer: looks around (ls, head, grep, find) before commands, then follows the path.
- sloppy:   a wrong command before some steps (typo'd tool → 127, missing path, syntax error),
            then the right one; sometimes a reply without a code block; may skip one command and
            may write one command with careless quoting ('…' turned into "…", left uncorrected).
- quitter:  a few looks, maybe the first command, then gives up (submits early).

Description hook: `explicitness(description) -> [0, 1]` (longer text, inline `code`, numbered steps
raise it). Sloppy and explorer skip a reference command with probability `base × (1 − explicitness)`
(an effectful one when there is one: skipping a mere look would change nothing), and sloppy's careless
quoting has probability `0.5 × (1 − explicitness)`, so a clearer rewrite measurably helps them. Pass another function as `explicitness_fn` to change it.
Under the disclosed contract (the system prompt carries transport.DISCLOSED_NOTE) expert and explorer
escape their commands for the extra double-quote layer; sloppy and quitter do not.
Every reply starts with `THOUGHT (SIMULATED sim/<persona>)`.

Dialects: the persona speaks the reply format of the agent that calls it, told apart by the request.
- bash (default): the built-in bash agent — ```bash blocks, `submit`; turn n = assistant messages so far.
- mini: mini-swe-agent's text-based format (its system prompt names ```mswea_bash_command) — that fence,
  `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` to submit, the description read out of its instance
  template. mini drops the assistant message of a format error from the conversation, so turn n counts
  the user messages after the task (each turn is answered by exactly one observation or format error).
- tools: an agent CLI that offers the model a shell-capable function tool (SHELL_TOOLS: Claude Code's
  `Bash`, Codex's `exec_command`/`shell`, Qwen Code's and Gemini CLI's `run_shell_command`). Plan item n
  is one call of that tool (its THOUGHT as the message text), `submit` a text-only reply (which ends a
  CLI's turn), sloppy's reply without a code block a call that lacks the command argument (the CLI answers
  with its own validation error). The description is the prompt the adapter gave: the first user text
  once the CLI's own additions are removed (CLI_ADDITIONS: Claude Code's `<system-reminder>` parts,
  Codex's environment context and AGENTS.md instructions); turn n = assistant turns after it, where
  assistant messages with nothing between them are one turn (a text item and a function call item of
  one Responses reply arrive as two messages).
- aider: aider's editblock coder (its system prompt names *SEARCH/REPLACE block*s). aider answers one
  message and runs the ```bash blocks of the reply, so turn 0 is the whole plan, one block per command
  (each as one line that aider's /bin/sh runs as bash would: llm/sim_aider.py), noformat items as prose;
  any later call (aider reflecting) is answered without a block. The description is the user message
  before the first persona reply, without the rules aider appends.
A multi-step task's step (its agent phase is given the step's instruction) is planned from that step's
solve.sh (`reference_commands`). The plan itself does not depend on the dialect: the same persona, task, seed and description act alike
(descriptions are compared in a normal form, `normal_description`: CLIs add a newline to the prompt).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from matchmeter.llm.sim_aider import aider_description, aider_line, aider_turns, is_aider
from matchmeter.llm.stub_replies import StubReply
from matchmeter.llm.tokens import count_message_tokens
from matchmeter.schema import TaskSpec, sha256_text
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks

PERSONAS = ("expert", "explorer", "sloppy", "quitter")
# Part of every sim cache key (see LMClient): bump it whenever persona behaviour changes, so cached
# replies of an older behaviour are never served as the new one.
SIM_BEHAVIOUR_VERSION = "5"  # 5: the aider dialect
SKIP_BASE = {"expert": 0.0, "explorer": 0.25, "sloppy": 0.6, "quitter": 0.0}
CARELESS_QUOTING_BASE = 0.5
LOOK_TOOLS = frozenset({"cat", "head", "tail", "ls", "find", "wc", "grep", "jq", "zcat", "cut", "sort", "stat",
                        "file", "pwd", "tree", "diff", "cmp", "sleep"})
VERBOSITY = {"expert": (1, 2), "explorer": (2, 5), "sloppy": (1, 4), "quitter": (1, 3)}
REASONING = {"expert": (0, 16), "explorer": (8, 64), "sloppy": (0, 40), "quitter": (0, 24)}
SUBMIT = "submit"
FILLER = (
    "Let me keep the change minimal and check the result afterwards.",
    "The description names the expected output, so I will match it exactly.",
    "I should be careful not to touch files the task does not mention.",
    "This command is the next step of my plan.",
    "I will verify the state of the workspace before moving on.",
    "Quoting matters here, so I will write the arguments carefully.",
    "If this fails I will read the error message and adjust.",
    "The previous output looks consistent with what I expected.",
)
PROMPT_CACHE_MIN_TOKENS, PROMPT_CACHE_BLOCK = 1024, 128  # OpenAI-style prefix caching granularity
# ---- dialects (see the module docstring): fence name and submit command per calling agent
MINI_MARK = "mswea_bash_command"
FENCES = {"bash": "bash", "mini": MINI_MARK, "aider": "bash"}
SUBMIT_COMMANDS = {"bash": SUBMIT, "mini": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}
# mini_textbased.yaml's instance template: "Please solve this issue: {{task}}\n\nYou can execute bash commands…"
MINI_TASK_RE = re.compile(r"Please solve this issue: (.*)\n\nYou can execute bash commands and edit files", re.S)
# The tools dialect: each CLI's shell tool and the argument that carries the command (string, or an argv
# array when the tool's schema says so: the command then goes as ["bash", "-lc", command]).
SHELL_TOOLS = {"Bash": "command", "exec_command": "cmd", "shell": "command", "run_shell_command": "command"}
# What CLIs add to the user's prompt (seen in their real requests), removed before the description is read.
CLI_ADDITIONS = re.compile(
    r"<system-reminder>.*?</system-reminder>"  # Claude Code
    r"|<environment_context>.*?</environment_context>"  # Codex
    r"|# AGENTS\.md instructions for [^\n]*\s*<INSTRUCTIONS>.*?</INSTRUCTIONS>"  # Codex, a repo's AGENTS.md
    r"|<user_instructions>.*?</user_instructions>", re.S)  # older Codex versions


class ShellTool(NamedTuple):
    name: str
    argument: str
    argv: bool  # the schema wants the command as an argv array


def sim_api_base(stub_url: str, task_id: str, seed: int) -> str:
    """The api_base a sim model must use: `http://127.0.0.1:PORT/sim/<task_id>/<seed>/v1`."""
    return f"{stub_url.rstrip('/')}/sim/{task_id}/{seed}/v1"


class Action(NamedTuple):
    kind: str  # "command" | "submit" | "noformat"
    command: str
    note: str


def explicitness(description: str) -> float:
    """0 (terse) .. 1 (long, with inline code and numbered steps). The description-sensitivity hook."""
    words = len(description.split())
    markers = description.count("`") // 2 + len(re.findall(r"(?m)^\s*(\d+[.)]|[-*])\s", description))
    return round(0.6 * min(1.0, words / 150) + 0.4 * min(1.0, markers / 4), 4)


def normal_description(description: str) -> str:
    """The description without surrounding whitespace, ending in one newline. CLIs add or drop a newline
    at the end of the prompt they are given, so a plan cannot depend on it; the newline is kept because
    instruction files end in one, so the bash and mini dialects' plans of file descriptions stay as they were."""
    return description.strip() + "\n"


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def _path_tokens(commands: Sequence[str]) -> list[str]:
    found: list[str] = []
    for command in commands:
        try:
            tokens = shlex.split(command)
        except ValueError:
            continue
        for tok in tokens:
            looks_like_path = re.fullmatch(r"[\w.\-/]+", tok) and ("." in tok[1:] or "/" in tok)
            if looks_like_path and not tok.startswith(("-", "/dev")) and tok not in found:
                found.append(tok)
    return found


def _looks(commands: Sequence[str], rng: random.Random, n: int) -> list[Action]:
    paths = _path_tokens(commands)
    pool = ["ls -la", "pwd && ls", "find . -maxdepth 2 -type f | head -n 40"]
    for p in paths[:4]:
        pool += [f"head -n 20 {shlex.quote(p)}", f"cat {shlex.quote(p)} | head -n 50", f"ls -la {shlex.quote(p)}"]
    if paths:
        pool.append(f"grep -rn . {shlex.quote(paths[0])} | head -n 10")
    return [Action("command", rng.choice(pool), "Let me look around first.") for _ in range(n)]


def _mistake(command: str, rng: random.Random) -> str:
    """A plausible wrong version of a command: typo'd tool (127), missing path, or a syntax error."""
    head, _, rest = command.partition(" ")
    kind = rng.choice(("typo", "missing", "syntax"))
    if kind == "typo" and len(head) >= 2:
        return f"{head[1]}{head[0]}{head[2:]}x {rest}".rstrip()
    if kind == "missing":
        return "cat ./no_such_file_mm.txt"
    return f"{command} |"


def is_look(command: str) -> bool:
    """A read-only command (a look tool, no output redirection): skipping it changes no state."""
    head = command.split(None, 1)[0] if command.strip() else ""
    if head == "git":
        return re.search(r"\b(log|status|show|diff)\b", command) is not None and ">" not in command
    return head in LOOK_TOOLS and re.search(r"(?<![0-9&])>(?!&)", command) is None


def careless_quoting(command: str) -> str:
    """Sloppy quoting: single quotes become double quotes, so $, ` and \\ inside are now expanded."""
    return command.replace("'", '"')


def escape_for_double_quotes(command: str) -> str:
    """What a careful agent does under the disclosed contract: survive `bash -c "R"`."""
    return re.sub(r'([\\"$`])', r"\\\1", command)


def reference_commands(task: TaskSpec, seed: int, description: str) -> list[str]:
    """The commands a persona's plan follows: for the step of a multi-step task whose instruction is the
    description (each step's agent phase is given its own), that step's steps/<name>/solution/solve.sh as
    one command (its lines without the shebang, comments and blank lines; a script that reads files beside
    it in solution/ does not run this way); else the task's reference path for the seed.

    Raises:
        LookupError: nothing to follow (a Harbor task without reference paths, a step without solve.sh).
    """
    wanted = normal_description(description)
    for step in task.steps:
        if normal_description(step.instruction) == wanted:
            script = Path(task.path) / "steps" / step.name / "solution" / "solve.sh"
            lines = [line for line in script.read_text().splitlines() if line.strip()
                     and not line.lstrip().startswith("#")] if script.is_file() else []
            if not lines:
                raise LookupError(f"sim: step {step.name!r} of task {task.id!r} has no commands in "
                                  f"steps/{step.name}/solution/solve.sh to act on")
            return ["\n".join(lines)]
    if not task.reference_paths:
        raise LookupError(f"sim: task {task.id!r} has no reference path to act on (and the description is none "
                          "of its steps' instructions)")
    return list(task.reference_paths[seed % len(task.reference_paths)].commands)


def build_plan(task: TaskSpec, seed: int, persona: str, description: str, disclosed: bool = False,
               explicitness_fn: Callable[[str], float] = explicitness) -> list[Action]:
    """The persona's whole plan for one (task, seed, description); deterministic. The description counts in
    its normal form (`normal_description`), so every dialect plays one plan."""
    description = normal_description(description)
    if persona not in PERSONAS:
        raise LookupError(f"unknown sim persona {persona!r}; choose one of {', '.join(PERSONAS)}")
    rng = _rng(persona, task.id, seed, sha256_text(description))
    ref = reference_commands(task, seed, description)
    if disclosed and persona in ("expert", "explorer"):
        ref = [escape_for_double_quotes(c) for c in ref]
    vagueness = 1.0 - explicitness_fn(description)
    effectful = [i for i, c in enumerate(ref) if not is_look(c)] or list(range(len(ref)))
    skipped = rng.choice(effectful) if len(ref) > 1 and rng.random() < SKIP_BASE[persona] * vagueness else None
    quotable = [i for i, c in enumerate(ref) if "'" in c and i != skipped]
    careless = (rng.choice(quotable) if persona == "sloppy" and quotable
                and rng.random() < CARELESS_QUOTING_BASE * vagueness else None)
    plan: list[Action] = []
    if persona == "quitter":
        plan += _looks(ref, rng, rng.randint(1, 3))
        if rng.random() < 0.5:
            plan.append(Action("command", ref[0], "Maybe this is the first step."))
        plan.append(Action("submit", SUBMIT, "I cannot work out how to finish this task, so I give up."))
        return plan
    for i, command in enumerate(ref):
        if persona == "explorer" and rng.random() < 0.6:
            plan += _looks(ref, rng, rng.randint(1, 2))
        if persona == "sloppy" and rng.random() < 0.1:
            plan.append(Action("noformat", command, f"I think the next thing to run is {command}."))
        if persona == "sloppy" and rng.random() < 0.4:
            plan.append(Action("command", _mistake(command, rng), "Running the next step."))
            plan.append(Action("command", command, "That failed; correcting the command."))
            continue
        if i == skipped:
            continue
        if i == careless:
            plan.append(Action("command", careless_quoting(command), "Next step."))
            continue
        plan.append(Action("command", command, "Next step."))
    plan.append(Action("submit", SUBMIT, "The task is done; submitting."))
    return plan


def render(action: Action, persona: str, plan_seed: str, turn: int, dialect: str = "bash") -> tuple[str, int]:
    """Reply text for one plan item (varied verbosity) in the dialect's format, and its reasoning-token count."""
    rng = _rng(plan_seed, turn)
    lo, hi = VERBOSITY[persona]
    filler = " ".join(rng.sample(FILLER, rng.randint(lo, hi)))
    head = f"THOUGHT (SIMULATED sim/{persona}): {action.note} {filler}"
    reasoning = rng.randint(*REASONING[persona])
    if action.kind == "noformat":
        return head, reasoning
    command = SUBMIT_COMMANDS[dialect] if action.kind == "submit" else action.command
    return f"{head}\n\n```{FENCES[dialect]}\n{command}\n```", reasoning


def shell_tool(tools: Any) -> ShellTool | None:
    """The first shell-capable function tool among OpenAI-form `tools` (SHELL_TOOLS), None when there is none."""
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        name = str(function.get("name")) if isinstance(function, dict) else ""
        if isinstance(function, dict) and name in SHELL_TOOLS:
            schema = (function.get("parameters") or {}).get("properties") or {}
            argument = SHELL_TOOLS[name]
            return ShellTool(name, argument, (schema.get(argument) or {}).get("type") == "array")
    return None


def dialect_of(messages: Sequence[dict[str, Any]], tools: Any = None) -> str:
    """"tools" when a shell tool is offered, "aider" for aider's editblock coder, "mini" when the system
    prompt asks for ```mswea_bash_command blocks, else "bash"."""
    if shell_tool(tools) is not None:
        return "tools"
    if is_aider(messages):
        return "aider"
    system = " ".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    return "mini" if MINI_MARK in system else "bash"


def _prompt_texts(content: Any) -> list[str]:
    """The user's own text pieces of one message (content parts kept apart), with CLI additions removed."""
    parts = content if isinstance(content, list) else [content]
    texts = [p if isinstance(p, str) else str(p.get("text") or "") if isinstance(p, dict) else "" for p in parts]
    return [piece.strip() for text in texts for piece in CLI_ADDITIONS.split(text) if piece.strip()]


def prompt_position(messages: Sequence[dict[str, Any]]) -> tuple[int, str]:
    """(index, text) of the prompt an adapter gave a CLI: the first user text before any assistant message
    that is not one of the CLI's own additions; (-1, "") when there is none."""
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            break
        if m.get("role") == "user":
            texts = _prompt_texts(m.get("content"))
            if texts:
                return i, texts[0]
    return -1, ""


def turns_taken(messages: Sequence[dict[str, Any]], dialect: str) -> int:
    """Model turns already answered: assistant messages (bash); user messages after the task (mini); runs
    of consecutive assistant messages after the prompt (tools); the persona's own replies (aider)."""
    if dialect == "aider":
        return aider_turns(messages)
    if dialect == "mini":
        return max(sum(1 for m in messages if m.get("role") == "user") - 1, 0)
    if dialect == "tools":
        start = prompt_position(messages)[0]
        roles = [str(m.get("role")) for m in messages[start + 1:]] if start >= 0 else []
        return sum(1 for i, role in enumerate(roles) if role == "assistant" and (i == 0 or roles[i - 1] != "assistant"))
    return sum(1 for m in messages if m.get("role") == "assistant")


def description_of(messages: Sequence[dict[str, Any]], dialect: str = "bash") -> str:
    """The task description, stripped: inside <description> tags (bash), mini's instance template, the
    adapter's prompt (tools), else the first user message. Only the description feeds explicitness and
    the plan seed, never the agent's own prompt."""
    if dialect == "tools":
        return prompt_position(messages)[1]
    if dialect == "aider":
        return aider_description(messages)
    for m in messages:
        content = m.get("content") or ""
        if m.get("role") == "user" and isinstance(content, str):
            if dialect == "mini":
                found = MINI_TASK_RE.search(content)
            else:
                found = re.search(r"<description>\n?(.*?)\n?</description>", content, re.S)
            return (found.group(1) if found else content).strip()
    return ""


class SimTurn(NamedTuple):
    text: str
    reasoning_tokens: int
    tool_calls: list[dict[str, Any]] | None  # OpenAI-shaped (the tools dialect)


def tool_call(action: Action, tool: ShellTool, call_id: str) -> dict[str, Any]:
    """One OpenAI tool call of the shell tool running the action's command; a "noformat" action is a call
    without the command argument (the CLI's validation error takes the place of a format error)."""
    command: Any = ["bash", "-lc", action.command] if tool.argv else action.command
    arguments = {} if action.kind == "noformat" else {tool.argument: command}
    return {"id": call_id, "type": "function", "function": {"name": tool.name, "arguments": json.dumps(arguments)}}


def next_turn(task: TaskSpec, seed: int, persona: str, messages: Sequence[dict[str, Any]],
              tools: Any = None) -> SimTurn:
    """The persona's next reply (text, reasoning tokens, tool calls), given the conversation so far."""
    dialect = dialect_of(messages, tools)
    description = description_of(messages, dialect)
    system = " ".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    plan = build_plan(task, seed, persona, description, disclosed="double-quoted shell string" in system)
    turn = turns_taken(messages, dialect)
    action = plan[turn] if turn < len(plan) else Action("submit", SUBMIT, "Nothing left to do; submitting.")
    plan_seed = f"{persona}|{task.id}|{seed}|{sha256_text(normal_description(description))}"
    tool = shell_tool(tools)
    if dialect == "aider":
        done = Action("submit", SUBMIT, "Nothing left to do; the commands above were the plan.")
        return aider_reply(plan if turn == 0 else [done], persona, plan_seed)
    if tool is None:
        return SimTurn(*render(action, persona, plan_seed, turn, dialect), None)
    head, reasoning = render(action._replace(kind="noformat"), persona, plan_seed, turn)  # the THOUGHT alone
    if action.kind == "submit":
        return SimTurn(head, reasoning, None)
    return SimTurn(head, reasoning, [tool_call(action, tool, f"call_sim{sha256_text(plan_seed)[:8]}_{turn}")])


def aider_reply(plan: Sequence[Action], persona: str, plan_seed: str) -> SimTurn:
    """One aider reply carrying the plan's items in order: a ```bash block of one line per command, the
    THOUGHT alone for a noformat item or the submit (which runs nothing: aider ends after this reply)."""
    parts, reasoning = [], 0
    for i, action in enumerate(plan):
        if action.kind == "command":
            action = action._replace(command=aider_line(action.command))
        else:
            action = action._replace(kind="noformat")
        text, tokens = render(action, persona, plan_seed, i, "aider")
        parts.append(text)
        reasoning += tokens
    return SimTurn("\n\n".join(parts), reasoning, None)


def next_reply(task: TaskSpec, seed: int, persona: str, messages: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The persona's next reply text and reasoning tokens (the text dialects)."""
    turn = next_turn(task, seed, persona, messages)
    return turn.text, turn.reasoning_tokens


class SimResponder:
    """Answers sim requests for the stub: loads tasks by id from `tasks` or the suite directories."""

    def __init__(self, suite_dirs: Sequence[Path] = (), tasks: dict[str, TaskSpec] | None = None) -> None:
        self.suite_dirs = list(suite_dirs)
        self.tasks = dict(tasks or {})
        self._loaded = False

    def task(self, task_id: str) -> TaskSpec:
        if task_id not in self.tasks and not self._loaded:
            for spec in load_tasks(self.suite_dirs or [builtin_suite_dir()]):
                self.tasks.setdefault(spec.id, spec)
            self._loaded = True
        if task_id not in self.tasks:
            raise LookupError(f"sim: unknown task {task_id!r} (not in the stub's suites)")
        return self.tasks[task_id]

    def reply(self, task_id: str, seed: int, request: dict[str, Any]) -> StubReply:
        model = str(request.get("model", ""))
        persona = model.removeprefix("openai/").removeprefix("sim/")
        if persona not in PERSONAS:
            raise LookupError(f"unknown sim model {model!r}; choose one of {', '.join('sim/' + p for p in PERSONAS)}")
        messages = list(request.get("messages") or [])
        turn = next_turn(self.task(task_id), seed, persona, messages, request.get("tools"))
        prefix = sum(count_message_tokens(m) for m in messages[:-1])
        cached = (prefix // PROMPT_CACHE_BLOCK) * PROMPT_CACHE_BLOCK if prefix >= PROMPT_CACHE_MIN_TOKENS else 0
        return StubReply(text=turn.text, cached_tokens=cached, reasoning_tokens=turn.reasoning_tokens, simulated=True,
                         tool_calls=turn.tool_calls)
