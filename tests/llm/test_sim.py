"""sim/<persona> models: deterministic plans from the reference path, seeded imperfections, SIMULATED marks."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from matchmeter.llm.sim import (
    PERSONAS,
    build_plan,
    escape_for_double_quotes,
    explicitness,
    next_reply,
    sim_api_base,
)
from matchmeter.runner.transport import DISCLOSED_NOTE
from matchmeter.schema import TaskSpec

REF = ["mkdir -p out", "cp data/input.txt out/a.txt", "wc -l < data/input.txt > out/count.txt",
       "echo \"done $USER\" > out/log.txt"]
TERSE = "Copy the input."
EXPLICIT = ("1. Create the directory `out`.\n2. Copy `data/input.txt` to `out/a.txt`.\n"
            "3. Write the line count of `data/input.txt` to `out/count.txt`.\n4. Log `done` to `out/log.txt`.\n"
            + "Keep every other file unchanged and do not touch anything outside the working directory. " * 8)


def _task(commands=REF) -> TaskSpec:
    return TaskSpec(id="multi-step", source_family="terminal", category="file-ops", difficulty="easy",
                    instruction=TERSE, subgoals=[{"name": "a", "weight": 1}],
                    reference_paths=[{"commands": commands}])


def _conversation(description: str, assistant_turns: int, system: str = "rules") -> list[dict]:
    msgs = [{"role": "system", "content": system},
            {"role": "user", "content": f"Complete this task.\n\n<description>\n{description}\n</description>\n"}]
    for i in range(assistant_turns):
        msgs += [{"role": "assistant", "content": f"turn {i}"}, {"role": "user", "content": "<returncode>0"}]
    return msgs


def test_sim_api_base_puts_task_and_seed_in_the_path():
    assert sim_api_base("http://127.0.0.1:8123/", "sort-inbox", 2) == "http://127.0.0.1:8123/sim/sort-inbox/2/v1"


def test_expert_follows_the_reference_path_then_submits():
    plan = build_plan(_task(), 0, "expert", TERSE)
    assert [a.command for a in plan] == [*REF, "submit"]


def test_plans_are_deterministic_and_vary_with_seed():
    task = _task()
    for persona in PERSONAS:
        assert build_plan(task, 3, persona, TERSE) == build_plan(task, 3, persona, TERSE)
    assert len({tuple(build_plan(task, s, "explorer", TERSE)) for s in range(8)}) > 3
    assert len({tuple(build_plan(task, s, "sloppy", TERSE)) for s in range(8)}) > 3


def test_sloppy_makes_mistakes_then_corrects_and_quitter_gives_up_early():
    task = _task()
    sloppy = [build_plan(task, s, "sloppy", TERSE) for s in range(20)]
    mistakes = [a for plan in sloppy for a in plan if a.kind == "command" and a.command not in REF]
    assert mistakes
    assert all("correcting" in plan[plan.index(m) + 1].note for plan in sloppy for m in plan
                            if m in mistakes)
    assert any(a.kind == "noformat" for plan in sloppy for a in plan)
    for s in range(20):
        quitter = build_plan(task, s, "quitter", TERSE)
        assert quitter[-1].kind == "submit"
        assert "give up" in quitter[-1].note
        assert len([a for a in quitter if a.command in REF]) <= 1


def test_clearer_description_lowers_the_skip_rate():
    assert explicitness(TERSE) < 0.05 < 0.9 < explicitness(EXPLICIT)
    task = _task()

    def skips(persona: str, description: str) -> int:
        n = 0
        for s in range(300):
            done = {a.command for a in build_plan(task, s, persona, description)}
            n += any(c not in done for c in REF)
        return n

    assert skips("sloppy", TERSE) > 2 * skips("sloppy", EXPLICIT)
    assert skips("explorer", TERSE) > skips("explorer", EXPLICIT)
    assert skips("expert", TERSE) == 0


def test_disclosed_contract_makes_careful_personas_escape_for_double_quotes():
    assert escape_for_double_quotes('echo "done $USER"') == 'echo \\"done \\$USER\\"'
    text, _ = next_reply(_task([REF[3]]), 0, "expert", _conversation(TERSE, 0, system=DISCLOSED_NOTE))
    assert '```bash\necho \\"done \\$USER\\" > out/log.txt\n```' in text
    text, _ = next_reply(_task([REF[3]]), 0, "expert", _conversation(TERSE, 0))
    assert '```bash\necho "done $USER" > out/log.txt\n```' in text


def test_every_reply_says_simulated_and_verbosity_varies():
    task = _task()
    lengths = set()
    for persona in PERSONAS:
        for turn in range(4):
            text, reasoning = next_reply(task, 1, persona, _conversation(TERSE, turn))
            assert text.startswith(f"THOUGHT (SIMULATED sim/{persona}):")
            assert reasoning >= 0
            lengths.add(len(text))
    assert len(lengths) > 8
    text, _ = next_reply(task, 1, "expert", _conversation(TERSE, 50))
    assert "```bash\nsubmit\n```" in text


def test_stub_serves_sim_models_on_the_task_path(make_stub):
    task = _task()
    stub = make_stub(tasks={task.id: task})
    body = json.dumps({"model": "sim/expert", "messages": _conversation(TERSE, 1)}).encode()
    req = urllib.request.Request(f"{sim_api_base(stub.url, task.id, 0)}/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        data, header = json.loads(resp.read()), resp.headers["X-Matchmeter-Simulated"]
    assert header == "1"
    assert data["system_fingerprint"] == "matchmeter-stub-simulated"
    assert data["model"] == "sim/expert"
    assert f"```bash\n{REF[1]}\n```" in data["choices"][0]["message"]["content"]
    bad = urllib.request.Request(f"{stub.api_base}/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(bad, timeout=10)
    assert err.value.code == 400
    assert b"sim_api_base" in err.value.read()


def test_sloppy_careless_quoting_targets_effectful_commands_and_fades_with_clarity():
    from matchmeter.llm.sim import careless_quoting, is_look

    ref = ["head -n 3 data.csv", "awk -F, '{s += $2} END {print s}' data.csv > total.txt", "cat total.txt"]
    task = _task(ref)
    assert [is_look(c) for c in ref] == [True, False, True]
    assert careless_quoting(ref[1]) == 'awk -F, "{s += $2} END {print s}" data.csv > total.txt'

    def careless(description: str) -> int:
        return sum(careless_quoting(ref[1]) in {a.command for a in build_plan(task, s, "sloppy", description)}
                   for s in range(300))

    assert careless(TERSE) > 3 * careless(EXPLICIT)
    for s in range(300):  # a skip never hits a mere look when an effectful command exists
        done = {a.command for a in build_plan(task, s, "explorer", TERSE)}
        assert ref[0] in done
        assert ref[2] in done


# ------------------------------------------------------------------ mini-swe-agent dialect

MINI_SYSTEM = "Reply with one action:\n```mswea_bash_command\nyour_command_here\n```"
MINI_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _mini_task_message(description: str) -> dict:
    return {"role": "user", "content": f"Please solve this issue: {description}\n\nYou can execute bash commands "
                                       "and edit files to implement the necessary changes.\n\n1. Analyze\n2. Edit\n"}


def _mini_drive(task: TaskSpec, seed: int, persona: str, description: str, limit: int = 40) -> tuple[list[str], int]:
    """Talk to the persona the way mini-swe-agent does: a reply with one block gets an observation; a reply
    without one is dropped from the conversation and answered by a format error. Returns the commands."""
    import re

    msgs = [{"role": "system", "content": MINI_SYSTEM}, _mini_task_message(description)]
    commands: list[str] = []
    for calls in range(1, limit + 1):
        text, _ = next_reply(task, seed, persona, msgs)
        found = re.findall(r"```mswea_bash_command\s*\n(.*?)\n```", text, re.S)
        if len(found) != 1:
            msgs.append({"role": "user", "content": "Format error:\n\n<error>Expected exactly 1 action</error>"})
            continue
        commands.append(found[0])
        if found[0] == MINI_SUBMIT:
            return commands, calls
        msgs += [{"role": "assistant", "content": text}, {"role": "user", "content": "<returncode>0</returncode>"}]
    raise AssertionError(f"no submit within {limit} calls: {commands}")


def test_mini_dialect_follows_the_same_plan_in_its_own_format():
    from matchmeter.llm.sim import description_of, dialect_of

    mini = [{"role": "system", "content": MINI_SYSTEM}, _mini_task_message(EXPLICIT)]
    assert (dialect_of(mini), dialect_of(_conversation(EXPLICIT, 0))) == ("mini", "bash")
    assert description_of(mini, "mini") == description_of(_conversation(EXPLICIT, 0)) == EXPLICIT.strip()
    text, _ = next_reply(_task(), 0, "expert", mini)
    assert text.startswith("THOUGHT (SIMULATED sim/expert):")
    assert f"```mswea_bash_command\n{REF[0]}\n```" in text
    assert "```bash" not in text
    commands, calls = _mini_drive(_task(), 0, "expert", TERSE)
    assert commands == [*REF, MINI_SUBMIT]
    assert calls == len(REF) + 1


def test_mini_dialect_counts_dropped_format_errors_as_turns():
    task = _task()
    seen_noformat = 0
    for s in range(20):
        plan = build_plan(task, s, "sloppy", TERSE)
        commands, calls = _mini_drive(task, s, "sloppy", TERSE)
        # one request per plan item, format errors included; the blocks come out in plan order
        assert calls == len(plan)
        assert commands == [a.command for a in plan if a.kind == "command"] + [MINI_SUBMIT]
        seen_noformat += any(a.kind == "noformat" for a in plan)
    assert seen_noformat > 0
