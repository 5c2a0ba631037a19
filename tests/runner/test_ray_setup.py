"""Ray without surprises, outside the shared test cluster: one task packing for every executor (a link in a
task is refused the same way by local and Ray runs; a worker's logs never follow a link), an unreachable
address is one line, no address starts a local instance that is gone afterwards, and `ray node-args`."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")

from matchmeter.runner.ray_executor import _pack_regular  # noqa: E402
from matchmeter.runner.store import RunStore  # noqa: E402
from tests.helpers.tasks import write_task  # noqa: E402
from tests.helpers.warm_cli import run_matchmeter  # noqa: E402


def test_an_outward_link_is_refused_identically_by_both_executors(tmp_path):
    task = write_task(tmp_path / "tasks")
    (task / "tests" / "passwd").symlink_to("/etc/passwd")
    seen = []
    for executor in ("local", "ray"):
        out = tmp_path / f"run-{executor}"
        proc = run_matchmeter("run", "--agent", "oracle", "--tasks", task, "--backend", "bwrap", "--executor", executor,
                              "--out", out, "--quiet", timeout=120)
        assert proc.returncode == 2, proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, proc.stderr
        assert "tests/passwd is a symbolic link (to /etc/passwd)" in lines[0]
        assert not out.exists()  # refused before any run directory is written
        seen.append(lines[0])
    assert seen[0] == seen[1]


def test_a_workers_logs_pack_leaves_links_and_fifos_out(tmp_path):
    logs = tmp_path / "logs"
    (logs / "agent").mkdir(parents=True)
    (logs / "agent" / "out.txt").write_text("hello")
    (logs / "agent" / "secret").symlink_to("/etc/passwd")
    (logs / "dirlink").symlink_to("/etc")
    os.mkfifo(logs / "pipe")
    with tarfile.open(fileobj=io.BytesIO(_pack_regular(logs)), mode="r:gz") as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert sorted(members) == ["agent", "agent/out.txt"]
    assert all(m.isfile() or m.isdir() for m in members.values())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("address", ["closed-port", "192.0.2.1:6379"])  # nothing listens / TEST-NET, no answer
def test_an_unreachable_ray_address_is_one_line_and_exit_2(tmp_path, address):
    address = f"127.0.0.1:{_free_port()}" if address == "closed-port" else address
    task = write_task(tmp_path / "tasks")
    out = tmp_path / "run"
    proc = run_matchmeter("run", "--agent", "oracle", "--tasks", task, "--backend", "bwrap", "--executor", "ray",
                          "--ray-address", address, "--out", out, "--quiet", timeout=30)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr  # none of Ray's own log lines
    assert f"cannot reach a Ray cluster at {address}" in lines[0]
    assert not out.exists()


def test_no_address_runs_the_plan_on_a_local_instance_that_is_gone_afterwards(tmp_path):
    """Ray's convention: no address and no cluster running here starts a local instance; its node offers the
    run's backend (and the engine, which answers here), and it stops with the run."""
    temp = Path(tempfile.mkdtemp(prefix="mmrl-", dir="/tmp"))  # short: Ray's socket paths live under it
    token_file = Path.home() / ".ray" / "auth_token"
    had_token = token_file.exists()
    try:
        tasks = tmp_path / "tasks"
        write_task(tasks, "copy-a")
        out = tmp_path / "run"
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | {"RAY_TMPDIR": str(temp)}
        proc = subprocess.run([sys.executable, "-m", "matchmeter.cli", "run", "--tasks", str(tasks), "--agent",
                               "oracle", "--backend", "bwrap", "--seeds", "2", "--executor", "ray", "--out", str(out),
                               "--quiet"], capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert {(r.reward, r.backend) for r in RunStore(out).iter_results()} == {(1.0, "bwrap")}
        assert len(list(RunStore(out).iter_results())) == 2
        assert list(temp.rglob("session_*")), "the local instance did not run under RAY_TMPDIR"
        assert _processes_mentioning(str(temp)) == []
        assert token_file.exists() == had_token  # its auth token went by environment, not into ~/.ray
    finally:
        for pid in _processes_mentioning(str(temp)):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if text.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def test_node_args_declares_the_backends_that_pass_their_preflight_here():
    proc = run_matchmeter("ray", "node-args", "--backend", "bwrap", "--address", "10.0.0.1:6379", timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip()
    assert line.startswith("ray start --address 10.0.0.1:6379 --resources '")
    declared = json.loads(line.split("--resources ", 1)[1].strip("'"))
    assert declared["backend_bwrap"] == 1000
    assert ("docker_engine" in declared) == (subprocess.run(["docker", "version"], capture_output=True).returncode == 0)


RECORD = """
import os, sys, tempfile
from pathlib import Path
from matchmeter.runner.ray_leftovers import Registry, staging_prefix
Registry(Path(sys.argv[1])).record(sys.argv[2], "bwrap")
Path(tempfile.mkdtemp(prefix=staging_prefix())).joinpath("logs").mkdir()
"""


def _workspace(label: str, tag: str) -> Path:
    """A bwrap sandbox's temp tree as the backend names it (what policy.prune_workspaces looks for)."""
    from matchmeter.runner.sandbox import policy

    tree = Path(tempfile.gettempdir()) / f"{policy.TEMP_PREFIX}{policy.safe_label(label)}-{tag}"
    (tree / "app").mkdir(parents=True)
    return tree


def test_a_new_worker_prunes_what_dead_workers_left_but_not_a_live_siblings_sandboxes(tmp_path):
    from matchmeter.runner.ray_leftovers import Registry, staging_prefix
    from matchmeter.runner.sandbox import get_backend

    registry = tmp_path / "registry"
    dead_only, shared = f"run-dead-{os.getpid()}", f"run-shared-{os.getpid()}"
    for label in (dead_only, shared):  # two killed workers (their processes ended without cleaning up)
        subprocess.run([sys.executable, "-c", RECORD, str(registry), label], check=True)
    Registry(registry).record(shared, "bwrap")  # a live worker (this process) still runs `shared`
    dead_pids = [int(p.stem) for p in registry.glob("*.json") if int(p.stem) != os.getpid()]
    staging = [p for pid in dead_pids for p in Path(tempfile.gettempdir()).glob(f"{staging_prefix(pid)}*")]
    assert len(staging) == 2
    gone, kept = _workspace(dead_only, "aaaaaaaa"), _workspace(shared, "bbbbbbbb")
    try:
        removed = Registry(registry).prune_dead(lambda label, backend: get_backend(backend).prune(label))
        assert removed == 3  # two staging dirs and the dead-only run's sandbox tree
        assert not any(p.exists() for p in staging)
        assert not gone.exists()
        assert kept.exists()  # its label is still in use by a live worker here
        assert sorted(p.stem for p in registry.glob("*.json")) == [str(os.getpid())]
    finally:
        shutil.rmtree(gone, ignore_errors=True)
        shutil.rmtree(kept, ignore_errors=True)
