"""An image's filesystem read from its saved layers (imagelayers.py) is what the engine itself shows, and the
docker backend makes a container again when its /app is not the image's (workspace_check.py).

Both exist because this project's CI engine (fuse-overlayfs) has shown containers without files their image
holds: these tests hold the layer reading to the engine's own view on an image with every kind of change a
layer records, and give the workspace check a container that lost a file (a layer that writes through a link
out of the root, which the engine itself will not load, is refused in test_rootfs_export.py).
"""

from __future__ import annotations

import secrets
import subprocess
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import SandboxRequest, baseimage, get_backend, imagelayers, workspace_check
from matchmeter.runner.sandbox.docker import DockerSandbox
from matchmeter.schema import EnvironmentSpec

pytestmark = [pytest.mark.slow, pytest.mark.docker]

# A file deleted, a directory emptied and refilled, a directory become a link, a file become a directory, a hard
# link, modes and owners, and files baked into /app: every kind of change a layer records.
DOCKERFILE = """FROM matchmeter-base:latest
# {token}
RUN printf 'seed-0' > /app/preset.txt && mkdir -p /app/sub && printf abc > /app/sub/x && ln -s sub/x /app/link \\
 && mkdir -p /opt/d && printf 1 > /opt/d/one && printf 2 > /opt/d/two && printf f > /opt/was-file \\
 && mkdir /srv/keep && printf k > /srv/keep/k
RUN rm /etc/os-release && rm -rf /opt/d && mkdir /opt/d && printf 3 > /opt/d/three && rm -rf /srv/keep \\
 && ln -s /etc /srv/keep && rm /opt/was-file && mkdir /opt/was-file && ln /app/sub/x /app/hard \\
 && chmod 0640 /app/preset.txt && chown 1000:1000 /app/sub/x && printf more >> /app/preset.txt
"""
# the container's own, made per container by the engine (its init layer), not the image's
ENGINE_FILES = {"./.dockerenv", "./etc/hostname", "./etc/hosts", "./etc/resolv.conf", "./etc/mtab"}


def _listing(root: Path) -> set[str]:
    """Every entry as type, mode, owner, size (regular files) and link target; the engine's per-container files
    and the contents of /dev, /proc and /sys are left out."""
    out = subprocess.run(["find", ".", "-printf", "%y %m %U:%G %s %p -> %l\\0"], cwd=root, capture_output=True,
                         text=True, check=True).stdout
    keep = set()
    for entry in filter(None, out.split("\0")):
        kind, mode, owner, size, path = entry.split(" ", 4)
        name = path.split(" -> ")[0]
        if name in ENGINE_FILES or name.startswith(("./dev/", "./proc/", "./sys/")):
            continue
        keep.add(" ".join([kind, mode, owner, size if kind == "f" else "-", path]))
    return keep


@pytest.fixture
def image(tmp_path):
    tag = f"matchmeter-test-layers:{secrets.token_hex(4)}"
    (tmp_path / "ctx").mkdir()
    (tmp_path / "ctx" / "Dockerfile").write_text(DOCKERFILE.format(token=secrets.token_hex(6)))
    # the product's build: a storage-driver fault of the CI engine is retried there, as for every task image
    baseimage.build_image(baseimage.docker_client(), tmp_path / "ctx", "Dockerfile", tag, [baseimage.BASE_IMAGE])
    yield tag
    subprocess.run(["docker", "rmi", tag], capture_output=True)


def test_unpacked_layers_equal_the_engines_own_export(image, tmp_path):
    unpacked, exported = tmp_path / "unpacked", tmp_path / "exported"
    imagelayers.unpack(image, unpacked, scratch=tmp_path)
    exported.mkdir()
    cid = subprocess.run(["docker", "create", image, "true"], check=True, capture_output=True, text=True).stdout.strip()
    try:
        export = subprocess.Popen(["docker", "export", cid], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-C", str(exported), "-x", "--numeric-owner"], stdin=export.stdout, check=True)
        assert export.wait() == 0
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
    ours, engines = _listing(unpacked), _listing(exported)
    assert ours - engines == set()
    assert engines - ours == set()
    assert (unpacked / "app" / "preset.txt").read_text() == "seed-0more"
    assert sorted(p.name for p in (unpacked / "opt" / "d").iterdir()) == ["three"]
    assert not (unpacked / "etc" / "os-release").exists()
    assert (unpacked / "srv" / "keep").is_symlink()
    assert (unpacked / "app" / "hard").stat().st_ino == (unpacked / "app" / "sub" / "x").stat().st_ino


def test_the_apps_listing_from_layers_is_what_a_container_finds(image, tmp_path):
    listing = imagelayers.tree_listing(image, "/app", scratch=tmp_path)
    assert listing is not None
    found = subprocess.run(["docker", "run", "--rm", image, "bash", "-c", workspace_check.LIST_APP],
                           check=True, capture_output=True, text=True).stdout
    assert workspace_check.differences(listing, found) == []
    assert listing["preset.txt"] == ("f", len("seed-0more"))
    assert listing["link"] == ("l", 0)
    assert listing["hard"] == ("f", 3)
    assert listing["sub"][0] == "d"
    # the check sees a lost file, an extra one, and a changed one
    damaged = found.replace("preset.txt\0", "preset.tx\0").replace(" 3 hard\0", " 4 hard\0")
    assert workspace_check.differences(listing, damaged) == ["- preset.txt", "+ preset.tx", "~ hard"]


def _request(tmp_path: Path) -> SandboxRequest:
    ctx = tmp_path / "env"
    ctx.mkdir(exist_ok=True)
    (ctx / "Dockerfile").write_text("FROM matchmeter-base:latest\n# " + secrets.token_hex(6) +
                                    "\nRUN printf 'seed-0' > /app/preset.txt\n")
    return SandboxRequest(task_id=f"layers-{secrets.token_hex(3)}", environment_dir=ctx, environment=EnvironmentSpec(),
                          label=f"layers-{secrets.token_hex(3)}")


@pytest.mark.parametrize("losses", [1, 2])
def test_a_container_whose_app_lost_a_file_is_made_again(tmp_path, monkeypatch, losses):
    """The engine's loss is played by removing /app/preset.txt before the check reads /app: once, and the
    trial gets a second container that has it; every time, and the trial is a SandboxError naming the file."""
    real = DockerSandbox.workspace_differences
    made: list[str] = []

    def losing(self: DockerSandbox, expected: workspace_check.Listing) -> list[str]:
        made.append(self.name)
        if len(made) <= losses:
            self._raw_exec(["rm", "/app/preset.txt"], 30.0, {})
        return real(self, expected)

    monkeypatch.setattr(DockerSandbox, "workspace_differences", losing)
    backend = get_backend("docker")
    backend.preflight()
    request = _request(tmp_path)
    try:
        if losses == 2:
            with pytest.raises(SandboxError, match=r"differed from the image's \(- preset.txt\)"):
                backend.create(request)
        else:
            box = backend.create(request)
            try:
                assert box.exec("cat /app/preset.txt", 30).output == "seed-0"
            finally:
                box.destroy()
        assert len(made) == 2
        left = subprocess.run(["docker", "ps", "-aq", "--filter", f"name={made[0]}"], capture_output=True, text=True)
        assert left.stdout.strip() == ""  # the container that lost the file is gone
    finally:
        backend.prune(request.label)
