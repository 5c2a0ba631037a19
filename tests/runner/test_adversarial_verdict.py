"""Adversarial suite, verdict level (issue 30): a verdict counts only from a verifier that finished, and only from
the files of the task's own format, written by the verifier itself.

Same rules as test_adversarial.py: real `matchmeter run` processes with `--agent nop` or `--agent replay`, on bwrap
and docker, judged by what the run stores. Every attack here scored a full 1.0 on main before issue 30.
"""

from __future__ import annotations

import http.server
import secrets
import socket
import threading
from pathlib import Path

import pytest

import matchmeter
from tests.helpers.adversary import BOUND_S, SECRETS, Scratch, files_holding, mm_run, redact
from tests.helpers.attack_tasks import (
    KILL_VERIFIER,
    PLANT_EVERYWHERE,
    READONLY_VERDICT,
    REWARD_DIR_SWAP,
    git_commondir_filter,
    leftover_task,
    service_task,
    sql_shell_escape,
    start_sh,
    unfinished_verifier_task,
    verifylib_git_task,
)
from tests.helpers.tasks import write_task

BACKENDS = [pytest.param("bwrap", marks=pytest.mark.bwrap), pytest.param("docker", marks=pytest.mark.docker)]
XDIST_GROUP_BY = "backend"  # one worker per backend (tests/conftest.py)
FIRST_RUN_BOUND_S = 4 * BOUND_S  # the first run of a task on a backend may build its image
SUITE = Path(matchmeter.__file__).resolve().parent / "tasks" / "suite"


@pytest.fixture(scope="module")
def scratch():
    s = Scratch("verdict")
    yield s
    s.close()


def _task(scratch: Scratch, name: str, make) -> Path:  # type: ignore[no-untyped-def]
    root = scratch.root / f"tasks-{name}"
    found = list(root.glob("*/task.toml"))
    return found[0].parent if found else make(root)


def _one(scratch: Scratch, what: str, backend: str, task: Path, commands: list[str] | None, agent: str = "replay") -> dict:
    outcome = mm_run(scratch, scratch.name(f"{what}-{backend}"), backend, task, commands, agent=agent,
                     bound_s=FIRST_RUN_BOUND_S)
    assert outcome.returncode == 0, redact(outcome.stderr)
    assert files_holding(outcome.out, list(SECRETS.values())) == [], "a harness secret reached a stored file"
    return outcome.result


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_verifier_that_writes_its_reward_then_hangs_is_a_timeout_not_a_verdict(scratch, backend):
    """On main: reward 1.0, failure mode none (the reward written before the hang was read after the kill)."""
    task = _task(scratch, "hang", lambda root: unfinished_verifier_task(root, "hang"))
    result = _one(scratch, "verifier-hang", backend, task, None, agent="nop")
    assert (result["reward"], result["failure_mode"]) == (0.0, "verifier_error"), result
    assert "timed out after 3s" in result["error"], result["error"]
    assert result["verdict_file"] is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_verifier_killed_after_writing_its_reward_has_no_verdict(scratch, backend):
    """On main: reward 1.0 from a verifier that died of SIGKILL right after writing it."""
    task = _task(scratch, "killed", lambda root: unfinished_verifier_task(root, "killed"))
    result = _one(scratch, "verifier-killed", backend, task, None, agent="nop")
    assert (result["reward"], result["failure_mode"]) == (0.0, "verifier_error"), result
    assert "the verifier was killed (exit status 137, signal 9)" in result["error"], result["error"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_agent_code_that_kills_the_verifier_after_forging_the_verdict_scores_nothing(scratch, backend):
    """The agent's start.sh, run by the verifier, writes a perfect verdict and SIGKILLs the verifier. On main: 1.0."""
    task = _task(scratch, "service", service_task)
    result = _one(scratch, "kill-verifier", backend, task, start_sh(KILL_VERIFIER))
    assert result["reward"] == 0.0, result
    assert result["failure_mode"] in ("verifier_error", "none"), result


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reward_file_swapped_for_a_directory_does_not_hand_over_to_harbor_files(scratch, backend):
    """The agent's start.sh makes reward.txt a directory and writes Harbor's /logs/verifier/reward.*; the verifier's
    own write fails. On main the harness fell back to Harbor's files for this matchmeter task: 1.0."""
    task = _task(scratch, "service", service_task)
    result = _one(scratch, "reward-dir", backend, task, start_sh(REWARD_DIR_SWAP))
    assert result["reward"] == 0.0, result
    assert result["verdict_file"] in (None, "reward.txt"), result


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_harness_records_which_file_it_read(scratch, backend):
    task = _task(scratch, "service", service_task)
    result = _one(scratch, "honest", backend, task, ["cp data/input.txt out.txt"])
    assert (result["reward"], result["failure_mode"], result["verdict_file"]) == (1.0, "none", "reward.txt"), result


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_repository_cannot_steer_the_verifiers_git_into_running_a_program(scratch, backend):
    """.git/config untouched; a commondir points git at a copy whose config defines a clean filter, applied to
    every file by its info/attributes: the verifier's `git status` (verifylib.git) runs the agent's script, which
    writes a perfect verdict and makes it read-only. On main: 1.0, failure mode none."""
    task = _task(scratch, "git", verifylib_git_task)
    nop = _one(scratch, "git-nop", backend, task, None, agent="nop")
    result = _one(scratch, "git-commondir", backend, task, git_commondir_filter())
    assert result["reward"] <= nop["reward"], result
    assert result["failure_mode"] == "none", result  # git refused the repository; the verifier finished


@pytest.mark.parametrize("backend", BACKENDS)
def test_replayed_sql_cannot_run_a_shell_command(scratch, backend):
    """The suite's sqlite-order-totals replays the agent's migration file; a `.shell` line in it ran the agent's
    script in the verifier, which wrote a perfect verdict and made it read-only. On main: 1.0."""
    task = SUITE / "sqlite-order-totals"
    nop = _one(scratch, "sql-nop", backend, task, None, agent="nop")
    result = _one(scratch, "sql-shell", backend, task, sql_shell_escape())
    assert result["reward"] <= nop["reward"], result


@pytest.mark.parametrize("backend", BACKENDS)
def test_nothing_the_agent_writes_outside_the_workspace_survives_into_the_verifier(scratch, backend):
    """A file in every directory the agent's uid may write outside /app (/run/lock = /var/lock, /dev/shm,
    /dev/mqueue and any other the image has); the verifier scores 1 when one survived. On main, docker: 1.0
    (/run/lock is in the container's own layer and survived the restart)."""
    task = _task(scratch, "leftover", leftover_task)
    outcome = mm_run(scratch, scratch.name(f"leftover-{backend}"), backend, task, [PLANT_EVERYWHERE],
                     bound_s=FIRST_RUN_BOUND_S)
    assert outcome.returncode == 0, redact(outcome.stderr)
    planted = outcome.outputs()
    assert "planted in /dev/shm" in planted, planted  # the plant ran; every such dir must come back fresh
    assert outcome.result["reward"] == 0.0, (outcome.result, planted)


@pytest.mark.parametrize("backend", BACKENDS)
def test_agent_code_the_verifier_runs_cannot_write_the_verdict(scratch, backend):
    """The agent's start.sh, run by the verifier (verifylib.start_service, as the suite's service tasks do), writes
    a perfect reward.txt and makes /logs read-only, so the verifier's own write fails and it exits 1. On main (and
    with only the finished-verifier rule) it ran as the verifier's identity: 1.0. Now it runs as the agent's uid,
    which cannot write /logs."""
    task = _task(scratch, "service", service_task)
    result = _one(scratch, "verdict-from-start-sh", backend, task, start_sh(READONLY_VERDICT + "id -u > /app/ran-as\n"))
    assert (result["reward"], result["failure_mode"]) == (0.0, "none"), result["error"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_agent_code_cannot_read_the_tests_or_signal_the_verifier(scratch, backend):
    """start.sh tries to read the uploaded tests, to kill every process it can see and to write /logs; the verifier
    finishes and its own verdict (0: no out.txt) stands. On main `kill -KILL -1` killed the verifier and start.sh's
    reward.txt (1.0) was read."""
    task = _task(scratch, "service", service_task)
    probe = ("cat /tests/verify.py > /app/stolen 2>&1; ls /tests >> /app/stolen 2>&1; kill -KILL -1; "
             "echo 1.0 > /logs/reward.txt; true\n")
    outcome = mm_run(scratch, scratch.name(f"probe-identity-{backend}"), backend, task, start_sh(probe))
    assert (outcome.result["reward"], outcome.result["failure_mode"]) == (0.0, "none"), outcome.result
    log = next(outcome.out.glob("executions/*/logs/verifier.log")).read_text()
    assert "stolen:" in log, log[-500:]  # start.sh ran
    assert "verifylib" not in log.partition("stolen:")[2], log[-800:]  # neither the tests' text nor their names


class _Canary(http.server.BaseHTTPRequestHandler):
    token = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = self.token.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _serve(address: str, token: str) -> http.server.ThreadingHTTPServer:
    handler = type("Canary", (_Canary,), {"token": token})
    server = http.server.ThreadingHTTPServer((address, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _outside_address() -> str:
    """The host's address on its default route (not loopback): what "the outside world" is on this machine."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.250", 9))  # no packet is sent: only the route is looked up
        return str(s.getsockname()[0])


@pytest.fixture(scope="module")
def canaries():
    inside, outside = f"mm-loopback-{secrets.token_hex(6)}", f"mm-outside-{secrets.token_hex(6)}"
    loop, out = _serve("127.0.0.1", inside), _serve(_outside_address(), outside)
    yield {"loopback_port": loop.server_address[1], "loopback_token": inside,
           "outside": f"{out.server_address[0]}:{out.server_address[1]}", "outside_token": outside}
    loop.shutdown()
    out.shutdown()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_network_on_task_cannot_reach_the_hosts_loopback(scratch, backend, canaries):
    """A canary server on the host's 127.0.0.1, fetched with curl, python's urllib and bash's /dev/tcp, directly and
    through slirp's host alias 10.0.2.2. On main, bwrap shared the host's network namespace: all three fetched it.
    The network itself still works: a server on the host's outside address answers."""
    task = _task(scratch, "network", lambda root: write_task(root, "network-on", toml_extra="\n[environment]\nnetwork = true\n"))
    port = canaries["loopback_port"]
    fetch = []
    for host in ("127.0.0.1", "10.0.2.2"):
        fetch += [f"curl -s -m 3 http://{host}:{port}/; true",
                  f"python3 -c \"import urllib.request; print(urllib.request.urlopen('http://{host}:{port}/', timeout=3).read())\"; true",
                  f"timeout 3 bash -c 'exec 3<>/dev/tcp/{host}/{port}; printf \"GET / HTTP/1.0\\r\\n\\r\\n\" >&3; cat <&3'; true"]
    outcome = mm_run(scratch, scratch.name(f"loopback-{backend}"), backend, task,
                     [*fetch, f"curl -s -m 5 http://{canaries['outside']}/; true"], bound_s=FIRST_RUN_BOUND_S)
    assert outcome.returncode == 0, redact(outcome.stderr)
    out = outcome.outputs()
    assert canaries["outside_token"] in out, out[-1500:]  # the network is on
    assert canaries["loopback_token"] not in out, out[-1500:]
