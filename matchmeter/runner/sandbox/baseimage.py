"""The local Docker base image and task images, built without any registry.

No registry may be reachable, so the base image is made from Debian packages: the sandbox root
filesystem (rootfs.py, `debootstrap --variant=minbase`), then `tar | docker import`. Task images are
built from a task's environment/Dockerfile as it is, on any LOCAL base image (never pulled): a FROM
naming an image that is not here is one clear error at preflight naming `matchmeter env build-base` and
`--base-alias NAME=IMAGE`, which maps a reference that cannot be pulled here (`ubuntu:24.04`) to a local
image. An alias never retags the user's images: the build runs on a temp copy of the context whose FROM
lines name the local image, and the alias is part of the image's cache key. `prune()` removes every
container matchmeter labelled, for `matchmeter env prune` and crashed runs.

What a Dockerfile's instructions mean for a sandbox (docker and bwrap alike): RUN/COPY/ADD make the
filesystem (bwrap runs in the exported filesystem of the same image, rootfs.py); ENV is the base of every
exec's environment (over the sandbox defaults; HOME stays /tmp, the unprivileged agent owns nothing
else); WORKDIR and USER are ignored at run time: commands run in /app as the sandbox's unprivileged user.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.sandbox import policy, rootfs
from matchmeter.tasks.dockerfile import BASE_IMAGE as BASE_IMAGE  # re-exported: the runner names it here
from matchmeter.tasks.dockerfile import FROM_LINE

ALIAS_HINT = "run `matchmeter env build-base`, or map it to a local image with --base-alias NAME=IMAGE"


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


def parse_aliases(values: list[str]) -> dict[str, str]:
    """`--base-alias NAME=IMAGE` values → {NAME: IMAGE}; UserError on a malformed one."""
    aliases: dict[str, str] = {}
    for value in values:
        name, sep, image = value.partition("=")
        if not sep or not name.strip() or not image.strip() or any(c.isspace() for c in value.strip()):
            raise UserError(f"bad --base-alias {value!r}", "--base-alias", "write NAME=IMAGE, e.g. ubuntu:24.04=matchmeter-base:latest")
        aliases[name.strip()] = image.strip()
    return aliases


def instructions(text: str) -> list[str]:
    """The Dockerfile's instruction lines: comments and blank lines dropped, continuations joined."""
    lines, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    if pending.strip():
        lines.append(pending.strip())
    return lines


def base_references(text: str) -> list[str]:
    """Every image a Dockerfile starts FROM (earlier build stages named with AS excluded)."""
    stages: set[str] = set()
    refs: list[str] = []
    for line in instructions(text):
        match = FROM_LINE.match(line)
        if not match:
            continue
        if match.group(2).lower() not in stages and match.group(2) not in refs:
            refs.append(match.group(2))
        if match.group(4):
            stages.add(match.group(4).lower())
    return refs


class Environment:
    """A task's environment/Dockerfile with the run's --base-alias map applied."""

    def __init__(self, environment_dir: Path, dockerfile: str = "Dockerfile", aliases: dict[str, str] | None = None):
        self.dir, self.path = environment_dir, environment_dir / dockerfile
        self.text = self.path.read_text() if self.path.is_file() else f"FROM {BASE_IMAGE}\n"
        refs = base_references(self.text)
        self.aliases = {ref: (aliases or {})[ref] for ref in refs if ref in (aliases or {})}  # the ones used
        self.bases = [self.aliases.get(ref, ref) for ref in refs]  # local images the build starts from

    @property
    def plain(self) -> str | None:
        """The local image when the Dockerfile is nothing but `FROM <image>` (that image is the environment)."""
        lines = instructions(self.text)
        match = FROM_LINE.match(lines[0]) if len(lines) == 1 else None
        return self.bases[0] if match and not match.group(3) and not match.group(5).strip() else None

    @property
    def key(self) -> str:
        """The image's cache key: every file of environment/ and the aliases this Dockerfile uses."""
        files = dockerfile_digest(self.dir) if self.path.is_file() else "no-dockerfile"
        return hashlib.sha256(f"{files}|{json.dumps(self.aliases, sort_keys=True)}".encode()).hexdigest()[:12]

    def rewritten(self) -> str:
        """The Dockerfile with each aliased FROM naming its local image."""
        out = []
        for raw in self.text.splitlines():
            match = FROM_LINE.match(raw)
            if match and match.group(2) in self.aliases:
                raw = match.group(1) + self.aliases[match.group(2)] + (match.group(3) or "") + match.group(5)
            out.append(raw)
        return "\n".join(out) + "\n"

    def check_bases(self, client: Any) -> None:
        """UserError (one line: what, where, the fix) when a FROM image is not in the local engine."""
        for ref, local in zip(base_references(self.text), self.bases, strict=True):
            if not image_exists(client, local):
                named = f"{ref} (aliased to {local})" if ref != local else ref
                raise UserError(f"the task's Dockerfile starts FROM {named}, which is not a local image and is never "
                                "pulled", str(self.path), ALIAS_HINT)


def task_image(client: Any, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile",
               aliases: dict[str, str] | None = None) -> str:
    """The image a task's container runs: its Dockerfile built as is on local images (never pulled).

    Raises:
        UserError: a FROM image is not in the local engine (the line names the fixes).
        SandboxError: the build failed.
    """
    env = Environment(environment_dir, dockerfile, aliases)
    env.check_bases(client)
    if env.plain is not None:
        return env.plain
    safe_id = re.sub(r"[^a-z0-9_.-]", "-", task_id.lower())
    tag = f"matchmeter-task-{safe_id}:{env.key}"
    if image_exists(client, tag):
        return tag
    lock_dir = rootfs.rootfs_parent()
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / f".build-{env.key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent trials of one task build it once
        if not image_exists(client, tag):
            _build(client, env, dockerfile, tag)
    return tag


def _build(client: Any, env: Environment, dockerfile: str, tag: str) -> None:
    with tempfile.TemporaryDirectory(prefix="matchmeter-build-") as tmp:
        context = env.dir
        if env.aliases:  # a temp copy whose FROM lines name the local images: the user's tags stay untouched
            context = Path(tmp) / "context"
            shutil.copytree(env.dir, context, symlinks=True)
            (context / dockerfile).write_text(env.rewritten())
        build_image(client, context, dockerfile, tag, env.bases)


# A build error naming a layer's path inside the engine's storage driver is the driver's fault, not the
# Dockerfile's (a failing RUN or a missing COPY source never names one): fuse-overlayfs under load lost a layer's
# files mid-build ("open /var/lib/docker/fuse-overlayfs/<id>-init/merged/usr/share/libgcrypt20: no such file or
# directory", a CI run). Such a build is retried; any other error is not.
STORAGE_FAULT = re.compile(r"/(?:fuse-overlayfs|overlay2?|vfs|btrfs|zfs|aufs)/[0-9a-f]{12,}")
BUILD_ATTEMPTS = 3
UNCHECKED = "-unchecked"  # the tag a build gets until its layers are checked; only then the real tag


def build_image(client: Any, context: Path, dockerfile: str, tag: str, bases: list[str] | None = None) -> None:
    """`docker build` of a local context, never pulling, labelled as matchmeter's; SandboxError with the log tail.

    A storage-driver fault is retried (STORAGE_FAULT). The same driver has also committed a RUN step's layer
    empty (every file it wrote missing from the image): a build whose RUN/COPY/ADD step (above `bases`) made an
    empty layer is built once more without the cache, and the second build stands either way (a step that writes
    nothing makes an empty layer every time). The image gets `tag` only after that check, so a concurrent reader
    never takes an unchecked image. A layer that lost only some of its files is not detected here.
    """
    repository, _, version = tag.rpartition(":")
    unchecked = f"{repository}:{version}{UNCHECKED}"
    _build_retrying(client, context, dockerfile, unchecked, nocache=False)
    empty = empty_steps(client, unchecked, bases or [])
    if empty:
        first = client.images.get(unchecked).id
        _build_retrying(client, context, dockerfile, unchecked, nocache=True)
        if client.images.get(unchecked).id != first:
            _remove_quietly(client, first)
    client.images.get(unchecked).tag(repository, version)
    _remove_quietly(client, unchecked)  # only the name: the image keeps `tag`


def empty_steps(client: Any, image: str, bases: list[str]) -> list[str]:
    """The image's filesystem steps (RUN, COPY, ADD) above its base images whose layer is empty, newest first."""
    base_ids = {client.images.get(b).id for b in bases if image_exists(client, b)}
    empty = []
    for entry in client.images.get(image).history():  # newest first
        if entry.get("Id") in base_ids:
            break
        created = str(entry.get("CreatedBy") or "")
        metadata = "#(nop)" in created and not re.search(r"#\(nop\)\s+(COPY|ADD)\b", created)
        if not metadata and int(entry.get("Size") or 0) == 0:
            empty.append(created)
    return empty


def _build_retrying(client: Any, context: Path, dockerfile: str, tag: str, nocache: bool) -> None:
    for attempt in range(1, BUILD_ATTEMPTS + 1):
        try:
            _build_once(client, context, dockerfile, tag, nocache)
            return
        except SandboxError as exc:
            if attempt == BUILD_ATTEMPTS or not STORAGE_FAULT.search(str(exc)):
                raise
            time.sleep(attempt)


def _build_once(client: Any, context: Path, dockerfile: str, tag: str, nocache: bool) -> None:
    import docker.errors

    try:
        client.images.build(path=str(context), dockerfile=dockerfile, tag=tag, pull=False, rm=True, forcerm=True,
                            nocache=nocache, labels={policy.LABEL_KEY: policy.LABEL_VALUE})
    except docker.errors.BuildError as exc:
        lines = [str(chunk.get("stream", chunk.get("error", ""))).strip() for chunk in exc.build_log]
        raise SandboxError(f"building {tag} failed: {exc.msg}; {' | '.join(x for x in lines if x)[-400:]}") from exc
    except docker.errors.APIError as exc:
        raise SandboxError(f"building {tag} failed: {exc}") from exc


def _remove_quietly(client: Any, image: str) -> None:
    try:
        client.images.remove(image, noprune=False)
    except Exception:  # noqa: BLE001 - in use or already gone: a leftover name or image, not a failure
        pass


def image_env(client: Any, image: str) -> dict[str, str]:
    """The image's ENV (its config), which every exec's environment starts from."""
    config = client.images.get(image).attrs.get("Config") or {}
    return {name: value for name, _, value in (item.partition("=") for item in config.get("Env") or [])}


def sandbox_base_env(image: dict[str, str]) -> dict[str, str]:
    """Every exec's base environment: the sandbox defaults under the image's ENV, except HOME (the
    unprivileged agent's home is /tmp whatever the image says)."""
    return {**policy.SANDBOX_ENV, **{k: v for k, v in image.items() if k != "HOME"}}


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

