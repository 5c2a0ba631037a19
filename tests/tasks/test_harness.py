"""Host trials (tests/tasks/harness.py) are isolated: trials of one port task on one seed, at once, never
reach each other's service, nothing a script starts outlives its Trial, and a cached starting state
(for the trial, and for the verifier's pristine()) is the one setup.sh makes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from matchmeter.tasks import load_tasks
from tests.tasks.harness import Trial, _pids_in, tree_snapshot

BY_ID = {t.id: t for t in load_tasks([])}
SERVICE = BY_ID["status-service"]
CHECKS = Path(SERVICE.path) / "checks"


def _port(trial: Trial) -> int:
    return int(next(line.split("=")[1] for line in (trial.app / "service.conf").read_text().splitlines()
                    if line.replace(" ", "").startswith("port=")))


def _answers(trial: Trial, port: int) -> bool:
    """Something accepts a connection on 127.0.0.1:port inside the trial's network."""
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5).close()"
    return trial.bash(["-c", f"python3 -c \"{code}\""]).returncode == 0


def _environ_names(app: Path) -> list[int]:
    """Processes whose environment carries MM_APP=app."""
    needle = b"MM_APP=" + str(app).encode() + b"\0"
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if needle in Path(entry.path, "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
def test_trials_of_one_port_task_and_seed_at_once_do_not_reach_each_other():
    with Trial(SERVICE, 0) as a, Trial(SERVICE, 0) as b:
        a.setup()
        b.setup()
        port = _port(a)
        assert port == _port(b)
        a.run_check(CHECKS / "alt-setsid-socketserver.sh")
        a.bash(["-c", "bash start.sh >/dev/null 2>&1 </dev/null"])  # returns once the daemon listens
        assert _answers(a, port), "the correct service did not come up in the first trial"
        assert not _answers(b, port), "the second trial reaches the first trial's service"
        # The cheap shot's static server binds the port in b's own network; with a shared network it would
        # fail to bind and b's verifier would grade a's correct service (1.0).
        b.run_check(CHECKS / "cheap-static-http-server.sh")
        verdict = b.verify()
        assert verdict.weighted <= 0.3, verdict.subgoals
        assert _answers(a, port), "b's verification stopped a's service"


@pytest.mark.slow
def test_a_detached_daemon_is_killed_before_verify_and_nothing_outlives_the_trial():
    with Trial(SERVICE, 1) as trial:
        trial.setup()
        trial.run_check(CHECKS / "alt-setsid-socketserver.sh")
        trial.bash(["-c", "bash start.sh >/dev/null 2>&1 </dev/null"])
        port, netns, app = _port(trial), trial.netns, trial.app
        daemons = _environ_names(app)
        assert daemons, "the setsid daemon of start.sh is not running"
        trial.kill_all()
        assert not _answers(trial, port), "the daemon still answers after kill_all (as before verify)"
        assert not _environ_names(app)
        trial.bash(["-c", "bash start.sh >/dev/null 2>&1 </dev/null"])  # running again when the trial ends
        assert _environ_names(app)
    assert not _environ_names(app), "a process of the trial outlives it"
    assert not _pids_in(netns), "a process is left in the trial's network namespace"


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["status-service", "cleanup-old-tmp", "repair-symlinks"])
def test_a_cached_starting_state_equals_what_setup_makes(task_id):
    """A second setup of a (task, seed) is the session cache's copy: same paths, bytes, modes and even
    mtimes (setup.sh run again would stamp its files anew)."""
    task = BY_ID[task_id]
    with Trial(task, 7) as made:
        made.setup()
        first = made.snapshot()
    with Trial(task, 7) as copied:
        copied.setup()
        assert copied.snapshot() == first
    with Trial(task, 7) as fresh:
        fresh.setup(fresh=True)  # setup.sh itself: same paths, bytes and modes, newer mtimes
        again = fresh.snapshot()
    assert {k: v[:3] for k, v in again.items()} == {k: v[:3] for k, v in first.items()}
    assert again != first, "setup(fresh=True) came from the cache"


@pytest.mark.slow
def test_the_verifiers_setup_sh_serves_the_cached_state_only_to_the_call_pristine_makes():
    """verifylib.pristine(): an empty dir as cwd and MM_APP, the script variables only. Any other MM_*
    variable (notes-contact-extract's MM_TRUTH_OUT asks setup.sh for a side file) gets the real setup.sh."""
    with Trial(BY_ID["cleanup-old-tmp"], 8) as trial:
        trial.setup()
        cached = trial.snapshot()
        trial.verify()  # puts the verifier's files, setup.sh among them, into $MM_TESTS

        def rebuild(name: str, extra: dict[str, str]) -> dict:
            out = trial.root / name
            out.mkdir()
            env = trial.env() | {"MM_APP": str(out)} | extra
            subprocess.run(["bash", str(trial.tests / "setup.sh")], cwd=out, env=env, check=True)
            return tree_snapshot(out)

        assert rebuild("as-pristine", {}) == cached
        made = rebuild("with-extra-variable", {"MM_TRUTH_OUT": str(trial.root / "truth.json")})
    assert {k: v[:3] for k, v in made.items()} == {k: v[:3] for k, v in cached.items()}
    assert made != cached, "the stand-in served the cache although another MM_* variable was set"


@pytest.mark.slow
def test_a_state_holding_a_git_work_tree_is_made_by_setup_sh_every_time():
    """A copy would leave the git index's cached inodes and ctimes stale (`git apply --index` refuses)."""
    task = BY_ID["git-bisect-regression"]
    with Trial(task, 7) as first:
        first.setup()
        made = first.snapshot()
    with Trial(task, 7) as second:
        second.setup()
        again = second.snapshot()
    assert again != made, "the second setup was a copy of the first"
    assert again.keys() == made.keys()


def test_a_task_without_setup_sh_starts_from_an_empty_workspace():
    """A Harbor-layout task has no setup script: a host trial's setup() seeds nothing (it once ran
    `bash None` and failed), fresh or through the session cache."""
    from matchmeter.tasks.loader import load_task

    task = load_task(Path(__file__).parent / "data" / "harbor-hello")
    assert task.environment.setup is None
    for fresh in (True, False):
        with Trial(task, 0) as trial:
            trial.setup(fresh=fresh)
            assert tree_snapshot(trial.app) == {}
