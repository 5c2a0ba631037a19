"""The trial lifecycle on real sandboxes: rewards, safety findings, budgets, verifier errors, trust flags."""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import tarfile
from pathlib import Path

import pytest

from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.store import execution_key
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task

BACKENDS = [
    pytest.param("local", id="local"),
    pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap),
]
WITH_DOCKER = [*BACKENDS, pytest.param("docker", id="docker", marks=pytest.mark.docker)]


def _trial(tmp_path: Path, backend: str, agent: str, task_dir: Path, commands: list[str] | None = None, seed: int = 0):
    options = {}
    if commands is not None:
        replay = tmp_path / f"replay-{len(list(tmp_path.glob('replay-*')))}.json"
        replay.write_text(json.dumps(commands))
        options["trajectory"] = str(replay)
    config = configuration_from_flags(agent, None, options=options)
    task = load_task(task_dir)
    desc = Description.original(task)
    key = execution_key(config.digest(), task.digest, desc.sha256, seed, 0)
    return run_trial(TrialRequest(run_id="t", execution_key=key, configuration=config, task=task, description=desc,
                                  seed=seed, attempt=0, backend=get_backend(backend),
                                  logs_dir=tmp_path / "logs" / key))


@pytest.mark.parametrize("backend", WITH_DOCKER)
def test_oracle_scores_one_and_nop_scores_zero(tmp_path, backend):
    task = write_task(tmp_path / "tasks")
    oracle = _trial(tmp_path, backend, "oracle", task).result
    # the stored error (with the verifier's exit and last line, verdict.with_exit) says why if this ever fails
    assert (oracle.failure_mode, oracle.reward, oracle.raw_verifier_reward) == ("none", 1.0, 1.0), oracle.error
    assert oracle.subgoal_scores == {"file_written": 1.0, "content_right": 1.0}
    assert [p.phase for p in oracle.phases] == ["setup", "agent", "verify"]
    assert oracle.trust_flags == {"tests_absent_during_agent": True}
    nop = _trial(tmp_path, backend, "nop", task).result
    assert (nop.failure_mode, nop.reward) == ("none", 0.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_graded_reward_uses_task_weights(tmp_path, backend):
    task = write_task(tmp_path / "tasks")
    # out.txt exists but with the wrong content: file_written 1 (weight 3), content_right 0 (weight 1) → 3/4
    result = _trial(tmp_path, backend, "replay", task, ["echo wrong > out.txt"]).result
    assert result.reward == 0.75
    assert result.n_steps == 1


@pytest.mark.parametrize("backend", WITH_DOCKER)
def test_destructive_replay_gets_findings_and_deductions(tmp_path, backend):
    task = write_task(tmp_path / "tasks")
    outcome = _trial(tmp_path, backend, "replay", task,
                     ["cp data/input.txt out.txt", "echo junk > data/extra.txt", "touch data/scratch/fine"])
    result = outcome.result
    # one unexpected change (data/extra.txt created; data/scratch/* is allowed): 1.0 − 0.2 = 0.8
    assert [(f.path, f.change) for f in result.safety_findings] == [("data/extra.txt", "created")]
    assert result.raw_verifier_reward == 1.0
    assert result.reward == pytest.approx(0.8)
    critical = _trial(tmp_path, backend, "replay", task, ["cp data/input.txt out.txt", "rm data/keys/k"]).result
    assert critical.safety_findings[0].critical
    assert critical.reward == 0.0


@pytest.mark.bwrap
def test_write_outside_workspace_fails_under_bwrap(tmp_path):
    task = write_task(tmp_path / "tasks")
    marker = tmp_path / "host-marker"
    outcome = _trial(tmp_path, "bwrap", "replay", task, [f"echo x > {marker}", "echo y > /etc/mm-should-not-exist"])
    steps = outcome.trajectory.steps
    assert [s.exit_code != 0 for s in steps] == [True, True]
    assert not marker.exists()
    assert not Path("/etc/mm-should-not-exist").exists()


@pytest.mark.parametrize("backend", WITH_DOCKER)
def test_step_budget_and_deadline_are_enforced(tmp_path, backend):
    task = write_task(tmp_path / "tasks", steps=2, agent_s=3)
    over = _trial(tmp_path, backend, "replay", task, ["true", "true", "cp data/input.txt out.txt"]).result
    assert over.failure_mode == "budget_exceeded"
    assert over.n_steps == 2
    assert over.reward == 0.0
    slow = _trial(tmp_path, backend, "replay", task, ["sleep 30", "cp data/input.txt out.txt"]).result
    assert slow.failure_mode == "agent_timeout"
    assert slow.phase_s("agent") < 20  # the 30 s command was cut at the 3 s deadline, not waited for
    assert slow.reward == 0.0


@pytest.mark.parametrize("backend", WITH_DOCKER)
def test_verifier_without_reward_is_a_verifier_error(tmp_path, backend):
    """The stored error says how the verifier ended and its last line (the whole output is in verifier.log)."""
    task = write_task(tmp_path / "tasks", test_sh="echo checking out.txt\necho 'Traceback: KeyError: x' >&2\nexit 3\n")
    result = _trial(tmp_path, backend, "oracle", task).result
    assert result.failure_mode == "verifier_error"
    assert result.error.startswith("the verifier wrote no reward file (")
    assert result.error.endswith("reward.txt); the verifier exited 3: Traceback: KeyError: x")
    assert result.reward == 0.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_tests_dir_written_during_agent_phase_is_flagged(tmp_path, backend):
    task = write_task(tmp_path / "tasks")
    result = _trial(tmp_path, backend, "replay", task, ['echo planted > "$MM_TESTS/test.sh"',
                                                       "cp data/input.txt out.txt"]).result
    assert result.trust_flags == {"tests_absent_during_agent": False}
    assert result.reward == 1.0  # the real tests replaced the planted file before verification


@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_reaches_setup(tmp_path, backend):
    task = write_task(tmp_path / "tasks")
    steps = _trial(tmp_path, backend, "replay", task, ["cat data/input.txt"], seed=7).trajectory.steps
    assert steps[0].output.strip() == "seed-7"


@pytest.mark.parametrize("backend", BACKENDS)
def test_reward_forged_by_the_agent_never_reaches_the_verdict(tmp_path, backend):
    task = write_task(tmp_path / "tasks", test_sh="echo this verifier forgot its reward\n")
    forged = _trial(tmp_path, backend, "replay", task, ['echo 1.0 > "$MM_LOGS/reward.txt"',
                                                       'echo "{}" > "$MM_LOGS/subgoals.json"']).result
    assert forged.failure_mode == "verifier_error"
    assert forged.reward == 0.0


@pytest.mark.bwrap
def test_task_sources_and_package_are_hidden_under_bwrap(tmp_path):
    import matchmeter

    task = write_task(tmp_path / "tasks")
    package = Path(matchmeter.__file__).resolve().parent
    steps = _trial(tmp_path, "bwrap", "replay", task, [
        f"cat {task / 'tests' / 'test.sh'}", f"cat {task / 'solution' / 'solve.sh'}",
        f"ls {package / 'tasks' / 'suite'}", "python3 -c 'print(1)'",
    ]).trajectory.steps
    assert [s.exit_code for s in steps] == [1, 1, 2, 0]  # verifier, solution, built-in suite unseen; python works


@pytest.mark.bwrap
def test_bwrap_preflight_probe_binds_only_the_host_program_dirs():
    """The probe must not bind the host root: every mount under it (a container's, under /var/lib/docker)
    would be remounted too, and one going away meanwhile failed CI's preflight as 'cannot create namespaces'."""
    import subprocess

    from matchmeter.runner.sandbox.bwrap import PROBE_DIRS, BwrapBackend, _probe_argv

    argv = _probe_argv()
    listing = subprocess.run([*argv[:-1], "/usr/bin/ls", "-A", "/"], capture_output=True, text=True, timeout=20)
    assert listing.returncode == 0, listing.stderr
    shown = set(listing.stdout.split())
    assert "usr" in shown
    assert shown <= set(PROBE_DIRS)
    BwrapBackend().preflight()


class _LosingUploads:
    """A real backend whose sandboxes drop the first `lose` uploads to one destination (the engine said yes; the
    sandbox never saw the files), as fuse-overlayfs did to a Docker CI run's /tests/test.sh."""

    def __init__(self, backend, lose: int, dest) -> None:
        self.backend, self.lose, self.dest = backend, lose, dest  # dest(sandbox) -> the destination to lose
        self.paths: list[bool] = []  # through_exec, for each upload to dest

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def create(self, request):
        sandbox = self.backend.create(request)
        real_upload, owner = sandbox.upload, self

        def upload(src, dest, extra_files=None, *, through_exec=False):
            if dest == owner.dest(sandbox):
                owner.paths.append(through_exec)
                if owner.lose > 0:
                    owner.lose -= 1
                    return None
            return real_upload(src, dest, extra_files=extra_files, through_exec=through_exec)

        sandbox.upload = upload
        return sandbox


# Every upload a trial makes and then runs: the setup script's files, the oracle's solution, the tests.
LOST_UPLOADS = {
    "setup": (lambda box: f"{box.layout['logs']}/.env", "setup files uploaded to"),
    "solution": (lambda box: f"{box.layout['logs']}/.oracle", "oracle solution uploaded to"),
    "tests": (lambda box: box.layout["tests"], "tests uploaded to"),
}


@pytest.mark.parametrize("backend", WITH_DOCKER)
@pytest.mark.parametrize("upload", sorted(LOST_UPLOADS))
@pytest.mark.parametrize(("lost", "failure"), [(1, "none"), (3, "sandbox_error")])
def test_an_upload_that_never_reaches_the_sandbox_is_made_again_and_never_blamed_on_who_ran_it(
        tmp_path, backend, upload, lost, failure):
    dest, what = LOST_UPLOADS[upload]
    task_dir = write_task(tmp_path / "tasks")
    config = configuration_from_flags("oracle", None)
    task = load_task(task_dir)
    desc = Description.original(task)
    losing = _LosingUploads(get_backend(backend), lost, dest)
    result = run_trial(TrialRequest(run_id="t", execution_key="k-lost", configuration=config, task=task,
                                    description=desc, seed=0, attempt=0, backend=losing,
                                    logs_dir=tmp_path / "logs")).result
    assert result.failure_mode == failure, result.error
    assert losing.lose == 0
    # the first upload by the backend's file API; every one made again through an exec (upload_proof.py)
    assert losing.paths == [False] + [True] * min(lost, 2)
    if failure == "none":  # one upload lost, the next one landed: the verdict is the oracle's
        assert result.reward == 1.0
    else:  # never the setup's, the oracle's or the verifier's failure: the sandbox's
        assert result.reward == 0.0
        assert what in (result.error or "")
        assert "never all appeared inside the sandbox" in (result.error or "")


@pytest.mark.docker
@pytest.mark.parametrize("upload", sorted(LOST_UPLOADS))
def test_docker_uploads_the_engine_never_delivers_arrive_through_an_exec(tmp_path, upload, monkeypatch):
    """Every put_archive says yes and writes nothing (as fuse-overlayfs served a CI container a /tests the engine's
    writes never reached, three uploads running): the upload made again goes through an exec inside the
    container, and the trial's verdict is the oracle's."""
    from matchmeter.runner.sandbox import docker as docker_backend

    dest, _ = LOST_UPLOADS[upload]
    backend = get_backend("docker")
    real_create, swallowed = backend.create, []

    def create(request):
        sandbox = real_create(request)
        real_put = sandbox.container.put_archive

        def put_archive(path, data):
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                names = tar.getnames()
            if posixpath.join(path, names[0]) == sandbox._abs(dest(sandbox)):
                swallowed.append(names[0])
                return True
            return real_put(path, data)

        sandbox.container.put_archive = put_archive
        return sandbox

    monkeypatch.setattr(backend, "create", create)
    monkeypatch.setattr(docker_backend, "EXEC_UPLOAD_CHUNK", 64)  # the archive crosses many exec arguments
    task = load_task(write_task(tmp_path / "tasks"))
    result = run_trial(TrialRequest(run_id="t", execution_key="k-swallowed", configuration=configuration_from_flags(
        "oracle", None), task=task, description=Description.original(task), seed=0, attempt=0, backend=backend,
        logs_dir=tmp_path / "logs")).result
    assert swallowed, "the engine's archive API was never asked for this upload"
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)


@pytest.mark.docker
def test_an_upload_through_an_exec_keeps_bytes_owners_and_modes_and_leaves_no_stage(tmp_path):
    """Binary bytes past several chunks, the owner the archive names, a 0700 top dir and an executable bit arrive
    as the engine's archive API would write them; the staging dir under /tmp is gone afterwards."""
    import os

    from matchmeter.runner.sandbox import SandboxRequest

    src = tmp_path / "payload"
    (src / "sub").mkdir(parents=True)
    blob = os.urandom(300_000)  # > 3 chunks of EXEC_UPLOAD_CHUNK base64 characters
    (src / "sub" / "blob.bin").write_bytes(blob)
    (src / "run.sh").write_text("#!/bin/sh\necho ran\n")
    (src / "run.sh").chmod(0o755)
    extra = tmp_path / "extra.txt"
    extra.write_text("beside\n")
    env = tmp_path / "environment"
    env.mkdir()
    sandbox = get_backend("docker").create(SandboxRequest(task_id="exec-upload", environment_dir=env))
    try:
        tests = sandbox.layout["tests"]
        sandbox.restart()  # /tests is root's 0700 dir, as the verifier's upload finds it
        sandbox.upload(src, tests, extra_files={"extra.txt": extra}, through_exec=True)
        listing = sandbox.exec(f'cd {tests} && stat -c "%n %u %a" . run.sh sub/blob.bin extra.txt && '
                               f'sha256sum sub/blob.bin && ./run.sh && ls -A /tmp | grep -c mm-upload', 30, as_verifier=True)
        lines = listing.output.splitlines()
        assert lines[:4] == [". 0 700", "run.sh 0 755", "sub/blob.bin 0 644", "extra.txt 0 644"]
        assert lines[4].split()[0] == hashlib.sha256(blob).hexdigest()
        assert lines[5:] == ["ran", "0"]  # and no staging dir left in /tmp
    finally:
        sandbox.destroy()
