"""A local image's filesystem read from its saved layers (`docker save`), never through a mounted view of it.

Why: with the fuse-overlayfs storage driver (this project's CI engine) a container's merged view can miss
files while other containers are created and removed: `docker export` of a container gave a root without
the file a RUN line had baked in, and so did the copy of an image's /app into a container's volume. Both
read through that view. `docker save` writes each layer as the engine recorded it at commit, and each
layer's sha256 must equal the image's `rootfs.diff_ids`, so a save is either exactly the image or refused.

    unpack(image, dest)     the image's root filesystem: its layers applied in order (whiteouts included)
    tree_listing(image, d)  what the image holds under directory d (type, size), read from the same layers
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from matchmeter.errors import SandboxError

WHITEOUT = ".wh."
OPAQUE = ".wh..wh..opq"  # the directory's lower contents are hidden
CHUNK = 1 << 20
# A listing entry's type, as `find -printf %y` prints it (a hard link is a regular file there).
FIND_TYPE = {tarfile.REGTYPE: "f", tarfile.AREGTYPE: "f", tarfile.LNKTYPE: "f", tarfile.DIRTYPE: "d",
             tarfile.SYMTYPE: "l", tarfile.CHRTYPE: "c", tarfile.BLKTYPE: "b", tarfile.FIFOTYPE: "p"}


class BadSave(Exception):
    """The saved image is not whole (cut, a layer whose digest differs, no manifest): save it again."""


@contextmanager
def _saved(image: str, scratch: Path) -> Iterator[tuple[tarfile.TarFile, list[tuple[str, str]]]]:
    """`docker save` of the image into scratch, opened; with its layers in order as (member, diff_id)."""
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch, prefix=".save-") as tmp:
        path = Path(tmp) / "image.tar"
        done = subprocess.run(["docker", "save", "-o", str(path), image], capture_output=True, text=True,
                              errors="replace")
        if done.returncode != 0:
            raise BadSave(f"docker save {image}: {done.stderr.strip()[-300:]}")
        try:
            with tarfile.open(path) as outer:
                manifest = json.loads(_read(outer, "manifest.json"))
                config = json.loads(_read(outer, manifest[0]["Config"]))
                layers = [str(name) for name in manifest[0]["Layers"]]
                diff_ids = [str(d) for d in config["rootfs"]["diff_ids"]]
                if len(layers) != len(diff_ids):
                    raise BadSave(f"{image}: {len(layers)} layers saved, {len(diff_ids)} in its config")
                yield outer, list(zip(layers, diff_ids, strict=True))
        except (tarfile.TarError, OSError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise BadSave(f"the saved {image} cannot be read: {exc}") from exc


def _read(outer: tarfile.TarFile, name: str) -> bytes:
    member = outer.extractfile(name)
    if member is None:
        raise BadSave(f"{name} is not a file in the saved image")
    return member.read()


def _layer(outer: tarfile.TarFile, name: str) -> IO[bytes]:
    member = outer.extractfile(name)
    if member is None:
        raise BadSave(f"{name} is not a file in the saved image")
    return member


def _digest(stream: IO[bytes], sink: IO[bytes] | None = None) -> str:
    sha = hashlib.sha256()
    while chunk := stream.read(CHUNK):
        sha.update(chunk)
        if sink is not None:
            sink.write(chunk)
    return "sha256:" + sha.hexdigest()


def _members(outer: tarfile.TarFile, name: str) -> list[tarfile.TarInfo]:
    with tarfile.open(fileobj=_layer(outer, name)) as layer:
        return layer.getmembers()


def _norm(name: str) -> str:
    path = posixpath.normpath(name.lstrip("/"))
    if path == ".." or path.startswith("../"):
        raise SandboxError(f"an image layer names a path outside its root: {name!r}")
    return "" if path == "." else path


def _inside(root: Path, rel: str, links: set[str]) -> Path:
    """root/rel, refused when a directory on the way is a symbolic link (on disk or earlier in this layer): the
    engine resolves such a path inside the image, the host would follow it out of root."""
    parts = rel.split("/")
    for i in range(1, len(parts)):
        prefix = "/".join(parts[:i])
        if prefix in links or (root / prefix).is_symlink():
            raise SandboxError(f"an image layer writes through the symbolic link /{prefix} ({rel}); "
                               "matchmeter does not unpack such a layer")
    return root / rel


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.is_symlink() or path.exists():
        path.unlink()


def _prepare_layer(dest: Path, members: list[tarfile.TarInfo]) -> None:
    """What a layer removes, before its files go in: whiteouts, opaque directories' lower contents, and any
    entry whose kind the layer changes (a directory becoming a link, a file becoming a directory)."""
    links = {_norm(m.name) for m in members if m.issym()}
    for member in members:
        rel = _norm(member.name)
        if not rel:
            continue
        base = posixpath.basename(rel)
        target = _inside(dest, rel, links)
        if base == OPAQUE:
            parent = target.parent
            if parent.is_dir() and not parent.is_symlink():
                for child in parent.iterdir():
                    _remove(child)
        elif base.startswith(WHITEOUT):
            _remove(target.parent / base[len(WHITEOUT):])
        elif (target.is_symlink() or target.exists()) and not (member.isdir() and target.is_dir()
                                                                and not target.is_symlink()):
            _remove(target)  # a kept directory is merged into; anything else is replaced


def unpack(image: str, dest: Path, scratch: Path) -> None:
    """Write the image's root filesystem into dest (an empty or missing dir), layer by layer.

    Raises:
        BadSave: the save was not whole or a layer's digest differs from the image's: try again.
        SandboxError: a layer cannot be unpacked safely (a path through a link, outside the root), or tar failed.
    """
    dest.mkdir(parents=True, exist_ok=True)
    with _saved(image, scratch) as (outer, layers):
        for name, diff_id in layers:
            _prepare_layer(dest, _members(outer, name))
            with tempfile.TemporaryFile() as errors:  # a file, not a pipe: tar's complaints cannot stall it
                untar = subprocess.Popen(["tar", "-C", str(dest), "-x", "--numeric-owner",
                                          f"--exclude={WHITEOUT}*"], stdin=subprocess.PIPE, stderr=errors)
                assert untar.stdin is not None
                try:
                    got = _digest(_layer(outer, name), untar.stdin)
                except BrokenPipeError:
                    got = ""
                finally:
                    untar.stdin.close()
                if untar.wait() != 0:
                    errors.seek(0)
                    err = errors.read().decode(errors="replace").strip()
                    raise SandboxError(f"unpacking a layer of {image} failed: {err[-300:]}")
            if got != diff_id:
                raise BadSave(f"a layer of the saved {image} is {got or 'cut'}, the image says {diff_id}")


def tree_listing(image: str, directory: str, scratch: Path) -> dict[str, tuple[str, int]] | None:
    """What the image holds below `directory` (relative path -> (find type, size; 0 unless a regular file)),
    from its saved layers; None when `directory` is not a directory in the image.

    Raises:
        BadSave: as unpack.
    """
    top = _norm(directory)
    tree: dict[str, tuple[str, int]] = {}
    with _saved(image, scratch) as (outer, layers):
        for name, diff_id in layers:
            if _digest(_layer(outer, name)) != diff_id:
                raise BadSave(f"a layer of the saved {image} differs from the image's {diff_id}")
            for member in _members(outer, name):
                rel = _norm(member.name)
                base = posixpath.basename(rel)
                if base == OPAQUE:
                    parent = posixpath.dirname(rel)
                    tree = {p: v for p, v in tree.items() if not p.startswith(parent + "/")}
                elif base.startswith(WHITEOUT):
                    gone = posixpath.join(posixpath.dirname(rel), base[len(WHITEOUT):])
                    tree = {p: v for p, v in tree.items() if p != gone and not p.startswith(gone + "/")}
                else:
                    if not member.isdir() and tree.get(rel, ("", 0))[0] == "d":  # it replaces a directory
                        tree = {p: v for p, v in tree.items() if not p.startswith(rel + "/")}
                    size = member.size if member.isreg() else 0
                    if member.islnk():  # a hard link's header has no size; find shows its file's
                        size = tree.get(_norm(member.linkname), ("f", 0))[1]
                    tree[rel] = (FIND_TYPE.get(member.type, "?"), size)
    if top in tree and tree[top][0] != "d":
        return None  # a link or a file: the engine mounts nothing there the way it mounts a directory
    return {p[len(top) + 1:]: v for p, v in tree.items() if p.startswith(top + "/")}
