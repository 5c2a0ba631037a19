"""The protected-state snapshot script writes its JSON by hand (policy.SNAPSHOT_SCRIPT, without the json module's
import cost): every name a file can have must read back, through the host's json.loads, as the name os.walk gave.
Run here with the host's python3 on a real directory; the conformance suite runs it inside every backend."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess

import pytest

from matchmeter.runner.sandbox.policy import SNAPSHOT_SCRIPT, parse_snapshot, snapshot_command


def _encoder():
    """The script's own `q`, taken from its text (so this tests what runs in the sandbox)."""
    source = SNAPSHOT_SCRIPT[SNAPSHOT_SCRIPT.index("def q(s):"):SNAPSHOT_SCRIPT.index("sys.stdout.write(")]
    scope: dict = {}
    exec(source, scope)  # noqa: S102 - our own script's text
    return scope["q"]


HOSTILE = ['plain/name.txt', 'quote"d', "back\\slash", "new\nline", "tab\there", "\x00nul\x1f\x7f", "é café",
           "日本語", "emoji \U0001f600 \U0010ffff", "\udc80\udcff undecodable", "\ud800 lone high", "\u2028\u2029", "'single'", "{}[]:,",
           "\ud7ff\ue000\uffff"]


@pytest.mark.parametrize("text", HOSTILE)
def test_each_hostile_string_reads_back_as_itself(text):
    encoded = _encoder()(text)
    assert encoded.isascii()
    assert "\n" not in encoded  # parse_snapshot reads the last line
    assert json.loads(encoded) == text


def test_random_strings_over_every_plane_read_back_as_themselves():
    q, rng = _encoder(), random.Random(35)
    # surrogates only as os.fsdecode makes them (surrogateescape: U+DC80-U+DCFF, never a high one, so never a
    # pair that json.loads would join)
    pools = [(0, 0x80), (0x80, 0x800), (0x800, 0xD800), (0xDC80, 0xDD00), (0xE000, 0x10000), (0x10000, 0x110000)]
    for _ in range(2000):
        text = "".join(chr(rng.randrange(*rng.choice(pools))) for _ in range(rng.randrange(0, 12)))
        assert json.loads(q(text)) == text


def test_the_script_hashes_files_with_hostile_names_as_the_host_sees_them(tmp_path):
    root = tmp_path / "snap"
    root.mkdir()
    names = [b"plain", b'qu"ote', b"back\\slash", b"new\nline", "caf\u00e9".encode(), b"\xff\xfe-undecodable",
             "\U0001f600".encode()]
    expected = {}
    for i, name in enumerate(names):
        (root / os.fsdecode(name)).write_bytes(b"%d" % i)  # the bytes name, through surrogateescape
        expected[f"snap/{os.fsdecode(name)}"] = hashlib.sha256(b"%d" % i).hexdigest()
    command = snapshot_command(["snap"])
    assert command.startswith("python3 -I -S -c ")  # no site-packages .pth file runs code in this process
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True,
                          text=True, errors="surrogateescape", check=False)
    assert parse_snapshot(done.stdout, done.returncode) == expected, done.stderr

