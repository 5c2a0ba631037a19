"""The sim personas' aider dialect: the plan in one reply of ```bash blocks that aider runs, read out of a request
aider 0.86.2 really sent (tests/data/cli_requests/aider-0.86.2.json: `aider --edit-format diff --message PROMPT`,
captured at the stub, long system and reminder texts trimmed)."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from matchmeter.llm.sim import PERSONAS, build_plan, description_of, dialect_of, next_turn, turns_taken
from matchmeter.llm.sim_aider import aider_line
from matchmeter.schema import TaskSpec
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks

DATA = Path(__file__).parent.parent / "data" / "cli_requests"
PROMPT = "Remove files older than 7 days from ./tmp.\nKeep the rest."  # what the capture gave aider
REF = ["mkdir -p out", "cp data/input.txt 'out/a b.txt'", "printf '%s\\n' 'x y' > out/n.txt\ncat out/n.txt"]
BLOCK = re.compile(r"^```bash\n(.*?)\n```$", re.M | re.S)  # what aider's editblock parser takes as a shell block


def _task() -> TaskSpec:
    return TaskSpec(id="multi-step", source_family="terminal", category="file-ops", difficulty="easy",
                    instruction=PROMPT, subgoals=[{"name": "a", "weight": 1}], reference_paths=[{"commands": REF}])


def _messages() -> list[dict]:
    return json.loads((DATA / "aider-0.86.2.json").read_text())["messages"]


def test_the_prompt_is_found_in_aider_s_real_request_without_its_rules_and_examples():
    messages = _messages()
    assert dialect_of(messages, None) == "aider"
    assert description_of(messages, "aider") == PROMPT
    assert turns_taken(messages, "aider") == 0  # aider's own example replies are not the persona's turns
    assert dialect_of([{"role": "system", "content": "You are a helpful assistant."}], None) == "bash"


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_first_reply_is_the_whole_plan_in_shell_blocks_and_a_later_call_runs_nothing(persona, seed):
    task, messages = _task(), _messages()
    plan = build_plan(task, seed, persona, PROMPT)
    turn = next_turn(task, seed, persona, messages)
    assert turn.tool_calls is None
    assert turn.text.startswith(f"THOUGHT (SIMULATED sim/{persona})")
    assert BLOCK.findall(turn.text) == [aider_line(a.command) for a in plan if a.kind == "command"]
    assert turn.text.count("THOUGHT (SIMULATED") == len(plan)  # noformat items and the submit: prose only
    # aider reflects (here: the shell output it added, then its next user message): no command again
    later = copy.deepcopy(messages)
    later[-1]["content"] = PROMPT  # aider keeps the message without its rules in the history
    later += [{"role": "assistant", "content": turn.text}, {"role": "user", "content": "Output from ls\nx\n"},
              {"role": "assistant", "content": "Ok"}, {"role": "user", "content": "the edit failed\n\n# *SEARCH/"
                                                       "REPLACE block* Rules:\n..."}]
    assert (description_of(later, "aider"), turns_taken(later, "aider")) == (PROMPT, 1)
    again = next_turn(task, seed, persona, later)
    assert BLOCK.findall(again.text) == []
    assert again.text.startswith(f"THOUGHT (SIMULATED sim/{persona})")


def test_every_reference_command_of_the_suite_becomes_one_line():
    commands = [c for t in load_tasks([builtin_suite_dir()]) for p in t.reference_paths for c in p.commands]
    assert any("\n" in c for c in commands)  # heredocs exist (commit-special-message)
    assert all("\n" not in aider_line(c) for c in commands)
    assert aider_line("find build -name '*.tmp' -mtime +7 | head") == "find build -name '*.tmp' -mtime +7 | head"


@pytest.mark.skipif(shutil.which("dash") is None, reason="needs dash, the /bin/sh aider runs blocks with in Debian")
@pytest.mark.parametrize("command", [
    "git_msg() { cat; }; git_msg <<'EOF'\nFix \"quoted\" $PATH handling & `backticks`\n\nDon't expand $HOME or \\n; 100% literal!\nEOF",
    "echo 'a\\nb'",
    "[[ -n x ]] && echo yes; printf '%s|' {a,b}",
    "cat <<< \"$(printf '%s' \"it's\")\"",
    "printf 'one\\n'\nprintf '%s\\n' \"two  spaces\"",
])
def test_dash_runs_the_aider_line_as_bash_runs_the_command(tmp_path, command):
    bash = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    dash = subprocess.run(["dash", "-c", aider_line(command)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=30)
    assert (dash.stdout, dash.stderr, dash.returncode) == (bash.stdout, bash.stderr, bash.returncode)
    assert bash.returncode == 0
    assert bash.stdout
