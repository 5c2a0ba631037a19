"""A Harbor / Terminal-Bench 2 task loads unchanged, and its oracle / nop score 1 / 0 in real sandboxes.

The task under tests/tasks/data/harbor-hello follows Harbor's documented layout (task.toml with
[metadata]/[verifier]/[agent]/[environment], instruction.md, environment/Dockerfile, solution/solve.sh,
tests/test.sh writing /logs/verifier/reward.txt) and carries no matchmeter key. The sandbox test drives
the trial phases the runner will (no setup script → oracle or nothing → tests copied in → verify →
read_verdict) on bwrap and docker as they exist today. tests/tasks/data/harbor-state bakes its state into
the image with RUN lines: docker honours it today; bwrap is a strict xfail until it runs in the image.
"""

from __future__ import annotations

import math
import secrets
import shutil
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.metrics.efficiency import efficiency_card
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.verdict import prepare_command, read_verdict
from matchmeter.tasks.harbor import to_matchmeter_table
from matchmeter.tasks.loader import builtin_suite_dir, load_task, task_files

HARBOR_TASK = Path(__file__).parent / "data" / "harbor-hello"


def test_harbor_task_loads_with_documented_defaults():
    task = load_task(HARBOR_TASK)
    assert (task.id, task.source_family, task.category, task.difficulty) == (
        "harbor-hello", "imported", "file-operations", "easy")
    assert task.tags == ["harbor", "hello"]
    assert [(g.name, g.weight) for g in task.subgoals] == [("tests_pass", 1.0)]
    assert task.reference_paths == []
    assert task.environment.setup is None
    assert task_files(task).setup is None
    assert (task.timeouts.agent_s, task.timeouts.verify_s, task.timeouts.setup_s) == (300.0, 120.0, 600.0)
    assert (task.environment.memory_mb, task.environment.cpus, task.environment.network) == (2048, 1.0, False)


def copy_task(tmp_path: Path, extra: str = "", name: str = "harbor-hello") -> Path:
    task_dir = tmp_path / name
    shutil.copytree(HARBOR_TASK, task_dir)
    with (task_dir / "task.toml").open("a") as fh:  # [environment] is the file's last table
        fh.write(extra)
    return task_dir


@pytest.mark.parametrize(("extra", "expected"), [("allow_internet = true\n", True), ('network_mode = "public"\n', True),
                                                 ('network_mode = "no-network"\n', False), ("", False)])
def test_harbor_network_mode_and_allow_internet_map_to_network(tmp_path, extra, expected):
    assert load_task(copy_task(tmp_path, extra)).environment.network is expected


def test_multi_step_harbor_task_loads_its_steps_in_order():
    task = load_task(Path(__file__).parent / "data" / "harbor-steps")
    assert [(s.name, s.min_reward) for s in task.steps] == [("write", 1.0), ("extend", None)]
    assert task.steps[1].instruction.startswith('Append the line "world"')
    assert (task.multi_step_reward, task.instruction) == ("mean", "\n\n".join(s.instruction for s in task.steps))


@pytest.mark.parametrize(("extra", "message"), [
    ('\n[[steps]]\nname = "one"\n', r"steps/one/instruction.md is missing"),
    ('\n[[steps]]\nname = "one"\nhealthcheck = {}\n', r"steps\[0\].healthcheck is not supported"),
    ('\n[[steps]]\nname = "a"\n[[steps]]\nname = "a"\n', r"step name 'a' is used twice"),
])
def test_a_bad_multi_step_task_is_one_clear_error(tmp_path, extra, message):
    with pytest.raises(UserError, match=message):
        load_task(copy_task(tmp_path, extra))


def test_step_rewards_combine_and_gate_as_harbor_does():
    """Harbor's mean: per key over the verified steps, a missing key 0; final: the last step's; min_reward:
    a number gates `reward`, a table each key (missing = -inf)."""
    from matchmeter.runner.steps import below_min_reward, combine
    from matchmeter.schema import StepOutcome, TaskStep

    task = load_task(Path(__file__).parent / "data" / "harbor-steps")
    steps = [StepOutcome(name="a", rewards={"reward": 1.0}, verified=True),
             StepOutcome(name="b", rewards={"reward": 0.5, "lines": 3.0}, verified=True),
             StepOutcome(name="c", verified=False)]
    assert combine(task, steps) == {"reward": 0.75, "lines": 1.5}
    assert combine(task.model_copy(update={"multi_step_reward": "final"}), steps) == {"reward": 0.5, "lines": 3.0}
    assert combine(task, steps[2:]) == {}
    gate = TaskStep(name="a", min_reward={"lines": 2.0})
    assert below_min_reward(gate, {"lines": 3.0}) is None
    assert "lines=-inf below its min_reward 2" in str(below_min_reward(gate, {"reward": 1.0}))
    assert below_min_reward(TaskStep(name="a", min_reward=1.0), {"reward": 0.5}) is not None


def test_steps_go_on_after_an_agent_timeout_or_error_but_not_after_a_budget_or_endpoint_stop():
    """Harbor's policy for a step's agent failure (grade, and go on when the verifier wrote a reward) for
    agent_timeout and agent_error; the execution-wide budget and a failed endpoint stop the steps."""
    from matchmeter.errors import AgentError, AgentTimeout, BudgetExceeded, EndpointError
    from matchmeter.runner.steps import stop_after
    from matchmeter.schema import TaskStep

    step, gated = TaskStep(name="a"), TaskStep(name="a", min_reward=1.0)
    assert stop_after(step, AgentTimeout("agent deadline of 3s passed"), {"reward": 0.0}) is None
    assert stop_after(step, AgentError("exit 1"), {"reward": 0.0}) is None
    assert stop_after(gated, AgentTimeout("agent deadline of 3s passed"), {"reward": 1.0}) is None
    assert "below its min_reward" in str(stop_after(gated, AgentTimeout("late"), {"reward": 0.5}))
    assert stop_after(step, BudgetExceeded("tokens", 500, 400), {"reward": 1.0}) == \
        "step 'a': budget_exceeded; later steps not run"
    assert stop_after(step, EndpointError("down"), {"reward": 1.0}) == "step 'a': infra_error; later steps not run"


def test_multi_key_and_multi_step_tasks_score_on_each_backend(mm_fixture_runs):
    """matchmeter's oracle/nop on the Harbor-format fixtures, through `matchmeter run` (test_harbor_parity.py
    shows Harbor itself gives the same keys and steps)."""
    got = {key: (r.reward, r.rewards, [(s.name, s.rewards, s.n_actions) for s in r.steps], r.failure_mode)
           for key, r in mm_fixture_runs.items()}
    assert got == {
        # no `reward` key: the scalar is the mean of the clamped keys; performance is kept as written
        ("harbor-multikey", "oracle"): (1.0, {"correctness": 1.0, "performance": 1.5}, [], "none"),
        ("harbor-multikey", "nop"): (0.0, {"correctness": 0.0, "performance": 0.0}, [], "none"),
        # each step verified in the same sandbox; the combined reward is the per-key mean over the steps
        ("harbor-steps", "oracle"): (1.0, {"reward": 1.0, "lines": 1.0},
                                     [("write", {"reward": 1.0}, 1), ("extend", {"reward": 1.0, "lines": 2.0}, 1)],
                                     "none"),
        # step 1 misses its min_reward: step 2 never runs and is not part of the combination
        ("harbor-steps", "nop"): (0.0, {"reward": 0.0}, [("write", {"reward": 0.0}, 0)], "none"),
        # step 1's oracle sleeps past the step's 3 s deadline after writing the file: the step is still
        # verified (1.0 meets its min_reward), step 2 runs, the combination is the same as without the timeout;
        # the timeout scores the execution 0 (raw_verifier_reward keeps the combination's 1.0)
        ("harbor-steps-timeout", "oracle"): (0.0, {"reward": 1.0, "lines": 1.0},
                                             [("write", {"reward": 1.0}, 1),
                                              ("extend", {"reward": 1.0, "lines": 2.0}, 1)], "agent_timeout"),
        ("harbor-steps-timeout", "nop"): (0.0, {"reward": 0.0}, [("write", {"reward": 0.0}, 0)], "none"),
    }
    timed_out = mm_fixture_runs[("harbor-steps-timeout", "oracle")]
    assert timed_out.raw_verifier_reward == 1.0
    write, extend = timed_out.steps
    assert "agent deadline of 3s passed" in (write.error or "")
    assert write.verified
    assert (extend.error, extend.verified) == (None, True)
    assert timed_out.error == write.error
    assert [p.phase for p in timed_out.phases] == ["setup", "agent:write", "verify:write", "agent:extend",
                                                   "verify:extend"]


def test_key_set_in_both_places_is_an_error(tmp_path):
    task_dir = copy_task(tmp_path, '\n[metadata.matchmeter]\ncategory = "b"\n')
    text = (task_dir / "task.toml").read_text()
    (task_dir / "task.toml").write_text('category = "a"\n' + text)
    with pytest.raises(UserError, match="category is set both at the top level and in"):
        load_task(task_dir)


def test_environment_tables_merge_key_by_key(tmp_path):
    task_dir = copy_task(tmp_path, '\n[metadata.matchmeter.environment]\nnetwork = true\n')
    task = load_task(task_dir)
    assert (task.environment.network, task.environment.memory_mb) == (True, 2048)
    clash = copy_task(tmp_path, '\n[metadata.matchmeter.environment]\nmemory_mb = 512\n', name="clash")
    with pytest.raises(UserError, match=r"environment.memory_mb is set both in \[environment\] and in"):
        load_task(clash)


TOP_LEVEL_TOML = """# comment stays
id = "quoted"
source_family = "quoting"
category = "c"
difficulty = "easy"

[timeouts]
agent_s = 30

[[subgoals]]
name = "bytes"
weight = 1

[[reference_paths]]
commands = ['''python3 - <<'EOF'
[not.a.table]
x = 1
EOF''', "[ -f out ] && echo yes"]
"""


def test_migration_moves_our_keys_under_metadata_matchmeter_and_keeps_strings():
    text = to_matchmeter_table(TOP_LEVEL_TOML)
    assert text.splitlines()[:2] == ["# comment stays", "[metadata.matchmeter]"]
    assert "[metadata.matchmeter.timeouts]" in text
    assert "[[metadata.matchmeter.subgoals]]" in text
    assert "[not.a.table]\nx = 1" in text  # inside a multi-line string: untouched
    assert to_matchmeter_table(text) == text


def test_matchmeter_table_and_top_level_layouts_load_the_same(tmp_path):
    for source in (builtin_suite_dir() / "ab-test-ztest", builtin_suite_dir() / "q-write-bytes-h2"):
        moved = tmp_path / source.name
        shutil.copytree(source, moved)
        (moved / "task.toml").write_text(to_matchmeter_table((source / "task.toml").read_text()))
        assert "[metadata.matchmeter]" in (moved / "task.toml").read_text()
        a, b = load_task(source), load_task(moved)
        assert a.model_dump(exclude={"path", "digest"}) == b.model_dump(exclude={"path", "digest"})
        assert b.source_family != "imported"
        assert len(b.reference_paths) >= 1


def test_no_reference_path_makes_path_efficiency_na_not_zero():
    steps = [{"command": "echo hi > /app/hello.txt", "exit_code": 0, "output": ""}]
    card = efficiency_card(steps, [], reward=1.0)
    assert all(math.isnan(x) for x in (card.n_ref, card.distance, card.efficiency, card.composite))
    assert (card.n_agent, card.quality) == (1, 100.0)
    with_ref = efficiency_card(steps, [["echo hi > /app/hello.txt"]], reward=1.0)
    assert (with_ref.efficiency, with_ref.composite) == (1.0, 100.0)


@pytest.fixture(scope="module", params=[pytest.param("bwrap", marks=pytest.mark.bwrap),
                                        pytest.param("docker", marks=pytest.mark.docker)])
def harbor_backend(request):
    if request.param == "docker":
        from matchmeter.runner.sandbox.baseimage import build_base_image

        build_base_image()  # a no-op when the lead's image exists
    backend = get_backend(request.param)
    backend.preflight()
    return backend


def run_harbor_trial(backend, task_dir: Path, oracle: bool) -> tuple[float, str]:
    """The trial phases for a task without setup.sh; returns (graded reward, verdict source)."""
    task = load_task(task_dir)
    box = backend.create(SandboxRequest(task_id=task.id, environment_dir=task_dir / "environment",
                                        environment=task.environment, env={"MM_SEED": "1"},
                                        label=f"harbor-{secrets.token_hex(3)}"))
    try:
        tests, logs = (box.exec(f'printf %s "${var}"', 10).output for var in ("MM_TESTS", "MM_LOGS"))
        if oracle:
            box.upload(task_dir / "solution", f"{logs}/.oracle")  # as the oracle agent does
            assert box.exec(f'bash "{logs}/.oracle/solve.sh"; rc=$?; rm -rf "{logs}/.oracle"; exit $rc', 60).exit_code == 0
        box.upload(task_files(task).tests_dir, tests)
        assert box.exec(prepare_command(logs), 30).exit_code == 0
        box.exec(f'bash "{tests}/test.sh"', task.timeouts.verify_s)
        verdict = read_verdict(box, logs, task)
        return verdict.graded, verdict.source
    finally:
        box.destroy()


def test_harbor_task_oracle_scores_one_and_nop_zero(harbor_backend):
    assert run_harbor_trial(harbor_backend, HARBOR_TASK, oracle=True) == (1.0, "verifier/reward.txt")
    assert run_harbor_trial(harbor_backend, HARBOR_TASK, oracle=False) == (0.0, "verifier/reward.txt")


STATE_TASK = Path(__file__).parent / "data" / "harbor-state"


def test_dockerfile_with_state_is_honoured(harbor_backend):
    assert run_harbor_trial(harbor_backend, STATE_TASK, oracle=True) == (1.0, "verifier/reward.txt")
    assert run_harbor_trial(harbor_backend, STATE_TASK, oracle=False) == (0.0, "verifier/reward.txt")


@pytest.mark.bwrap
def test_seeding_a_task_without_setup_sh_runs_nothing():
    """The runner's seeding step on a Harbor task (no environment/setup.sh) skips setup: nothing is uploaded
    or run (it once ran `bash …/None`, exit 127), and the workspace stays as the image left it."""
    from matchmeter.runner.trial import seed_sandbox

    task = load_task(HARBOR_TASK)
    box = get_backend("bwrap").create(SandboxRequest(task_id=task.id, environment_dir=HARBOR_TASK / "environment",
                                                     environment=task.environment, env={"MM_SEED": "0"},
                                                     label=f"harbor-{secrets.token_hex(3)}"))
    try:
        logs = box.exec('printf %s "$MM_LOGS"', 10).output
        before = box.exec(f'ls -A "$MM_APP" "{logs}"', 10).output
        assert seed_sandbox(box, task, logs, 60) is None
        assert box.exec(f'ls -A "$MM_APP" "{logs}"', 10).output == before
    finally:
        box.destroy()
