"""The Debian root filesystem every sandbox starts from: bwrap's allow-listed root, docker's base image.

bwrap used to show the host's `/` with a deny-list of masks, and every leak found in it (keys in
/proc/1/environ, /etc/shadow and /root readable, a second checkout's solutions) slipped past a
deny-list. Now the root is this directory, built once from Debian packages (`debootstrap --variant=
minbase`) or exported from the local Docker base image, whichever exists; the docker base image is
imported from the same directory, so both backends start from identical state. A task whose Dockerfile
does more than `FROM` the base runs in the exported filesystem of its built image (baseimage.py), made
once per image key (the Dockerfile's environment/ digest and the aliases it uses) and shared by every
trial; a CLI layer (clilayer.py) is exported the same way.

    $MATCHMETER_ROOTFS_DIR (default /var/cache/matchmeter/rootfs as root, else ~/.cache/matchmeter/rootfs)
    ├── base-<digest>/          complete once `.matchmeter-complete` exists; /app /tests /logs are mount points
    └── image-<key>/            an exported task image (or CLI layer); its marker is JSON: image, ENV
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.sandbox import imagelayers

DEBIAN_SUITE = "bookworm"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
# Tools tasks and verifiers commonly reach for; bash comes with minbase but is listed so a change of
# variant can never drop it (every exec runs `bash -c`).
BASE_PACKAGES = "bash,python3,git,ca-certificates,procps,curl,jq,sqlite3,bc,less,file,patch,xz-utils,coreutils"
MOUNT_POINTS = ("app", "tests", "logs")
MARKER = ".matchmeter-complete"
DIGEST = hashlib.sha256(f"{DEBIAN_SUITE}|{BASE_PACKAGES}|{MOUNT_POINTS}".encode()).hexdigest()[:12]


def rootfs_parent() -> Path:
    """Where built root filesystems live (see the module docstring for the precedence)."""
    env = os.environ.get("MATCHMETER_ROOTFS_DIR")
    if env:
        return Path(env)
    if os.geteuid() == 0:
        # Not under /root: the sandbox's unprivileged uid must be able to traverse to it.
        return Path("/var/cache/matchmeter/rootfs")
    return Path.home() / ".cache" / "matchmeter" / "rootfs"


def base_rootfs_path() -> Path:
    return rootfs_parent() / f"base-{DIGEST}"


def is_complete(path: Path) -> bool:
    return (path / MARKER).is_file()


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text, highlight=False)


def _debootstrap(dest: Path, console: Any) -> None:
    debootstrap = shutil.which("debootstrap") or ("/usr/sbin/debootstrap" if Path("/usr/sbin/debootstrap").exists() else None)
    if debootstrap is None:
        raise UserError("debootstrap is not installed", "the sandbox root filesystem", "apt-get install debootstrap")
    if os.geteuid() != 0:
        raise UserError(
            "the sandbox root filesystem is missing and only root can build it",
            str(base_rootfs_path()),
            "run `matchmeter env build-base` once as root, or point MATCHMETER_ROOTFS_DIR at a built one",
        )
    _say(console, f"building the sandbox root filesystem with debootstrap ({DEBIAN_SUITE}, minbase); about a minute…")
    cmd = [debootstrap, "--variant=minbase", f"--include={BASE_PACKAGES}", DEBIAN_SUITE, str(dest), DEBIAN_MIRROR]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        raise SandboxError(f"debootstrap failed (exit {proc.returncode}): {' | '.join(tail)}")


def _export_image(image: str, dest: Path) -> bool:
    """Write a local docker image's filesystem into dest from its saved layers (imagelayers.py: never through a
    container's mounted view, which fuse-overlayfs can show without some files); False when no engine, no such
    image, or a save that was not exactly the image's layers.

    Raises:
        SandboxError: a layer that cannot be unpacked safely, or tar failed.
    """
    if shutil.which("docker") is None:
        return False
    try:
        imagelayers.unpack(image, dest, scratch=dest.parent)
    except imagelayers.BadSave:
        return False
    return True


def _ensure(path: Path, fill: Any, marker: str) -> Path:
    """Make `path` once (fill(tmp) writes the tree), under a file lock so concurrent trials build it once."""
    if is_complete(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o755)
    with open(path.parent / f".{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_complete(path):
            return path
        tmp = path.parent / f".{path.name}.building"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(path, ignore_errors=True)
        try:
            fill(tmp)
            for name in MOUNT_POINTS:  # an image's /app that is a link or a file becomes a plain empty dir
                point = tmp / name
                if point.is_symlink() or (point.exists() and not point.is_dir()):
                    point.unlink()
                point.mkdir(exist_ok=True)
            tmp.chmod(0o755)
            (tmp / MARKER).write_text(marker)
            tmp.rename(path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return path


def ensure_base_rootfs(console: Any = None, from_image: str | None = None) -> Path:
    """The base root filesystem, built (or exported from `from_image`) once; safe under concurrency.

    Raises:
        UserError: it is missing and cannot be built here (not root, no debootstrap).
        SandboxError: debootstrap failed.
    """

    def fill(tmp: Path) -> None:
        if not (from_image and _export_image(from_image, tmp)):
            shutil.rmtree(tmp, ignore_errors=True)
            _debootstrap(tmp, console)

    return _ensure(base_rootfs_path(), fill, DIGEST + "\n")


def image_rootfs_path(key: str) -> Path:
    return rootfs_parent() / f"image-{key}"


def ensure_image_rootfs(image: str, key: str, env: dict[str, str], console: Any = None) -> Path:
    """The exported filesystem of a local image, made once per key; its ENV is kept in the marker.

    Raises:
        SandboxError: the export failed.
    """

    def fill(tmp: Path) -> None:
        _say(console, f"exporting {image} into a sandbox root filesystem (once per image)")
        for _attempt in range(2):  # a bad save is retried once from scratch; a partial tree is never kept
            if _export_image(image, tmp):
                return
            shutil.rmtree(tmp, ignore_errors=True)
        raise SandboxError(f"exporting {image} for the bwrap sandbox failed twice: `docker save` failed, or the "
                           "layers it wrote differ from the image's own digests")

    return _ensure(image_rootfs_path(key), fill, json.dumps({"image": image, "env": env}))


def rootfs_env(root: Path) -> dict[str, str]:
    """The ENV of the image a root filesystem was exported from ({} for the base rootfs)."""
    try:
        data = json.loads((root / MARKER).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in (data.get("env") or {}).items()} if isinstance(data, dict) else {}
