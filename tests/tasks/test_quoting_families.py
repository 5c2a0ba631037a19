"""The 56 generated quoting tasks (14 operation families x control/h1/h2/h3, SPEC §7, seed 001).

The committed task directories are exactly the generator's output. Every reference path, replayed through
a real local sandbox, scores 1.0 on the raw and escaped transports with the same final state, and the
nested transport (one extra unescaped double-quote parser) damages exactly the hazardous payloads listed
below: never a control, and not the hazardous payloads whose hazard only bites other layers (sed's `&` and
`/`, cron's `%`, SQL's `'` inside a quoted heredoc, printf's `%%`, heredoc terminators, globs and `!`).
"""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.transport import wrap_command
from matchmeter.runner.trial import seed_sandbox
from matchmeter.tasks import builtin_suite_dir, load_tasks
from matchmeter.tasks.loader import shared_dir, verify_support_files
from tests.tasks.quoting_gen import TASK_IDS, generate, hazard_tags
from tests.tasks.quoting_gen.families import FAMILIES

SUITE = builtin_suite_dir()
CONTROLS = {f"q-{f.op}-control" for f in FAMILIES}
# Hazardous payloads the nested parser leaves alone: nothing in them is active inside double quotes once
# the payload is single-quoted (or sits in a quoted heredoc): sed-escaped & and / (\& and \/ keep their
# backslash inside "..."), %, globs, ! (no history expansion in bash -c), a lone ' inside a heredoc.
NESTED_SURVIVES_HAZARD = {
    "q-append-line-h2",      # ^/api/v[0-9]+/items/\d+\.json$  (\d keeps its backslash, $ before ' is literal)
    "q-sed-replace-h1",      # https://.../?a=1&b=2 & more
    "q-crontab-line-h3",     # 100% --glob [a-z]*.csv
    "q-sqlite-insert-h1",    # O'Brien's fix: 100% done!  (SQL-doubled quote inside <<'SQL')
    "q-printf-format-h1",    # [%-8s] %5d%% done!
    "q-heredoc-file-h2",     # EOF / END / PAYLOAD lines, it's 100% done!
    "q-odd-filename-h3",     # *[draft]? !important.txt
}
STATE_PROBE = (
    "find . -path '*/.git' -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum; "
    "for g in $(find . -name .git -type d | sort); do echo \"== $g\"; git -C \"$g/..\" log --format='%T%n%B'; done"
)


def tasks_by_id():
    # Our directories named one by one: other writers' half-added tasks elsewhere in the suite cannot break us.
    return {t.id: t for t in load_tasks([SUITE / task_id for task_id in TASK_IDS])}


def test_generator_output_equals_committed_dirs(tmp_path):
    generated = generate(tmp_path)
    assert [p.name for p in generated] == TASK_IDS
    committed = sorted(p.name for p in SUITE.iterdir() if p.name.startswith("q-"))
    assert committed == sorted(TASK_IDS)
    for task_dir in generated:
        files = sorted(p.relative_to(task_dir) for p in task_dir.rglob("*") if p.is_file())
        ours = sorted(p.relative_to(SUITE / task_dir.name) for p in (SUITE / task_dir.name).rglob("*")
                      if p.is_file() and "__pycache__" not in p.parts)
        assert files == ours, task_dir.name
        for rel in files:
            assert filecmp.cmp(task_dir / rel, SUITE / task_dir.name / rel, shallow=False), f"{task_dir.name}/{rel}"
    # The four variants of a family seed from its one shared script; no task keeps a copy.
    assert sorted(p.name for p in (shared_dir() / "setup" / "quoting").glob("*.sh")) == \
        sorted(f"{f.op}.sh" for f in FAMILIES)


def test_families_shape_and_metadata():
    tasks = tasks_by_id()
    assert {t.id for t in load_tasks([SUITE]) if t.id.startswith("q-")} == set(TASK_IDS)
    assert len(TASK_IDS) == 56
    assert len({f.op for f in FAMILIES}) == 14
    for family in FAMILIES:
        payloads = {v.name: v.payload for v in family.variants}
        assert list(payloads) == ["control", "h1", "h2", "h3"]
        assert len(set(payloads.values())) == 4
        for name, payload in payloads.items():
            task = tasks[f"q-{family.op}-{name}"]
            assert task.source_family == "quoting"
            assert task.category == family.op
            assert (task.difficulty == "easy") == (name == "control")
            assert set(hazard_tags(payload)) <= set(task.tags)
            assert (Path(task.path) / "tests" / "payload.txt").read_bytes() == payload.encode()
            assert f"```text\n{payload}\n```" in task.instruction  # the payload is given verbatim
    assert {"quotes", "dollar", "backtick", "backslash", "newline", "heredoc-terminator", "bang", "glob",
            "percent"} <= {tag for t in tasks.values() for tag in t.tags if t.id not in CONTROLS}


def run_reference(task, transport: str, seed: int = 0) -> tuple[str, float]:
    """Fresh local sandbox: setup.sh, every reference command through the transport, verifier; (state, reward)."""
    box = get_backend("local").create(SandboxRequest(task_id=task.id, environment_dir=Path(task.path) / "environment",
                                                     env={"MM_SEED": str(seed)}))
    try:
        logs = box.exec('printf %s "$MM_LOGS"', 10).output
        tests = box.exec('printf %s "$MM_TESTS"', 10).output
        setup = seed_sandbox(box, task, logs, 60)  # as a trial seeds it: the family's shared script
        assert setup.exit_code == 0, setup.output
        for command in task.reference_paths[0].commands:
            box.exec(wrap_command(command, transport), 30)  # exit codes are never the verdict
        state = box.exec(STATE_PROBE, 30).output
        box.upload(Path(task.path) / "tests", tests, extra_files=verify_support_files(task))  # as the runner does
        box.exec(f'bash "{tests}/test.sh"', 60)
        return state, float(box.exec(f'cat "{logs}/reward.txt"', 10).output)
    finally:
        box.destroy()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reference_path_raw_escaped_nested(task_id):
    task = tasks_by_id()[task_id]
    raw_state, raw_reward = run_reference(task, "raw")
    assert raw_reward == 1.0
    assert run_reference(task, "escaped") == (raw_state, raw_reward)
    nested_state, nested_reward = run_reference(task, "nested")
    damaged = nested_state != raw_state
    assert damaged == (nested_reward < 1.0), (task_id, nested_reward)  # the verifier sees exactly the damage
    assert damaged == (task_id not in CONTROLS | NESTED_SURVIVES_HAZARD), task_id


def test_nested_damage_sets_are_mostly_hazardous():
    hazardous = set(TASK_IDS) - CONTROLS
    assert hazardous > NESTED_SURVIVES_HAZARD
    assert len(NESTED_SURVIVES_HAZARD) <= len(hazardous) // 4
