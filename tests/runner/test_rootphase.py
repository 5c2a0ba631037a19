"""rootphase.py's host-side pieces, without a sandbox: the namespace's id map and the shifted copy's owners."""

from __future__ import annotations

import os
import stat

import pytest

from matchmeter.runner.sandbox import rootphase

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown to other ids needs root (as bwrap's root verifier)")


def test_the_id_map_gives_the_agent_ns_1000_and_everything_else_the_unowned_range():
    rows = [tuple(map(int, line.split())) for line in rootphase.id_map(234_567).splitlines()]
    assert rows == [(0, 400_000, 1000), (1000, 234_567, 1), (1001, 401_001, 64_535)]
    assert sum(count for _, _, count in rows) == rootphase.ID_COUNT


def test_the_shifted_copy_moves_owners_and_keeps_setuid_bits_and_links(tmp_path):
    tree = tmp_path / "root"
    (tree / "usr" / "bin").mkdir(parents=True)
    tool = tree / "usr" / "bin" / "su"
    tool.write_text("#!/bin/sh\n")
    os.chown(tool, 0, 42)
    tool.chmod(0o4755)  # after the chown, which clears it
    (tree / "bin").symlink_to("usr/bin")
    outside = tree / "usr" / "bin" / "big-id"
    outside.write_text("")
    os.chown(outside, 70_000, 70_000)  # beyond the map: left alone (shows as nobody inside)
    rootphase._shift_tree(tree)
    st = tool.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (400_000, 400_042, 0o4755)
    assert (tree / "bin").is_symlink()
    assert (tree / "bin").lstat().st_uid == 400_000
    assert (outside.stat().st_uid, outside.stat().st_gid) == (70_000, 70_000)
    assert tree.stat().st_uid == 400_000
