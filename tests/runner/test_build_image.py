"""`baseimage.build_image` against storage-driver faults: a build error naming a path in the driver's storage
is retried, any other error is not; a RUN/COPY/ADD step that committed an empty layer is built once more
without the cache; the image gets its tag only once checked. The faults cannot be provoked on a healthy
engine, so the first tests drive an in-memory double of the SDK's three image calls; the last ones run the
same path on the real engine."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import docker.errors
import pytest

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import baseimage

FAULT = ("open /var/lib/docker/fuse-overlayfs/8c1f04be9d2a77e1-init/merged/usr/share/libgcrypt20: "
         "no such file or directory")
BASE_HISTORY = [{"Id": "sha256:base", "CreatedBy": "", "Size": 80_000_000}]


@dataclass
class _Image:
    id: str
    layers: list[dict[str, Any]]
    names: set[str] = field(default_factory=set)

    def history(self) -> list[dict[str, Any]]:
        return self.layers

    def tag(self, repository: str, tag: str) -> bool:
        self.names.add(f"{repository}:{tag}")
        return True


class _Images:
    """The SDK's images.build/get/remove over a dict; each build's layers come from `outcomes` in order
    (a list of step sizes, or an error message to raise as the engine's BuildError)."""

    def __init__(self, outcomes: list[list[int] | str]):
        self.outcomes, self.builds, self.removed = list(outcomes), [], []
        self.by_id: dict[str, _Image] = {"sha256:base": _Image("sha256:base", BASE_HISTORY, {"base:latest"})}

    def build(self, **kw: Any) -> None:
        self.builds.append(kw)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, str):
            raise docker.errors.BuildError(outcome, [{"error": outcome}])
        for image in self.by_id.values():
            image.names.discard(kw["tag"])
        steps = [{"Id": f"sha256:step{len(self.builds)}-{i}", "CreatedBy": f"/bin/sh -c echo {i} > /f{i}", "Size": s}
                 for i, s in enumerate(outcome)]
        meta = {"Id": f"sha256:env{len(self.builds)}", "CreatedBy": "/bin/sh -c #(nop)  ENV A=1", "Size": 0}
        image_id = f"sha256:image{len(self.builds)}"
        self.by_id[image_id] = _Image(image_id, [meta, *reversed(steps), *BASE_HISTORY], {kw["tag"]})

    def get(self, name: str) -> _Image:
        for image in self.by_id.values():
            if name == image.id or name in image.names:
                return image
        raise docker.errors.ImageNotFound(name)

    def remove(self, name: str, noprune: bool = False) -> None:
        self.removed.append(name)
        image = self.get(name)
        if name in image.names and len(image.names) > 1:
            image.names.discard(name)
        else:
            del self.by_id[image.id]


class _Client:
    def __init__(self, outcomes: list[list[int] | str]):
        self.images = _Images(outcomes)


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch):
    monkeypatch.setattr(baseimage.time, "sleep", lambda s: None)


def test_a_storage_driver_fault_is_retried_and_the_image_gets_its_tag(tmp_path):
    client = _Client([FAULT, FAULT, [120]])
    baseimage.build_image(client, tmp_path, "Dockerfile", "mm-task:abc", ["base:latest"])
    assert len(client.images.builds) == 3
    assert [b["tag"] for b in client.images.builds] == ["mm-task:abc-unchecked"] * 3
    assert client.images.get("mm-task:abc").id == "sha256:image3"
    assert client.images.get("mm-task:abc").names == {"mm-task:abc"}  # the unchecked name is gone


def test_a_storage_fault_that_persists_is_a_sandbox_error_after_three_builds(tmp_path):
    client = _Client([FAULT] * 3)
    with pytest.raises(SandboxError, match="fuse-overlayfs"):
        baseimage.build_image(client, tmp_path, "Dockerfile", "mm-task:abc", ["base:latest"])
    assert len(client.images.builds) == 3


@pytest.mark.parametrize("message", [
    FAULT,
    "failed to register layer: lstat /var/lib/docker/fuse-overlayfs/1f0c3a9be2d4c6a8/merged/etc: input/output error",
    "mount /var/lib/docker/overlay2/6d2e0aa1b3c4d5e6f7a8/merged: device or resource busy"])
def test_storage_faults_are_recognised_by_a_layer_path_in_the_driver(message):
    assert baseimage.STORAGE_FAULT.search(f"building t failed: {message}")


@pytest.mark.parametrize("message", [
    "The command '/bin/sh -c false' returned a non-zero code: 1",
    "COPY failed: file not found in build context or excluded by .dockerignore: stat overlay/x: file does not exist",
    "open /app/fuse-overlayfs/notes.txt: no such file or directory"])
def test_dockerfile_errors_are_not_storage_faults(message):
    assert not baseimage.STORAGE_FAULT.search(f"building t failed: {message}")


def test_any_other_build_error_is_raised_at_once(tmp_path):
    client = _Client(["The command '/bin/sh -c false' returned a non-zero code: 1", [1]])
    with pytest.raises(SandboxError, match="returned a non-zero code"):
        baseimage.build_image(client, tmp_path, "Dockerfile", "mm-task:abc", ["base:latest"])
    assert len(client.images.builds) == 1
    with pytest.raises(docker.errors.ImageNotFound):
        client.images.get("mm-task:abc")


def test_an_empty_run_layer_is_built_once_more_without_the_cache(tmp_path):
    client = _Client([[0, 4096], [512, 4096]])
    baseimage.build_image(client, tmp_path, "Dockerfile", "mm-task:abc", ["base:latest"])
    assert [b["nocache"] for b in client.images.builds] == [False, True]
    assert client.images.get("mm-task:abc").id == "sha256:image2"
    assert "sha256:image1" in client.images.removed  # the bad image does not linger


def test_a_step_that_writes_nothing_stands_after_the_one_rebuild(tmp_path):
    client = _Client([[0], [0]])
    baseimage.build_image(client, tmp_path, "Dockerfile", "mm-task:abc", ["base:latest"])
    assert [b["nocache"] for b in client.images.builds] == [False, True]
    assert client.images.get("mm-task:abc").id == "sha256:image2"


def test_metadata_steps_and_the_base_layers_are_not_checked(tmp_path):
    client = _Client([[7]])
    client.images.by_id["sha256:base"].layers = [{"Id": "sha256:base", "CreatedBy": "/bin/sh -c true", "Size": 0}]
    baseimage.build_image(client, tmp_path, "Dockerfile", "mm-task:abc", ["base:latest"])
    assert len(client.images.builds) == 1  # the ENV step (0 B) and the base's own empty RUN do not count


@pytest.mark.docker
@pytest.mark.parametrize(("run", "content"), [("echo built > /opt/marker", "built\n"), ("true", None)])
def test_on_the_engine_the_image_ends_under_its_tag_alone(tmp_path, run, content):
    docker_base = baseimage.BASE_IMAGE
    client = baseimage.docker_client()
    (tmp_path / "Dockerfile").write_text(f"FROM {docker_base}\nRUN {run}\nENV MM_BUILD_TEST=1\n")
    tag = f"matchmeter-task-build-test-{uuid.uuid4().hex[:8]}:k1"
    try:
        baseimage.build_image(client, tmp_path, "Dockerfile", tag, [docker_base])
        image = client.images.get(tag)
        assert image.tags == [tag]
        assert baseimage.empty_steps(client, tag, [docker_base]) == ([] if content else [f"/bin/sh -c {run}"])
        out = client.containers.run(tag, ["cat", "/opt/marker"], remove=True, stderr=True) if content else None
        assert out == (content.encode() if content else None)
        leftovers = client.images.list(filters={"label": "matchmeter=1", "dangling": True})
        assert not [i for i in leftovers if any(h.get("CreatedBy", "").endswith(run) for h in i.history())]
    finally:
        baseimage._remove_quietly(client, tag)
