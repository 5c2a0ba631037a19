"""A CLI layer that lost files in its build is never used (runner/sandbox/clilayer.py, layer_whole).

A CI run's mini-swe-agent layer held 80 of the 171 site-packages entries its install step wrote (fuse-overlayfs
lost them in the step's commit) and every bwrap trial in it failed as the agent's error. The install step now
lists what it wrote, a container of the built image compares, and a layer that differs is removed and built
again. Real builds on the local engine, of a small npm-kind CLI (a copied directory, as adapters/npm.py makes).
"""

from __future__ import annotations

import io
import secrets
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import CliInstall, baseimage, clilayer

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture
def client():
    client = baseimage.docker_client()
    yield client
    client.close()


@pytest.fixture
def cli(tmp_path: Path) -> CliInstall:
    house = tmp_path / "house"
    (house / "bin").mkdir(parents=True)
    (house / "bin" / "hello").write_text("#!/bin/sh\necho hello\n")
    (house / "bin" / "hello").chmod(0o755)
    (house / "lib" / "deep").mkdir(parents=True)
    for i in range(5):
        (house / "lib" / "deep" / f"part{i}.js").write_text(f"// {i}\n")
    # a version no other test uses, so the tag is new and the layer is built here
    return CliInstall(kind="npm", package="mm-whole-check", version=f"0.0.{secrets.randbelow(10**9)}",
                      executable="hello", wheelhouse=house)


def _remove(client, tag: str) -> None:
    try:
        client.images.remove(tag, force=True)
    except Exception:  # noqa: BLE001 - already gone
        pass


def test_a_fresh_layer_lists_what_its_install_wrote_and_is_found_whole(client, cli):
    tag = clilayer.layer_image(client, baseimage.BASE_IMAGE, cli)
    try:
        assert clilayer.layer_whole(client, tag, cli)
        listing = client.containers.run(tag, ["-c", f"cat {clilayer.venv_path(cli)}/{clilayer.MANIFEST}"],
                                        entrypoint="sh", network_disabled=True, remove=True).decode()
        assert listing.split() == ["./bin/hello", *(f"./lib/deep/part{i}.js" for i in range(5))]
    finally:
        _remove(client, tag)


def test_an_image_missing_a_listed_file_is_not_whole(client, cli):
    tag = clilayer.layer_image(client, baseimage.BASE_IMAGE, cli)
    lost = f"{tag.split(':')[0]}-lost:{tag.split(':')[1]}"
    try:
        dockerfile = f"FROM {tag}\nRUN rm {clilayer.venv_path(cli)}/lib/deep/part3.js\n"
        client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=lost, rm=True, network_mode="none")
        assert not clilayer.layer_whole(client, lost, cli)
    finally:
        _remove(client, lost)
        _remove(client, tag)


def test_a_layer_that_lost_files_is_built_again_and_never_kept(client, cli, monkeypatch):
    checks: list[bool] = []
    whole = clilayer.layer_whole

    def first_build_lost(client_, tag, cli_):
        checks.append(whole(client_, tag, cli_))
        return len(checks) > 1  # the first build is taken as one that lost files

    monkeypatch.setattr(clilayer, "layer_whole", first_build_lost)
    tag = clilayer.layer_image(client, baseimage.BASE_IMAGE, cli)
    try:
        assert checks == [True, True]  # built twice, both whole in fact
    finally:
        _remove(client, tag)

    monkeypatch.setattr(clilayer, "layer_whole", lambda *_: False)
    with pytest.raises(SandboxError, match="lost files in 3 builds"):
        clilayer.layer_image(client, baseimage.BASE_IMAGE, cli)
    assert not baseimage.image_exists(client, clilayer.layer_tag(cli, client.images.get(baseimage.BASE_IMAGE).id
                                                                 .removeprefix("sha256:")[:12]))
