"""An image export that is not exactly the image is never a sandbox root (rootfs._export_image, imagelayers.py).

The export reads `docker save`: each layer as the engine recorded it, checked against the image's own
`rootfs.diff_ids`. A save that arrives cut, or with a layer whose bytes differ, is retried once and otherwise
refused; a partial root is never marked complete. These tests put a `docker` on PATH that writes a prepared
save, whole, cut or with a changed layer, so each fault lands exactly where it should.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import rootfs

# `docker save -o FILE IMAGE`: the n-th call writes bad.tar while n < bad_first, then whole.tar.
FAKE_DOCKER = """#!/bin/sh
case "$1" in
  save) n=$(cat "{state}/count" 2>/dev/null || echo 0); echo $((n + 1)) > "{state}/count"
        if [ "$n" -lt "$(cat "{state}/bad_first")" ]; then cp "{state}/bad.tar" "$3"; else cp "{state}/whole.tar" "$3"; fi ;;
  *) exit 3 ;;
esac
"""


def _tar(entries: list[tuple[str, bytes | None, str | None]]) -> bytes:
    """A tar of (name, file content | None for a dir, symlink target | None)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data, link in entries:
            info = tarfile.TarInfo(name)
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            elif data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


LOWER = [("etc/", None, None), ("etc/os-release", b"ID=debian\n", None), ("app/", None, None),
         ("usr/", None, None), ("usr/share/", None, None), ("usr/share/doc/", None, None),
         ("usr/share/doc/a", b"a", None), ("usr/share/doc/b", b"b", None), ("opt/", None, None),
         ("opt/old", b"old", None), ("srv/", None, None), ("srv/gone", b"x", None)]
UPPER = [("app/", None, None), ("app/preset.txt", b"seed-0", None), ("opt", None, "/etc"),
         ("usr/", None, None), ("usr/share/", None, None), ("usr/share/doc/", None, None),
         ("usr/share/doc/.wh..wh..opq", b"", None), ("usr/share/doc/new", b"n", None), ("srv/", None, None),
         ("srv/.wh.gone", b"", None), ("srv/once", b"once", None)]


def _save(layers: list[bytes], diff_ids: list[str] | None = None) -> bytes:
    """A `docker save` archive of the layers (legacy layout: <id>/layer.tar, a config, manifest.json last)."""
    ids = diff_ids or ["sha256:" + hashlib.sha256(layer).hexdigest() for layer in layers]
    config = json.dumps({"rootfs": {"type": "layers", "diff_ids": ids}}).encode()
    names = [f"{i:064x}/layer.tar" for i in range(len(layers))]
    manifest = json.dumps([{"Config": "config.json", "RepoTags": ["img:latest"], "Layers": names}]).encode()
    return _tar([*[(name, layer, None) for name, layer in zip(names, layers, strict=True)],
                 ("config.json", config, None), ("manifest.json", manifest, None)])


@pytest.fixture
def fake_docker(tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    layers = [_tar(LOWER), _tar(UPPER)]
    whole = _save(layers)
    bad = {"cut": whole[: len(whole) // 2],
           "changed": _save([layers[0], layers[1].replace(b"seed-0", b"seed-9")],
                            ["sha256:" + hashlib.sha256(layer).hexdigest() for layer in layers])}
    (state / "whole.tar").write_bytes(whole)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text(FAKE_DOCKER.format(state=state))
    (bin_dir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("MATCHMETER_ROOTFS_DIR", str(tmp_path / "rootfs"))

    def bad_first(n: int, kind: str = "cut") -> Path:
        (state / "bad_first").write_text(str(n))
        (state / "bad.tar").write_bytes(bad[kind])
        return state

    return bad_first


def test_a_whole_save_is_the_image_with_its_whiteouts_applied(fake_docker, tmp_path):
    fake_docker(0)
    out = tmp_path / "out"
    assert rootfs._export_image("img", out) is True
    assert (out / "app" / "preset.txt").read_text() == "seed-0"
    assert (out / "srv" / "once").read_text() == "once"
    assert not (out / "srv" / "gone").exists()  # a whiteout removes the lower file
    assert sorted(p.name for p in (out / "usr" / "share" / "doc").iterdir()) == ["new"]  # opaque: lower hidden
    assert (out / "opt").is_symlink()  # a directory replaced by a link
    assert str((out / "opt").readlink()) == "/etc"
    assert not list(out.rglob(".wh.*"))
    assert not list(tmp_path.glob("rootfs/.save-*"))  # the saved archive is not kept


@pytest.mark.parametrize("kind", ["cut", "changed"])
def test_a_save_that_is_not_the_image_is_refused(fake_docker, tmp_path, kind):
    fake_docker(1, kind)
    assert rootfs._export_image("img", tmp_path / "out") is False


@pytest.mark.parametrize("kind", ["cut", "changed"])
def test_a_bad_save_is_retried_once_then_the_root_is_whole(fake_docker, kind):
    fake_docker(1, kind)
    root = rootfs.ensure_image_rootfs("img", f"k-{kind}", {"A": "1"})
    assert rootfs.is_complete(root)
    assert (root / "srv" / "once").read_text() == "once"
    assert (root / "app" / "preset.txt").read_text() == "seed-0"


def test_two_bad_saves_are_a_sandbox_error_and_leave_no_root(fake_docker):
    fake_docker(2, "changed")
    with pytest.raises(SandboxError, match="differ from the image's own digests"):
        rootfs.ensure_image_rootfs("img", "k2", {})
    path = rootfs.image_rootfs_path("k2")
    assert not path.exists()
    assert not rootfs.is_complete(path)
    assert not list(path.parent.glob(".image-k2.building"))


@pytest.mark.parametrize("entries", [
    [("escape", None, "{victim}"), ("escape/pwned", b"bad", None)],  # through a link of the same layer
    [("../{victim_name}/pwned", b"bad", None)],  # outside the root by name
], ids=["through-a-link", "dot-dot"])
def test_a_layer_that_writes_out_of_the_root_is_refused(fake_docker, tmp_path, entries):
    """The engine refuses such a layer at import or load; matchmeter does not rely on that alone, since the
    host would follow the link (or the name) out of the root it unpacks into."""
    victim = tmp_path / "host-dir"
    victim.mkdir()
    state = fake_docker(0)
    layer = _tar([(name.format(victim_name=victim.name), data, link and link.format(victim=victim))
                  for name, data, link in entries])
    (state / "whole.tar").write_bytes(_save([layer]))
    with pytest.raises(SandboxError, match="symbolic link /escape|outside its root"):
        rootfs._export_image("img", tmp_path / "root")
    assert list(victim.iterdir()) == []
