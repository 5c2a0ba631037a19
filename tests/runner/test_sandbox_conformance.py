"""One conformance suite every sandbox backend passes; what a backend cannot do is a declared gap.

Most tests share one module-scoped sandbox per backend (docker containers are slow to make); the
lifecycle tests (destroy, Ctrl-C, network on) create their own. Host processes are found by a unique
`sleep <token>` argument in /proc, which sees into bwrap's and docker's pid namespaces alike.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import signal
import socket
import time
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import SandboxRequest, get_backend

# Known gaps per backend, checked against the declared capabilities below so the list cannot drift.
GAPS: dict[str, set[str]] = {
    "local": {"isolated", "network_control", "resource_limits"},
    "bwrap": {"resource_limits"},
    "docker": set(),
}
PAYLOAD = "a \"dq\" 'sq' $HOME ${X:-y} `id` $(id) \\ \\n \\\\ ; | & * ? ~ # ! \t tab\nsecond line\n  trailing  "
GENEROUS_S = 15.0  # a bound for "returned promptly" that no loaded CI box should hit


@pytest.fixture(scope="module")
def docker_base_image():
    from matchmeter.runner.sandbox.baseimage import build_base_image

    return build_base_image()  # ~50 s once per machine; a no-op when the image exists


@pytest.fixture(
    scope="module",
    params=[pytest.param("bwrap", marks=pytest.mark.bwrap), pytest.param("docker", marks=pytest.mark.docker), "local"],
)
def backend(request):
    if request.param == "docker":
        request.getfixturevalue("docker_base_image")
    b = get_backend(request.param)
    b.preflight()
    return b


def make_request(tmp: Path, label: str, **kw) -> SandboxRequest:
    return SandboxRequest(task_id="conformance", environment_dir=tmp / "no-environment", label=label, **kw)


@pytest.fixture(scope="module")
def sandbox(backend, tmp_path_factory):
    sb = backend.create(make_request(tmp_path_factory.mktemp("env"), f"conf-{secrets.token_hex(3)}", env={"REQ": "r1", "BOTH": "req"}))
    yield sb
    sb.destroy()


def layout(sb) -> dict[str, str]:
    out = sb.exec('printf "%s\\n%s\\n%s" "$MM_APP" "$MM_TESTS" "$MM_LOGS"', 10).output.split("\n")
    return {"app": out[0], "tests": out[1], "logs": out[2]}


def host_pids_with(token: str) -> list[int]:
    """Host pids whose command line mentions token (works across pid namespaces: /proc is the host's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if token.encode() in cmdline and state != "Z" and entry.name != str(os.getpid()):
                found.append(int(entry.name))
    return found


def wait_until(predicate, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def skip_if_gap(backend, gap: str) -> None:
    if gap in GAPS[backend.name]:
        pytest.skip(f"declared gap: {backend.name} is not {gap}")


# ---------------------------------------------------------------- exec


def test_capabilities_match_declared_gaps(backend):
    caps = backend.capabilities
    assert {flag for flag in ("isolated", "network_control", "resource_limits") if not getattr(caps, flag)} == GAPS[backend.name]
    assert caps.persistent_processes is True


def test_agent_code_cannot_gain_privileges_through_setuid(backend, sandbox):
    """no_new_privs on every agent exec of an isolated backend: a setuid-root binary of the image runs with the
    agent's own uid (the restart's proof that no agent process is left is by uid)."""
    skip_if_gap(backend, "isolated")
    out = sandbox.exec("grep -E '^(NoNewPrivs|CapEff):' /proc/self/status | tr -s '\\t\\n' '  '; id -u", 10)
    fields = out.output.split()
    assert fields[:4] == ["CapEff:", "0000000000000000", "NoNewPrivs:", "1"], out.output
    assert fields[4] != "0", out.output


def test_exec_output_exit_code_and_cwd(sandbox):
    result = sandbox.exec('echo out; echo err >&2; pwd; printf "%s" "$MM_APP"; exit 7', 10)
    assert result.output == f"out\nerr\n{sandbox.app_dir}\n{sandbox.app_dir}"
    assert (result.exit_code, result.timed_out) == (7, False)
    assert 0 < result.duration_s < GENEROUS_S


def test_stdout_and_stderr_are_interleaved_in_order(sandbox):
    result = sandbox.exec("for i in 1 2 3; do echo o$i; echo e$i >&2; done", 10)
    assert result.output == "o1\ne1\no2\ne2\no3\ne3\n"


def test_undecodable_output_is_replaced_not_fatal(sandbox):
    result = sandbox.exec(r"printf 'ok\377\376end'", 10)
    assert result.output == "ok\ufffd\ufffdend"


def test_command_reaches_bash_as_one_exact_argv_element(sandbox):
    printed = sandbox.exec(f"printf %s {shlex.quote(PAYLOAD)}", 10)
    assert printed.output == PAYLOAD
    heredoc = sandbox.exec(f"cat <<'MMEOF'\n{PAYLOAD}\nMMEOF", 10)
    assert heredoc.output == PAYLOAD + "\n"
    # bash's own argv ends with ["-c", command], byte for byte.
    command = f"cat /proc/$$/cmdline; : {shlex.quote(PAYLOAD)}"
    argv = sandbox.exec(command, 10).output.split("\0")
    assert argv[-3:] == ["-c", command, ""]


def test_env_layers_request_call_and_layout(sandbox):
    result = sandbox.exec(
        'printf "%s|%s|%s|%s" "$REQ" "$CALL" "$BOTH" "$MM_APP"; test -d "$MM_TESTS" && touch "$MM_LOGS/w" && test -f "$MM_LOGS/w"',
        10, env={"CALL": "c1", "BOTH": "call", "MM_APP": "/elsewhere"},
    )
    assert result.output == f"r1|c1|call|{sandbox.app_dir}"
    assert result.exit_code == 0
    assert sandbox.exec('printf "%s" "${CALL-unset}"', 10).output == "unset"  # per-call env does not stick


# ---------------------------------------------------------------- timeouts and background processes


def test_timeout_kills_the_whole_group_and_returns_124(sandbox):
    token = f"{secrets.randbelow(10**6) + 10**6}.7"
    started = time.monotonic()
    result = sandbox.exec(f'sleep {token} & echo $! > "$MM_LOGS/bg.pid"; sleep {token}', 1.0)
    assert (result.exit_code, result.timed_out) == (124, True)
    assert 1.0 <= result.duration_s < GENEROUS_S
    assert time.monotonic() - started < GENEROUS_S
    assert wait_until(lambda: host_pids_with(token) == []), "foreground or background sleep survived the timeout"


def test_background_process_does_not_block_exec(sandbox):
    token = f"{secrets.randbelow(10**6) + 10**6}.3"
    for command in (f"sleep {token} &", f"nohup sleep {token} & disown", f"(sleep {token} &) ; echo started"):
        result = sandbox.exec(command, 20)
        assert result.timed_out is False, command
        assert result.exit_code == 0
    # A background `sleep` shows its own cmdline only once the forked child has exec'd, which may be after the
    # exec returned (seen on a loaded machine: 2 of 3 found): wait for all three rather than race them.
    assert wait_until(lambda: len(host_pids_with(token)) == 3), host_pids_with(token)


@pytest.mark.parametrize("redirect", [">/dev/null 2>&1", ""])
def test_background_service_persists_and_answers_on_loopback(sandbox, redirect):
    port = free_port()
    start = sandbox.exec(f"python3 -m http.server {port} --bind 127.0.0.1 {redirect} &", 20)
    assert (start.exit_code, start.timed_out) == (0, False)
    probe = (
        "import socket,time\n"
        "for _ in range(100):\n"
        "    try:\n"
        f"        s = socket.create_connection(('127.0.0.1', {port}), timeout=1); break\n"
        "    except OSError: time.sleep(0.1)\n"
        "s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); print(s.recv(12).decode())\n"
    )
    answer = sandbox.exec(f"python3 -c {shlex.quote(probe)}", 30)
    assert answer.output == "HTTP/1.0 200\n"
    curl = sandbox.exec(f"curl -s -o /dev/null -w '%{{http_code}}' http://127.0.0.1:{port}/", 20)
    assert curl.output == "200"


# ---------------------------------------------------------------- files


def test_upload_download_round_trip(sandbox, tmp_path):
    src = tmp_path / "src"
    (src / "nested").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\n")
    (src / "nested" / "bin.dat").write_bytes(bytes(range(256)))
    dirs = layout(sandbox)
    sandbox.upload(src, f"{dirs['app']}/up")
    sandbox.upload(src / "a.txt", f"{dirs['tests']}/deep/one.txt")
    assert sandbox.exec("cat up/a.txt; wc -c < up/nested/bin.dat; cat \"$MM_TESTS/deep/one.txt\"", 10).output == "alpha\n256\nalpha\n"
    # what is uploaded belongs to the user commands run as (they can change it), every entry of a tree too
    owners = sandbox.exec('stat -c %u up up/a.txt up/nested up/nested/bin.dat "$MM_TESTS/deep/one.txt"; id -u', 10).output.split()
    assert owners == [owners[-1]] * 6, owners
    sandbox.exec('cp up/a.txt "$MM_LOGS/out.txt"; mkdir -p made/x; printf z > made/x/z', 10)
    sandbox.download(f"{dirs['logs']}/out.txt", tmp_path / "back" / "out.txt")
    sandbox.download("up", tmp_path / "back-dir")  # relative paths are relative to the workspace
    sandbox.download(f"{dirs['app']}/made", tmp_path / "made")
    assert (tmp_path / "back" / "out.txt").read_text() == "alpha\n"
    assert (tmp_path / "back-dir" / "nested" / "bin.dat").read_bytes() == bytes(range(256))
    assert (tmp_path / "made" / "x" / "z").read_text() == "z"
    with pytest.raises(SandboxError):
        sandbox.download(f"{dirs['app']}/no-such-file", tmp_path / "nothing")
    with pytest.raises(SandboxError):
        sandbox.upload(tmp_path / "no-such-src", f"{dirs['app']}/x")


def test_upload_with_extra_files_lands_them_in_the_directory_in_place_of_its_own(sandbox, tmp_path, monkeypatch):
    """A task's tests/ with the suite's shared files beside them, as a trial uploads them: one copy in which an
    extra file replaces the directory's own at that name (a stale copy of verifylib.py must not win)."""
    src, shared = tmp_path / "tests", tmp_path / "shared"
    src.mkdir()
    shared.mkdir()
    (src / "test.sh").write_text("own test\n")
    (src / "verifylib.py").write_text("stale copy\n")
    (shared / "verifylib.py").write_text("shared copy\n")
    (shared / "setup.sh").write_text("shared setup\n")
    dirs = layout(sandbox)
    archives: list[str] = []
    docker = hasattr(sandbox, "container")
    if docker:  # the whole copy is one archive for the engine to unpack, not one per file
        real_put = sandbox.container.put_archive
        monkeypatch.setattr(sandbox.container, "put_archive",
                            lambda path, data: archives.append(path) or real_put(path, data))
    sandbox.upload(src, f"{dirs['tests']}/t", extra_files={"verifylib.py": shared / "verifylib.py",
                                                           "setup.sh": shared / "setup.sh"})
    assert len(archives) == (1 if docker else 0), archives
    out = sandbox.exec('cd "$MM_TESTS/t" && ls && cat test.sh verifylib.py setup.sh && stat -c %u . * && id -u', 10)
    lines = out.output.split("\n")
    assert lines[:6] == ["setup.sh", "test.sh", "verifylib.py", "own test", "shared copy", "shared setup"], out.output
    owners = [line for line in lines[6:] if line]
    assert owners == [owners[-1]] * 5, owners  # the directory, its three files, and the user commands run as
    with pytest.raises(SandboxError):
        sandbox.upload(src, f"{dirs['tests']}/u", extra_files={"gone.py": shared / "no-such-file"})


def test_snapshot_detects_created_modified_and_deleted_files(sandbox):
    app = sandbox.app_dir
    sandbox.exec("mkdir -p snap/sub && printf one > snap/a && printf two > snap/sub/b && printf three > snap/c", 10)
    before = sandbox.snapshot(["snap", f"{app}/snap/a", "missing-dir"])
    sha = lambda text: hashlib.sha256(text.encode()).hexdigest()  # noqa: E731
    assert before == {"snap/a": sha("one"), "snap/sub/b": sha("two"), "snap/c": sha("three"), f"{app}/snap/a": sha("one")}
    sandbox.exec("printf TWO > snap/sub/b && rm snap/c && printf four > snap/d", 10)
    after = sandbox.snapshot(["snap"])
    assert after == {"snap/a": sha("one"), "snap/sub/b": sha("TWO"), "snap/d": sha("four")}


# ---------------------------------------------------------------- isolation


def test_network_is_off_by_default(backend, sandbox):
    skip_if_gap(backend, "network_control")
    interfaces = sandbox.exec("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", 10).output.split()
    assert interfaces == ["lo"]


def test_network_on_when_requested(backend, tmp_path):
    skip_if_gap(backend, "network_control")
    sb = backend.create(make_request(tmp_path, "conf-net", network=True))
    try:
        interfaces = sb.exec("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", 10).output.split()
    finally:
        sb.destroy()
    assert "lo" in interfaces
    assert len(interfaces) >= 2


def test_writes_outside_the_workspace_never_reach_the_host(backend, sandbox):
    skip_if_gap(backend, "isolated")
    probe = Path(f"/var/lib/mm-probe-{secrets.token_hex(4)}")  # /tmp and /var/tmp are the sandbox's own tmpfs
    result = sandbox.exec(f"touch {probe} && echo wrote", 10)
    assert not probe.exists()
    for socket_path in ("/run/docker.sock", "/var/run/docker.sock"):  # the host engine would be an escape
        assert sandbox.exec(f"test -e {socket_path}", 10).exit_code == 1, socket_path
    if backend.name == "bwrap":  # the host filesystem itself is mounted read-only
        assert result.exit_code != 0
        assert "Read-only file system" in result.output
        for target in ("/etc/mm-probe", "/usr/mm-probe", "/root/mm-probe", "/mm-probe"):
            assert sandbox.exec(f"touch {target}", 10).exit_code != 0, target
        assert sandbox.exec("mount -o remount,rw /etc", 10).exit_code != 0  # capabilities are dropped


# ---------------------------------------------------------------- lifecycle


def test_destroy_removes_processes_dirs_and_containers(backend, tmp_path):
    label = f"conf-destroy-{secrets.token_hex(3)}"
    sb = backend.create(make_request(tmp_path, label))
    token = f"{secrets.randbelow(10**6) + 10**6}.9"
    sb.exec(f"sleep {token} >/dev/null 2>&1 & setsid sleep {token} >/dev/null 2>&1 &", 20)
    assert wait_until(lambda: len(host_pids_with(token)) == 2)
    host_root = getattr(sb, "dirs", None)
    sb.destroy()
    sb.destroy()  # idempotent
    assert wait_until(lambda: host_pids_with(token) == []), "a background process outlived destroy()"
    if host_root is not None:
        assert not host_root.root.exists()
    if backend.name == "docker":
        from matchmeter.runner.sandbox.baseimage import docker_client

        assert docker_client().containers.list(all=True, filters={"label": f"matchmeter.label={label}"}) == []
    with pytest.raises(SandboxError):
        sb.exec("true", 5)


def test_ctrl_c_during_exec_kills_the_command_and_destroys(backend, tmp_path):
    label = f"conf-sigint-{secrets.token_hex(3)}"
    sb = backend.create(make_request(tmp_path, label))
    token = f"{secrets.randbelow(10**6) + 10**6}.1"

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            sb.exec(f"sleep {token}", 60)
        assert time.monotonic() - started < GENEROUS_S
        assert wait_until(lambda: host_pids_with(token) == [])
        with pytest.raises(SandboxError):
            sb.exec("true", 5)  # the interrupt destroyed the sandbox before re-raising
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sb.destroy()


CHILD_RUNNER = """
import os, sys, time
from pathlib import Path
from matchmeter.runner.sandbox import SandboxRequest, get_backend
backend, label, token = sys.argv[1], sys.argv[2], os.environ["MM_TEST_TOKEN"]  # not in argv: /proc scans
sb = get_backend(backend).create(SandboxRequest(task_id="killed", environment_dir=Path("/nonexistent"), label=label))
sb.exec(f"sleep {token} >/dev/null 2>&1 &", 20)
print("ready", flush=True)
time.sleep(600)
"""


def test_leftovers_of_a_killed_runner_can_be_pruned_by_label(backend):
    """kill -9 of the runner: bwrap dies with it; docker and local leftovers are pruned by the run label."""
    import subprocess
    import sys

    label, token = f"conf-killed-{secrets.token_hex(3)}", f"{secrets.randbelow(10**6) + 10**6}.4"
    child = subprocess.Popen([sys.executable, "-c", CHILD_RUNNER, backend.name, label], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "MM_TEST_TOKEN": token})
    try:
        assert child.stdout.readline() == "ready\n"
        # `sleep … &` returns once forked; until the child execs, its cmdline is still the shell's: wait, don't race it
        assert wait_until(lambda: len(host_pids_with(token)) == 1)
    finally:
        child.kill()
        child.wait()
    if backend.name == "bwrap":
        assert wait_until(lambda: host_pids_with(token) == []), "bwrap sandbox outlived its runner"
    # the backend's own prune by label: bwrap its temp tree; docker its container; local the process and its tree
    assert backend.prune(label) == {"bwrap": 1, "docker": 1, "local": 2}[backend.name]
    assert wait_until(lambda: host_pids_with(token) == [])
    assert backend.prune(label) == 0


# ---------------------------------------------------------------- trustworthy trials (restart, halt, snapshot)


def test_restart_kills_every_process_and_gives_fresh_tests_and_logs(backend, tmp_path):
    sb = backend.create(make_request(tmp_path, f"conf-rs-{secrets.token_hex(3)}"))
    try:
        d = layout(sb)
        token = secrets.token_hex(6)
        sb.exec(f"echo keep > kept.txt; echo planted > {d['tests']}/x; echo forged > {d['logs']}/reward.txt; "
                f"echo home > $HOME/h; (exec -a mm-{token} sleep 300) >/dev/null 2>&1 &", 10)
        pattern = f"'mm-[{token[0]}]{token[1:]}'"  # a regex that does not match the pgrep exec's own command line
        assert wait_until(lambda: sb.exec(f"pgrep -f {pattern}", 10).exit_code == 0)
        sb.restart()
        assert sb.exec(f"pgrep -f {pattern}", 10).exit_code == 1  # gone from the sandbox
        assert sb.exec(f"ls -A {d['tests']} {d['logs']}", 10, as_verifier=True).output.split() == [
            f"{d['logs']}:", f"{d['tests']}:"]
        assert sb.exec("cat kept.txt", 10).output.strip() == "keep"  # the workspace survives
        if backend.name != "local":
            assert sb.exec("test -e $HOME/h", 10).exit_code == 1  # /tmp (HOME) is fresh
    finally:
        sb.destroy()
    if backend.name != "docker":
        assert host_pids_with(f"mm-{token}") == []


def test_after_restart_the_logs_and_tests_are_the_verifiers_and_agent_code_runs_as_the_agent(backend, tmp_path):
    """Issue 30: after restart() the verifier's identity alone writes $MM_LOGS and reads $MM_TESTS; a verifier exec
    drops to $MM_AGENT_UID with setpriv as verifylib does, and that code can neither write the logs nor signal the
    verifier; halt() kills the verifier's own processes too. Backends with one identity (local) declare it by
    leaving $MM_AGENT_UID unset."""
    sb = backend.create(make_request(tmp_path, f"conf-id-{secrets.token_hex(3)}"))
    try:
        d = layout(sb)
        sb.restart()
        agent = sb.exec("id -u", 10).output.strip()
        verifier = sb.exec('id -u; printf "%s\\n" "${MM_AGENT_UID:-none}"', 10, as_verifier=True).output.split()
        if backend.name == "local":
            assert verifier == [agent, "none"]
            return
        assert verifier[0] != agent, (agent, verifier)
        assert verifier[1] == agent, (agent, verifier)
        assert sb.exec(f"echo 1 > {d['logs']}/reward.txt", 10).exit_code != 0  # the agent cannot write the verdict
        assert sb.exec(f"ls {d['tests']}", 10).exit_code != 0  # nor read the tests
        drop = ('setpriv --reuid=$MM_AGENT_UID --regid=$MM_AGENT_UID --clear-groups --inh-caps=-all --ambient-caps=-all '
                '--bounding-set=-all --no-new-privs --')
        out = sb.exec(f"echo 0.25 > {d['logs']}/reward.txt; {drop} bash -c 'id -u; {{ echo 1 > {d['logs']}/reward.txt; }} "
                      "2>/dev/null || echo denied; kill -KILL $PPID 2>/dev/null || echo no-kill'; echo verifier-alive", 10,
                      as_verifier=True)
        assert out.output.split() == [agent, "denied", "no-kill", "verifier-alive"], out.output
        sb.exec("(sleep 300 &) ; (exec -a mm-verifier-left sleep 300) >/dev/null 2>&1 &", 10, as_verifier=True)
        sb.halt()
        assert sb.read_text(f"{d['logs']}/reward.txt") == "0.25\n"
        if backend.name == "docker":  # a halted bwrap sandbox has no namespace left to look in
            assert "mm-verifier-left" not in sb.exec("ps -eo args", 10).output
    finally:
        sb.destroy()


def test_file_kind_never_follows_a_link(backend, tmp_path):
    """The verdict reader's view of $MM_LOGS (issue 30): a reward file swapped for a dir, fifo or link, or put under
    a linked dir, is told apart from a regular file on every backend."""
    sb = backend.create(make_request(tmp_path, f"conf-kind-{secrets.token_hex(3)}"))
    try:
        logs = layout(sb)["logs"]
        sb.exec(f"cd {logs} && echo 1 > f && mkdir d && mkfifo p && ln -s f l && mkdir real && echo 1 > real/r && "
                "ln -s real linked", 10)
        kinds = {n: sb.file_kind(f"{logs}/{n}") for n in ("f", "d", "p", "l", "linked/r", "absent", "d/absent")}
    finally:
        sb.destroy()
    assert kinds == {"f": "file", "d": "dir", "p": "fifo", "l": "link", "linked/r": "other", "absent": None,
                     "d/absent": None}


@pytest.mark.docker
def test_docker_restart_revives_a_container_that_already_stopped(docker_base_image, tmp_path):
    """The memory cgroup's OOM killer may end the container's init during a flood; the engine then refuses a kill
    with 409, and restart must still bring the sandbox back rather than fail the trial as an infra error."""
    backend = get_backend("docker")
    backend.preflight()
    sb = backend.create(make_request(tmp_path, f"conf-dead-{secrets.token_hex(3)}"))
    try:
        sb.exec("echo keep > kept.txt", 10)
        sb.container.kill()  # what an OOM kill of the container's pid 1 leaves: a stopped container
        sb.container.reload()
        assert sb.container.status != "running"
        sb.restart()
        assert sb.exec("cat kept.txt", 10).output.strip() == "keep"
    finally:
        sb.destroy()


def test_halt_stops_processes_but_files_stay_readable(backend, tmp_path):
    sb = backend.create(make_request(tmp_path, f"conf-halt-{secrets.token_hex(3)}"))
    try:
        d = layout(sb)
        sb.exec(f"echo 0.5 > {d['logs']}/reward.txt; ln -s /etc/passwd {d['logs']}/link.txt", 10)
        # Written by rename: a kill between `>`'s truncate and its write would leave an empty file, a race of the
        # test's own making (seen once under load), not a halt that failed.
        sb.exec(f"(while true; do echo 1.0 > {d['logs']}/r.tmp && mv {d['logs']}/r.tmp {d['logs']}/reward.txt; "
                "sleep 0.01; done) >/dev/null 2>&1 &", 10)
        sb.halt()
        sb.halt()  # idempotent
        assert sb.read_text(f"{d['logs']}/reward.txt").strip() in {"0.5", "1.0"}
        time.sleep(0.2)
        settled = sb.read_text(f"{d['logs']}/reward.txt")
        time.sleep(0.2)
        assert sb.read_text(f"{d['logs']}/reward.txt") == settled  # nothing rewrites it any more
        assert sb.read_text(f"{d['logs']}/link.txt") is None  # never read through a link
        assert sb.read_text(f"{d['logs']}/absent") is None
    finally:
        sb.destroy()


def test_snapshot_skips_links_and_caps_huge_files(backend, sandbox):
    sandbox.exec("rm -rf snap && mkdir -p snap/d && echo a > snap/d/f && ln -s /etc snap/etc && ln -s /dev/zero snap/z", 10)
    snap = sandbox.snapshot(["snap"])
    assert set(snap) == {"snap/d/f"}
    assert snap["snap/d/f"] == hashlib.sha256(b"a\n").hexdigest()
    assert sandbox.snapshot(["absent-dir"]) == {}
    sandbox.exec("truncate -s 300M snap/big", 10)  # sparse: costs nothing to make, minutes to hash
    started = time.monotonic()
    assert sandbox.snapshot(["snap"])["snap/big"].startswith("unverifiable: 314572800 bytes")
    assert time.monotonic() - started < 10
    sandbox.exec("rm -f snap/big", 10)


def test_empty_then_snapshot_empties_the_dir_without_following_links(backend, tmp_path):
    """The step before the agent: whatever setup left in $MM_TESTS is named and gone (hidden files and subdirectories
    too), a link there is removed and its target kept, and the snapshot is snapshot()'s."""
    sb = backend.create(make_request(tmp_path, f"conf-empty-{secrets.token_hex(3)}"))
    try:
        d = layout(sb)
        sb.exec(f"echo keep > keep && cd {d['tests']} && echo t > test.sh && echo h > .hidden && mkdir -p sub/deep && "
                f"echo x > sub/deep/x && ln -s {d['app']}/keep link && ln -s {d['app']} dirlink", 10)
        held, snap = sb.empty_then_snapshot(d["tests"], ["keep"])
        assert sorted(held.split("\n")) == [".hidden", "dirlink", "link", "sub", "test.sh"]
        assert snap == sb.snapshot(["keep"]) == {"keep": hashlib.sha256(b"keep\n").hexdigest()}
        assert sb.exec(f"ls -A {d['tests']}; cat keep", 10).output == "keep\n"
        assert sb.empty_then_snapshot(d["tests"], []) == ("", {})
    finally:
        sb.destroy()


def test_file_size_limit_stops_giant_sparse_files(backend, sandbox):
    skip_if_gap(backend, "isolated")
    assert sandbox.exec("truncate -s 4T giant", 10).exit_code != 0
    assert sandbox.exec("test -e giant && stat -c %s giant || echo none", 10).output.strip() in {"none", "0"}


def test_restart_reports_what_the_agent_planted_and_snapshots_with_no_agent_process_left(backend, tmp_path):
    """restart(snapshot) (issue 35: one engine round trip on docker): the names the agent left in $MM_TESTS, and the
    protected state as it is once the agent's processes are gone: a writer still running when restart began cannot
    change what the snapshot says. A file the agent made unreadable reads as unreadable, as the agent's own snapshot
    before the agent ran would say, not as root sees it."""
    sb = backend.create(make_request(tmp_path, f"conf-rsnap-{secrets.token_hex(3)}"))
    try:
        d = layout(sb)
        sb.exec("mkdir -p p && echo one > p/a && echo two > p/b && echo secret > p/closed", 10)
        before = sb.snapshot([f"{d['app']}/p"])
        # p/a changes once before the writer goes to the background: under load the loop may not run before the
        # restart kills it, and the test is about a writer still running, not about the scheduler
        sb.exec(f"touch {d['tests']}/planted.py {d['tests']}/.hidden; rm p/b; chmod 000 p/closed; date +%N > p/a; "
                "(while :; do date +%N > p/a; done) >/dev/null 2>&1 &", 10)
        restarted = sb.restart([f"{d['app']}/p"])
        assert sorted(restarted.planted) == [".hidden", "planted.py"]
        assert set(restarted.after) == {f"{d['app']}/p/a", f"{d['app']}/p/closed"}
        assert restarted.after[f"{d['app']}/p/a"] != before[f"{d['app']}/p/a"]
        assert restarted.after == sb.snapshot([f"{d['app']}/p"])  # nothing wrote after it was taken
        if backend.name != "local":  # root on the host reads what the agent cannot; local runs as the harness
            assert restarted.after[f"{d['app']}/p/closed"].startswith("unreadable")
        assert sb.restart().planted == []  # a fresh $MM_TESTS holds nothing
    finally:
        sb.destroy()


def test_halt_reads_files_as_file_kind_and_read_text_do(backend, tmp_path):
    """halt(read=...) (the verdict's reads in the step that stops the verifier) says what file_kind and read_text
    say of every path, links never followed, at most `limit` bytes."""
    sb = backend.create(make_request(tmp_path, f"conf-hread-{secrets.token_hex(3)}"))
    try:
        logs = layout(sb)["logs"]
        sb.exec(f"cd {logs} && printf '0.75\\n' > f && printf 'caf\\xc3\\xa9 %s' $(seq 1000) > big && mkdir d && "
                "mkfifo p && ln -s f l && mkdir real && echo 1 > real/r && ln -s real linked && : > empty", 10)
        names = ("f", "big", "d", "p", "l", "linked/r", "absent", "d/absent", "empty")
        files = sb.halt([f"{logs}/{n}" for n in names], limit=100)
        kinds = {n: sb.file_kind(f"{logs}/{n}") for n in names}  # text only of a regular file (FileRead)
        expected = {f"{logs}/{n}": (k, sb.read_text(f"{logs}/{n}", 100) if k == "file" else None) for n, k in kinds.items()}
    finally:
        sb.destroy()
    assert {p: (f.kind, f.text) for p, f in files.items()} == expected
    assert files[f"{logs}/f"].text == "0.75\n"
    assert files[f"{logs}/empty"].text == ""
    assert 99 <= len(files[f"{logs}/big"].text.encode()) <= 102  # 100 bytes; a cut UTF-8 character reads as U+FFFD
    assert [files[f"{logs}/{n}"].kind for n in ("d", "p", "l", "linked/r", "absent")] == ["dir", "fifo", "link",
                                                                                          "other", None]


def test_restart_leaves_no_system_v_ipc_object_of_the_agent(backend, tmp_path):
    """A shared memory segment, message queue or semaphore the agent made lives in the IPC namespace, not in a
    process: the verifier must not find it (docker's in-place restart removes them, or restarts the container)."""
    skip_if_gap(backend, "isolated")
    sb = backend.create(make_request(tmp_path, f"conf-ipc-{secrets.token_hex(3)}"))
    try:
        made = sb.exec("ipcmk -M 4096 && ipcmk -Q && ipcmk -S 1", 10)
        assert made.exit_code == 0, made.output
        assert sb.exec("tail -n +2 /proc/sysvipc/shm | grep -c .", 10).output.strip() == "1"
        sb.restart()
        left = sb.exec("cat /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem | grep -vc '^ *key'", 10)
        assert left.output.strip() == "0", left.output
    finally:
        sb.destroy()


def test_halt_kills_a_process_whose_name_reads_like_a_zombie(backend, tmp_path):
    """A process named "x Z y" puts "Z" in the third space-separated field of /proc/PID/stat: a kill loop that read
    the state there took it for a zombie and left it running (docker's halt and in-place restart)."""
    skip_if_gap(backend, "isolated")
    sb = backend.create(make_request(tmp_path, f"conf-zname-{secrets.token_hex(3)}"))
    start = 'cp "$(command -v sleep)" "/tmp/x Z y" && ("/tmp/x Z y" 300 >/dev/null 2>&1 &)'
    try:
        sb.exec(start, 10)
        assert wait_until(lambda: "x Z y" in sb.exec("ps -eo comm", 10).output)
        sb.restart()
        assert "x Z y" not in sb.exec("ps -eo comm", 10).output
        sb.exec(start, 10, as_verifier=True)  # the verifier phase: what halt() must stop
        assert wait_until(lambda: "x Z y" in sb.exec("ps -eo comm", 10).output)
        sb.halt()
        if backend.name == "docker":  # a halted bwrap sandbox has no namespace left to look in
            assert "x Z y" not in sb.exec("ps -eo comm", 10).output
    finally:
        sb.destroy()
