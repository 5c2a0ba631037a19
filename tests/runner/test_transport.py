"""Transports (SPEC §7) through real sandboxes: `escaped` reproduces the raw outcome byte for byte on every
quoting payload, `nested` damages exactly the payloads its extra double-quote parser rewrites, and the
suite's quoting tasks give identical final states raw vs escaped (and damaged ones nested)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.transport import wrap_command
from matchmeter.runner.trial import seed_sandbox
from matchmeter.schema import TaskSpec
from matchmeter.tasks.loader import verify_support_files

PAYLOADS = {
    "plain": "hello world",
    "single_quote": "it's a 'test'",
    "double_quote": 'say "hi" to "them"',
    "dollar_var": "cost $HOME and ${USER:-nobody} $1",
    "command_subst": "now $(echo injected) done",
    "backticks": "run `echo injected` here",
    "backslashes": "C:\\temp\\new \\\\ end\\",
    "escaped_dollar": 'price \\$5 and \\"q\\"',
    "newlines": "line one\nline two\n\nline four",
    "heredoc_terminators": "EOF\nPAYLOAD\nMM_END_OF_PAYLOAD_NOT\n",
    "bang": "hello!world !! !$ !-1",
    "globs": "* ? [abc] *.txt /etc/*",
    "mixed": "It's \"$X\" `id` $(id -u) \\n ! * 100%",
}
# Inside the outer double quotes of `bash -c "R"`, the outer shell expands $…, `…` and $(…), eats the
# backslash of \\ \$ \" \`, and a " ends the string; ' ! * ? [ and newlines pass through untouched.
# The printf form quotes the payload as '…'"'"'…', whose " breaks the outer string: single quotes are
# damaged there, but not in a quoted-delimiter heredoc, where ' is plain text.
NESTED_DAMAGED = {
    "printf": {"single_quote", "double_quote", "dollar_var", "command_subst", "backticks", "backslashes",
               "escaped_dollar", "mixed"},
    "heredoc": {"double_quote", "dollar_var", "command_subst", "backticks", "backslashes", "escaped_dollar", "mixed"},
}
BACKENDS = ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)]


def command_for(form: str, payload: str) -> tuple[str, bytes]:
    """A raw program R writing the payload to out.txt, and the bytes it must leave there."""
    if form == "printf":
        return f"printf '%s' {shlex.quote(payload)} > out.txt", payload.encode()
    return f"cat > out.txt <<'MM_END_OF_PAYLOAD'\n{payload}\nMM_END_OF_PAYLOAD", payload.encode() + b"\n"


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request, tmp_path_factory):
    box = get_backend(request.param).create(
        SandboxRequest(task_id="transport", environment_dir=tmp_path_factory.mktemp("env")))
    yield box
    box.destroy()


def outcome(sandbox, command: str, transport: str, tmp: Path) -> tuple[bytes | None, int, str]:
    """(final bytes of out.txt or None, exit code, output) of one command through one transport."""
    sandbox.exec("rm -f out.txt", 10)
    result = sandbox.exec(wrap_command(command, transport), 20)
    probe = sandbox.exec("test -f out.txt", 10)
    if probe.exit_code != 0:
        return None, result.exit_code, result.output
    dest = tmp / f"out-{transport}.bin"
    sandbox.download("out.txt", dest)
    return dest.read_bytes(), result.exit_code, result.output


@pytest.mark.parametrize("form", ["printf", "heredoc"])
def test_escaped_reproduces_raw_and_nested_damages_what_it_rewrites(sandbox, tmp_path, form):
    damaged = set()
    for name, payload in PAYLOADS.items():
        command, expected = command_for(form, payload)
        raw = outcome(sandbox, command, "raw", tmp_path)
        assert raw == (expected, 0, ""), name
        assert outcome(sandbox, command, "escaped", tmp_path) == raw, name
        if outcome(sandbox, command, "nested", tmp_path) != raw:
            damaged.add(name)
    assert damaged == NESTED_DAMAGED[form]


@pytest.fixture(scope="module")
def local_box(tmp_path_factory):
    box = get_backend("local").create(SandboxRequest(task_id="transport-prop", environment_dir=tmp_path_factory.mktemp("e")))
    yield box
    box.destroy()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40))
def test_escaped_equals_raw_on_arbitrary_text(local_box, tmp_path, payload):
    command, expected = command_for("printf", payload)
    raw = outcome(local_box, command, "raw", tmp_path)
    assert raw == (expected, 0, "")
    assert outcome(local_box, command, "escaped", tmp_path) == raw


# ---------------------------------------------------------------- the suite's quoting tasks

STATE_PROBE = (
    "find . -path '*/.git' -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum; "
    "for g in $(find . -name .git -type d | sort); do echo \"== $g\"; git -C \"$g/..\" log --format='%T%n%B'; done"
)


def quoting_tasks() -> list[TaskSpec]:
    from matchmeter.tasks.loader import load_tasks

    return [t for t in load_tasks([]) if t.source_family == "quoting"]


def run_reference(task: TaskSpec, transport: str, backend: str) -> tuple[list[tuple[str, int]], str, str]:
    """Fresh sandbox: setup.sh, then every reference command through the transport; (steps, state, reward)."""
    box = get_backend(backend).create(SandboxRequest(task_id=task.id, environment_dir=Path(task.path) / "environment",
                                                     env={"MM_SEED": "0"}))
    try:
        logs = box.exec('printf %s "$MM_LOGS"', 10).output
        tests = box.exec('printf %s "$MM_TESTS"', 10).output
        setup = seed_sandbox(box, task, logs, 120)  # as a trial seeds it
        assert setup.exit_code == 0, setup.output
        steps = []
        for command in task.reference_paths[0].commands:
            result = box.exec(wrap_command(command, transport), 60)
            steps.append((result.output, result.exit_code))
        state = box.exec(STATE_PROBE, 60).output
        box.upload(Path(task.path) / "tests", tests, extra_files=verify_support_files(task))  # as the runner does
        box.exec(f'bash "{tests}/test.sh"', 120)
        reward = box.exec(f'cat "{logs}/reward.txt"', 10).output.strip()
        return steps, state, reward
    finally:
        box.destroy()


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_suite_quoting_reference_paths_raw_vs_escaped_vs_nested(backend):
    # The hand-written quoting tasks are all hazardous; the generated q-* families (controls included,
    # exact damage sets asserted) are covered by tests/tasks/test_quoting_families.py.
    hand_written = {"exact-payload", "profile-literal-line", "commit-special-message"}
    tasks = [t for t in quoting_tasks() if t.id in hand_written]
    assert {t.id for t in tasks} == hand_written
    for task in tasks:
        raw = run_reference(task, "raw", backend)
        assert float(raw[2]) == 1.0, task.id
        assert run_reference(task, "escaped", backend) == raw, task.id
        nested = run_reference(task, "nested", backend)
        assert nested[1] != raw[1], task.id  # the final state differs: nested damaged the task
        assert float(nested[2]) < 1.0, task.id
