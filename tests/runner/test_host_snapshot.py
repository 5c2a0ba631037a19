"""bwrap's protected-state snapshot read from the host (host_snapshot.py) against the snapshot script run inside the
same sandbox as the agent: the same dict on a workspace an adversarial agent arranged (hostile names, links out of
the sandbox, FIFOs, files and directories it made unreadable, files root owns), never root's reach lent to a
file, and the in-sandbox script wherever the host cannot answer as it would."""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from pathlib import Path

import pytest

from matchmeter.runner.sandbox import SandboxRequest, get_backend, host_snapshot

pytestmark = pytest.mark.bwrap

# What the agent leaves in the workspace, made by the agent's own uid inside the sandbox.
AGENT_TREE = r"""
set -e
mkdir -p t/a/b/c t/closed_dir t/xonly t/ronly t/deep
printf one > t/a/one; printf two > t/a/b/two; printf three > t/a/b/c/three; : > t/empty
printf nl > "t/new
line"; printf q > 't/qu"ote'; printf bs > 't/back\slash'; printf u > "t/$(printf '\xff\xfe')-undecodable"
printf c > "t/café 日本 😀"; printf dash > t/-dash; printf sp > "t/ spaced "; printf dot > t/.hidden
ln -s /etc t/l_etc; ln -s /etc/passwd t/l_passwd; ln -s a t/l_rel; ln -s /nowhere t/dangling; ln -s ../.. t/up
mkfifo t/fifo
ln t/a/one t/hard
truncate -s 300M t/sparse_big
printf closed > t/closed_file; chmod 000 t/closed_file
printf inner > t/closed_dir/f; chmod 000 t/closed_dir
printf x > t/xonly/f; chmod 111 t/xonly
printf r > t/ronly/f; mkdir t/ronly/sub; printf rs > t/ronly/sub/g; chmod 444 t/ronly
d=t/deep; for i in $(seq 40); do d="$d/$i"; done; mkdir -p "$d"; printf bottom > "$d/f"
for i in $(seq 300); do printf "$i" > "t/a/many-$i"; done
"""

PATH_SETS = [
    ["t"], ["/app/t"], ["/app"], ["."], ["t/a/b/c/three", "t/a"], ["t/missing", "/app/t/missing/x"],
    ["t/closed_dir/f"], ["t/xonly/f"], ["t/ronly/f"], ["t/fifo", "t/l_etc", "t/l_passwd", "t/dangling"],
    ["t/closed_file", "t/root_only", "t/root_group", "t/other_readable"], ["t/sparse_big"], ["t/a/one", "t/hard"],
]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    backend = get_backend("bwrap")
    backend.preflight()
    sb = backend.create(SandboxRequest(task_id="host-snapshot", environment_dir=tmp_path_factory.mktemp("env") / "none",
                                       label=f"hsnap-{secrets.token_hex(3)}"))
    done = sb.exec(AGENT_TREE, 60)
    assert done.exit_code == 0, done.output
    # Files the agent cannot read, put there by root on the host (as a root setup step or the image could).
    t = sb.dirs.app / "t"
    for name, mode, owner in (("root_only", 0o600, (0, 0)), ("root_group", 0o640, (0, 0)),
                              ("other_readable", 0o604, (0, 0))):
        (t / name).write_text(name)
        os.chown(t / name, *owner)
        (t / name).chmod(mode)
    yield sb
    sb.destroy()


@pytest.mark.parametrize("paths", PATH_SETS, ids=["|".join(p) for p in PATH_SETS])
def test_the_host_reads_what_the_script_inside_reads(sandbox, paths):
    from_host = host_snapshot.snapshot(paths, sandbox.dirs.app, "/app", _identity(sandbox))
    assert from_host is not None, "the host walker declined a path it can read"
    assert from_host == sandbox.snapshot_inside(paths)
    assert sandbox.snapshot(paths) == from_host


def test_what_the_agent_cannot_read_is_unreadable_and_links_and_fifos_are_not_entries(sandbox):
    snap = sandbox.snapshot(["t"])
    for name in ("closed_file", "root_only", "root_group"):
        assert snap[f"t/{name}"] == "unreadable: Permission denied", name
    assert snap["t/other_readable"] == hashlib.sha256(b"other_readable").hexdigest()
    assert snap["t/sparse_big"].startswith("unverifiable: 314572800 bytes")
    assert not {k for k in snap if k.split("/")[1] in {"l_etc", "l_passwd", "l_rel", "dangling", "up", "fifo"}}
    assert not any(k.startswith(("t/closed_dir/", "t/xonly/", "t/ronly/")) for k in snap)  # unlistable or unsearchable
    assert snap["t/new\nline"] == hashlib.sha256(b"nl").hexdigest()
    assert snap["t/\udcff\udcfe-undecodable"] == hashlib.sha256(b"u").hexdigest()
    assert snap["t/deep/" + "/".join(str(i) for i in range(1, 41)) + "/f"] == hashlib.sha256(b"bottom").hexdigest()
    assert len([k for k in snap if k.startswith("t/a/many-")]) == 300


def test_the_callers_own_credentials_are_untouched(sandbox):
    """The agent's credentials live and die in the walker's thread: the harness still reads as root after."""
    if os.geteuid() != 0:
        pytest.skip("credentials are only taken when the harness is root")
    groups = os.getgroups()
    assert host_snapshot.snapshot(["t/root_only"], sandbox.dirs.app, "/app", _identity(sandbox)) == {
        "t/root_only": "unreadable: Permission denied"}
    assert os.getgroups() == groups
    assert (sandbox.dirs.app / "t" / "root_only").read_text() == "root_only"
    seen = []
    worker = threading.Thread(target=lambda: seen.append((sandbox.dirs.app / "t" / "root_only").read_text()))
    worker.start()
    worker.join()
    assert seen == ["root_only"]


def test_a_link_on_the_way_to_a_protected_path_is_left_to_the_sandbox(sandbox):
    """t/l_rel -> a: the script follows it inside the sandbox; the host must not resolve it on the host."""
    paths = ["t/l_rel/b", "t/up/etc/passwd", "t/l_etc/passwd"]
    assert host_snapshot.snapshot(paths, sandbox.dirs.app, "/app", _identity(sandbox)) is None
    inside = sandbox.snapshot_inside(paths)
    assert sandbox.snapshot(paths) == inside
    assert inside["t/l_rel/b/two"] == hashlib.sha256(b"two").hexdigest()
    assert "t/l_etc/passwd" in inside  # the sandbox's own /etc/passwd, never the host's
    assert host_snapshot.snapshot(["/etc/passwd"], sandbox.dirs.app, "/app", None) is None
    assert host_snapshot.snapshot(["t/../t"], sandbox.dirs.app, "/app", None) is None


def test_refused_thread_credentials_fall_back_to_the_script(sandbox, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("credentials are only taken when the harness is root")
    monkeypatch.setattr(host_snapshot, "_SETGROUPS_SYSCALL", {})
    assert host_snapshot.snapshot(["t"], sandbox.dirs.app, "/app", _identity(sandbox)) is None
    calls = []
    real = sandbox.exec
    monkeypatch.setattr(sandbox, "exec", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert sandbox.snapshot(["t/a/one"]) == {"t/a/one": hashlib.sha256(b"one").hexdigest()}
    assert len(calls) == 1  # the script ran inside


def test_the_snapshot_costs_no_exec_and_deep_trees_end_in_one_entry(sandbox, monkeypatch, tmp_path):
    calls = []
    real = sandbox.exec
    monkeypatch.setattr(sandbox, "exec", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert sandbox.snapshot(["t/a/one"]) == {"t/a/one": hashlib.sha256(b"one").hexdigest()}
    held, before = sandbox.empty_then_snapshot(sandbox.layout["tests"], ["t/a/one"])
    assert (held, before) == ("", {"t/a/one": hashlib.sha256(b"one").hexdigest()})
    assert calls == []  # $MM_TESTS emptied from the host too
    monkeypatch.setattr(host_snapshot, "MAX_DEPTH", 5)
    snap = sandbox.snapshot(["t/deep"])
    assert snap == {"t/deep/1/2/3/4/5/6": "unverifiable: more than 5 nested directories"}


def _identity(sandbox) -> tuple[int, int] | None:
    return (sandbox.uid, sandbox.uid) if os.geteuid() == 0 else None


def test_paths_it_cannot_place_are_declined(tmp_path: Path):
    for given in ("", "t/", "./t", "//app/t", "/app//t", "/other/t", "/app/../etc"):
        assert host_snapshot.snapshot([given], tmp_path, "/app", None) is None, given


def test_huge_directories_and_the_time_cap_end_in_one_entry_each(sandbox, monkeypatch):
    """A listing is held in the harness's memory, and a tree of empty directories has no file where the time cap
    would be checked: both end in one `unverifiable` entry for the directory, in the harness, not a walk without
    end."""
    monkeypatch.setattr(host_snapshot, "MAX_LISTING", 100)
    snap = sandbox.snapshot(["t/a"])
    assert snap == {"t/a": "unverifiable: more than 100 entries"}  # 300 many-* files and more
    monkeypatch.setattr(host_snapshot, "MAX_LISTING", 1000)
    monkeypatch.setattr(host_snapshot, "SNAPSHOT_TIME_CAP_S", -1.0)
    assert sandbox.snapshot(["t/deep", "t/a/one"]) == {"t/deep": "unverifiable: snapshot time cap",
                                                      "t/a/one": "unverifiable: snapshot time cap"}


def test_a_removal_that_fails_is_named_not_a_sandbox_error(sandbox, monkeypatch):
    """Emptying $MM_TESTS from the host ignores a removal that fails (a setup process still writing there), as the
    in-sandbox `rm -rf … 2>/dev/null` does: the names listed make the trial flag it, and the trial goes on."""
    from matchmeter.runner.sandbox import bwrap

    tests = sandbox.dirs.tests
    (tests / "stuck").mkdir()
    (tests / "stuck" / "f").write_text("x")
    (tests / "gone.txt").write_text("y")

    def refuse(*args, **kwargs):
        raise OSError(39, "Directory not empty")

    monkeypatch.setattr(bwrap.shutil, "rmtree", refuse)
    held, snap = sandbox.empty_then_snapshot(sandbox.layout["tests"], ["t/a/one"])
    assert held.split("\n") == ["gone.txt", "stuck"]
    assert snap == {"t/a/one": hashlib.sha256(b"one").hexdigest()}
    assert sorted(p.name for p in tests.iterdir()) == ["stuck"]  # the file went; the refused directory stayed
    monkeypatch.undo()
    assert sandbox.empty_then_snapshot(sandbox.layout["tests"], [])[0] == "stuck"
    assert list(tests.iterdir()) == []
