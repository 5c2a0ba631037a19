"""A CLI adapter installed into an image layer on the task image: docker runs it, bwrap needs no host venv.

    FROM <task image>
    COPY wheels /mm-wheels
    RUN python3 -m venv --without-pip /opt/matchmeter/cli/<package>-<version> \
     && <venv>/bin/python /mm-wheels/<pip wheel>/pip install --no-index --find-links /mm-wheels <package>==<version> \
     && rm -rf /mm-wheels

Containers cannot reach PyPI (the proxy's CA is trusted on the host only), so the wheels come from the
host (`pip wheel`, into a wheelhouse under the CLI cache, adapters/install.py) and are copied in; pip runs
from its own wheel because Debian's python3 has the venv module but no ensurepip. The host's Python must
be the image's minor version for compiled wheels to load (both are Debian bookworm's 3.11 here); a
mismatch fails the layer build with pip's own message. The layer is tagged by CLI name + version + the
task image's id, so it is built once per task image; bwrap runs in its exported filesystem (rootfs.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import CliInstall, baseimage, rootfs

PREFIX = "/opt/matchmeter/cli"


def venv_path(cli: CliInstall) -> str:
    return f"{PREFIX}/{cli.package}-{cli.version}"


def executable_path(cli: CliInstall) -> str:
    """Where the CLI's executable is inside the layer."""
    return f"{venv_path(cli)}/bin/{cli.executable}"


def layer_key(environment_key: str, cli: CliInstall) -> str:
    """The exported layer's cache key (bwrap): the task image's key plus the CLI's name and version."""
    return hashlib.sha256(f"{environment_key}|{cli.package}=={cli.version}".encode()).hexdigest()[:12]


def dockerfile(base: str, cli: CliInstall, pip_wheel: str) -> str:
    venv = venv_path(cli)
    return (f"FROM {base}\n"
            "COPY wheels /mm-wheels\n"
            f"RUN python3 -m venv --without-pip {venv} \\\n"
            f" && {venv}/bin/python /mm-wheels/{pip_wheel}/pip install --no-index --no-cache-dir "
            f"--disable-pip-version-check --find-links /mm-wheels '{cli.package}=={cli.version}' \\\n"
            f" && test -x {executable_path(cli)} && rm -rf /mm-wheels\n")


def layer_image(client: Any, base: str, cli: CliInstall) -> str:
    """The local image `base` + the CLI, built when missing (once, under a file lock); returns its tag.

    Raises:
        SandboxError: no wheelhouse was given, or the build failed.
    """
    base_id = client.images.get(base).id.removeprefix("sha256:")[:12]
    repo = re.sub(r"[^a-z0-9_.-]", "-", f"matchmeter-cli-{cli.package}-{cli.version}".lower())
    tag = f"{repo}:{base_id}"
    if baseimage.image_exists(client, tag):
        return tag
    if cli.wheelhouse is None or not cli.wheelhouse.is_dir():
        raise SandboxError(f"cannot build {tag}: no wheelhouse of {cli.package}=={cli.version} on the host")
    pip_wheels = sorted(p.name for p in cli.wheelhouse.glob("pip-*.whl"))
    if not pip_wheels:
        raise SandboxError(f"cannot build {tag}: the wheelhouse {cli.wheelhouse} holds no pip wheel")
    lock_dir = rootfs.rootfs_parent()
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / f".build-{repo}-{base_id}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent trials build the layer once
        if baseimage.image_exists(client, tag):
            return tag
        with tempfile.TemporaryDirectory(prefix="matchmeter-clilayer-") as tmp:
            context = Path(tmp)
            shutil.copytree(cli.wheelhouse, context / "wheels", ignore=shutil.ignore_patterns(".*"))
            (context / "Dockerfile").write_text(dockerfile(base, cli, pip_wheels[-1]))
            baseimage.build_image(client, context, "Dockerfile", tag)
    return tag
