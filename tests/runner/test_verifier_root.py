"""A Harbor-format task's test.sh runs as root in a writable root filesystem, as in Harbor's container (issue 34):
it installs its test tool from a local .deb, offline, then tests with it. The agent phase keeps a read-only root
and no uid 0, and nothing the agent plants for that root verifier runs (tests/helpers/root_verifier_task.py).

Real `matchmeter run` processes on bwrap (uid 0 in a user namespace over an overlay, rootphase.py) and docker (the
container's root), judged by what the run stores. Three runs per backend, shared by the tests: oracle, nop, and a
replay that plants code everywhere the root verifier might run it.
"""

from __future__ import annotations

import pytest

from tests.helpers.adversary import BOUND_S, SECRETS, Scratch, files_holding, mm_run, redact
from tests.helpers.root_verifier_task import PACKAGE, PLANT_BINS, plant_commands, write_root_verifier_task

pytestmark = pytest.mark.slow
BACKENDS = [pytest.param("bwrap", marks=pytest.mark.bwrap), pytest.param("docker", marks=pytest.mark.docker)]
XDIST_GROUP_BY = "backend"  # one worker per backend (tests/conftest.py)
# Paths the agent's uid may write on either backend; each must be fresh (or invisible) when the verifier runs.
FRESH_DIRS = ("/tmp/", "/var/tmp/", "/app/")


@pytest.fixture(scope="module")
def scratch():
    s = Scratch("rootv")
    yield s
    s.close()


@pytest.fixture(scope="module")
def task(scratch):
    return write_root_verifier_task(scratch.root / "tasks")


_RUNS: dict[tuple[str, str], object] = {}


def _run(scratch, task, backend: str, what: str):  # type: ignore[no-untyped-def]
    """One stored run per (backend, what), made once: `oracle`, `nop` or `plant` (the replay of plant_commands)."""
    key = (backend, what)
    if key not in _RUNS:
        agent, commands = {"oracle": ("oracle", None), "nop": ("nop", None), "plant": ("replay", plant_commands())}[what]
        outcome = mm_run(scratch, scratch.name(f"{what}-{backend}"), backend, task, commands, agent=agent,
                         bound_s=4 * BOUND_S)
        assert outcome.returncode == 0, redact(outcome.stderr)
        assert files_holding(outcome.out, list(SECRETS.values())) == [], "a harness secret reached a stored file"
        _RUNS[key] = outcome
    return _RUNS[key]


def _verifier_log(outcome) -> str:  # type: ignore[no-untyped-def]
    return next(outcome.out.glob("executions/*/logs/verifier.log")).read_text()


@pytest.mark.parametrize("backend", BACKENDS)
def test_test_sh_installs_its_tool_as_root_and_scores_oracle_one_nop_zero(scratch, task, backend):
    oracle, nop = _run(scratch, task, backend, "oracle"), _run(scratch, task, backend, "nop")
    for outcome, reward in ((oracle, 1.0), (nop, 0.0)):
        result = outcome.result
        assert (result["reward"], result["failure_mode"], result["verdict_file"]) == (
            reward, "none", "verifier/reward.txt"), result
        log = _verifier_log(outcome)
        assert "installed-by uid=0 preload=none" in log, log[-1500:]
        assert f"dpkg-status {PACKAGE} install ok installed" in log, log[-1500:]  # apt-get installed it, offline
    assert "answer-owner=agent" in _verifier_log(oracle)  # the oracle wrote it as the agent's uid, named so
    if backend == "bwrap":  # docker's default capabilities (no CAP_SYS_ADMIN, bit 21) and no_new_privs
        caps = _verifier_log(oracle).split("CapEff: ")[1].split()
        assert (int(caps[0], 16) >> 21) & 1 == 0, caps
        assert caps[1:3] == ["NoNewPrivs:", "1"], caps
        # pid 1 (the holder) can regain nothing if the verifier traces it and makes it exec
        assert "pid1-CapBnd:\t0000000000000000" in _verifier_log(oracle)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_agent_phase_has_a_read_only_root_no_uid_0_and_no_trace_of_earlier_installs(scratch, task, backend):
    """The oracle and nop runs installed the package as root; the next trial's agent does not see it (the overlay
    and the container went with their trials), is not uid 0, and cannot write /usr/bin."""
    _run(scratch, task, backend, "oracle")
    out = _run(scratch, task, backend, "plant").outputs()
    uid = int(out.split("agent-uid=")[1].split()[0])
    assert uid != 0, out[:500]
    assert "tool-absent" in out, out[:500]
    denied = "Read-only file system" if backend == "bwrap" else "Permission denied"
    assert f"touch: cannot touch '/usr/bin/mm-probe': {denied}" in out, out[:500]


@pytest.mark.parametrize("backend", BACKENDS)
def test_nothing_the_agent_plants_runs_in_the_root_verifier(scratch, task, backend):
    """A payload that forges Harbor's preferred reward.json, planted as every program test.sh and the package run
    (in every PATH dir, /app, /tmp), as .pth files and a shadowing module in site-packages, /etc/ld.so.preload, apt
    and dpkg hooks, bash start-up files and a dpkg maintainer script. Only the writes into /app and the tmp dirs
    succeed, and none of them runs: the verifier installs the real package and scores what the agent left (no
    answer: 0.0) from reward.txt."""
    outcome = _run(scratch, task, backend, "plant")
    out = outcome.outputs()
    planted = {line.split()[1] for line in out.splitlines() if line.startswith("planted ")}
    assert planted, out[-1000:]  # the plant ran
    assert all(path.startswith(FRESH_DIRS) for path in planted), sorted(planted)
    assert {p for p in PLANT_BINS if p.startswith("/app/")} <= planted  # what test.sh's cwd holds: never on PATH
    assert "/app/sitecustomize.py" in planted
    result = outcome.result
    log = _verifier_log(outcome)
    assert "PWNED" not in log, log[-2000:]
    assert "installed-by uid=0 preload=none" in log, log[-1500:]
    assert f"dpkg-status {PACKAGE} install ok installed" in log, log[-1500:]
    assert (result["reward"], result["failure_mode"], result["verdict_file"]) == (0.0, "none", "verifier/reward.txt"), result
