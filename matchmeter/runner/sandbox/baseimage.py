"""The local Docker base image and task images, built without any registry.

No registry may be reachable, so the base image is made from Debian packages: the sandbox root
filesystem (rootfs.py, `debootstrap --variant=minbase`), then `tar | docker import`. Task images are built from a task's
environment/Dockerfile, which may only start `FROM matchmeter-base:latest` (never pulled). `prune()`
removes every container matchmeter labelled, for `matchmeter env prune` and crashed runs.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path
from typing import Any

from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.sandbox import policy, rootfs

BASE_IMAGE = "matchmeter-base:latest"
ALLOWED_FROM = re.compile(r"^\s*FROM\s+(\S+)", re.IGNORECASE | re.MULTILINE)


def docker_client() -> Any:
    """A docker SDK client; UserError with the fix when no engine answers."""
    try:
        import docker
    except ImportError as exc:  # pragma: no cover - docker is a core dependency
        raise UserError("the docker SDK is not installed", "--backend docker", "pip install docker") from exc
    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the engine has the same fix
        raise UserError(
            f"no Docker engine answers: {exc}",
            "--backend docker",
            "start the Docker daemon (or set DOCKER_HOST), or use --backend bwrap",
        ) from exc
    return client


def image_exists(client: Any, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text, highlight=False)


def build_base_image(force: bool = False, console: Any = None) -> str:
    """Build `matchmeter-base:latest` from Debian packages unless it exists; return the tag.

    Raises:
        UserError: debootstrap missing, not root, or no Docker engine.
        SandboxError: debootstrap or `docker import` failed.
    """
    client = docker_client()
    if not force and image_exists(client, BASE_IMAGE):
        _say(console, f"{BASE_IMAGE} already present (use --force to rebuild)")
        return BASE_IMAGE
    # One root filesystem for both backends: bwrap runs in it, docker imports it.
    root = rootfs.ensure_base_rootfs(console=console)
    _say(console, "importing the root filesystem into docker")
    _docker_import(root, BASE_IMAGE)
    return BASE_IMAGE


def _docker_import(root: Path, tag: str) -> None:
    # The CLI streams the tar straight from disk; the SDK's import_image would buffer ~300 MB in memory.
    tar = subprocess.Popen(["tar", "-C", str(root), "-c", "--exclude=./" + rootfs.MARKER, "."], stdout=subprocess.PIPE)
    try:
        proc = subprocess.run(
            ["docker", "import", "--change", "ENV PATH=" + policy.CONTAINER_PATH, "-", tag],
            stdin=tar.stdout,
            capture_output=True,
            text=True,
        )
    finally:
        assert tar.stdout is not None
        tar.stdout.close()
        tar.wait()
    if proc.returncode != 0 or tar.returncode != 0:
        raise SandboxError(f"docker import failed: {proc.stderr.strip()[:300]}")


def ensure_base_image(client: Any, console: Any = None) -> None:
    """Build the base image when missing, telling the user why the first run is slow."""
    if image_exists(client, BASE_IMAGE):
        return
    _say(console, f"{BASE_IMAGE} is missing; building it once now (or run `matchmeter env build-base`)")
    try:
        build_base_image(console=console)
    except SandboxError as exc:
        raise UserError(
            f"the Docker base image is missing and could not be built: {exc}",
            "--backend docker",
            f"make {rootfs.DEBIAN_MIRROR} reachable and run `matchmeter env build-base`, or use --backend bwrap",
        ) from exc


def dockerfile_digest(environment_dir: Path) -> str:
    """sha256 over every file of environment/ (names and bytes), so any change rebuilds the image."""
    digest = hashlib.sha256()
    for path in sorted(p for p in environment_dir.rglob("*") if p.is_file()):
        digest.update(path.relative_to(environment_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def task_image(client: Any, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile") -> str:
    """The image a task's container runs: its Dockerfile built on the base image, else the base image.

    Raises:
        UserError: the Dockerfile starts FROM anything but the local base image.
        SandboxError: the build failed.
    """
    path = environment_dir / dockerfile
    if not path.is_file():
        return BASE_IMAGE
    sources = ALLOWED_FROM.findall(path.read_text())
    if any(src != BASE_IMAGE for src in sources):
        raise UserError(
            f"Dockerfile starts FROM {sources}", str(path), f"use `FROM {BASE_IMAGE}` (no registry is reachable)"
        )
    safe_id = re.sub(r"[^a-z0-9_.-]", "-", task_id.lower())
    tag = f"matchmeter-task-{safe_id}:{dockerfile_digest(environment_dir)[:12]}"
    if image_exists(client, tag):
        return tag
    import docker.errors

    try:
        client.images.build(path=str(environment_dir), dockerfile=dockerfile, tag=tag, pull=False, rm=True,
                            forcerm=True, labels={policy.LABEL_KEY: policy.LABEL_VALUE})
    except docker.errors.BuildError as exc:
        lines = [str(chunk.get("stream", chunk.get("error", ""))).strip() for chunk in exc.build_log]
        raise SandboxError(f"building {tag} failed: {exc.msg}; {' | '.join(x for x in lines if x)[-300:]}") from exc
    except docker.errors.APIError as exc:
        raise SandboxError(f"building {tag} failed: {exc}") from exc
    return tag


def prune(label: str | None = None) -> int:
    """Force-remove every container labelled matchmeter=1 (only those of one run label, if given).

    Returns:
        How many containers were removed.
    """
    client = docker_client()
    filters = [f"{policy.LABEL_KEY}={policy.LABEL_VALUE}"]
    if label is not None:
        filters.append(f"{policy.LABEL_RUN}={label}")
    removed = 0
    for container in client.containers.list(all=True, filters={"label": filters}):
        try:
            container.remove(force=True, v=True)
            removed += 1
        except Exception:  # noqa: BLE001 - already gone (a concurrent destroy) is fine
            continue
    return removed

