"""The task's Dockerfile is its environment on every backend (issue 14, Build item 2).

docker builds it as is on local images; bwrap runs in the exported filesystem of the same image, made once
per image key; a FROM that is not local is one clear line and a non-zero exit before anything is stored;
--base-alias maps a reference that cannot be pulled here to a local image without retagging anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from matchmeter.errors import UserError
from matchmeter.runner.sandbox import SandboxRequest, get_backend, rootfs
from matchmeter.runner.sandbox.baseimage import BASE_IMAGE, Environment, base_references, parse_aliases
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task

MATCHMETER = [sys.executable, "-c", "from matchmeter.cli import main; main()"]
BOTH = [pytest.param("bwrap", marks=[pytest.mark.bwrap, pytest.mark.docker]),
        pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(autouse=True)
def own_rootfs_cache(tmp_path, monkeypatch):
    """This test's image exports go to its own cache dir (a fresh key each time would fill the machine's),
    beside a link to the machine's base root filesystem; its task images are untagged afterwards — only its own:
    each test's task has a name of its own (`_task_name`), since the module's tests run on several workers at once
    and removing every `env-task` image removed one that another test was still exporting for bwrap."""
    cache = tmp_path / "rootfs"
    cache.mkdir()
    base = rootfs.base_rootfs_path()
    if rootfs.is_complete(base):
        (cache / base.name).symlink_to(base)
    monkeypatch.setenv("MATCHMETER_ROOTFS_DIR", str(cache))
    yield
    if shutil.which("docker"):
        # By tag and without -f: the legacy builder's cache gives two tests' identical RUN lines one image id
        # (a comment token does not change the cache key), and `rmi -f <id>` removed the other test's tag too.
        repo = f"matchmeter-task-{_task_name(tmp_path)}"
        tags = subprocess.run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}", repo],
                              capture_output=True, text=True)
        if tags.stdout.split():
            subprocess.run(["docker", "rmi", *set(tags.stdout.split())], capture_output=True)


def _task_name(tmp_path: Path) -> str:
    """The test's own task id, so its images are `matchmeter-task-env-task-<6 hex>:<key>` and no other test's."""
    return f"env-task-{hashlib.sha256(str(tmp_path).encode()).hexdigest()[:6]}"


def _task(tmp_path: Path, dockerfile: str, test_tmp: Path | None = None) -> Path:
    """The copy-file task with its own Dockerfile; a random token keeps each test's image key fresh, the name
    (from the test's own tmp_path, `test_tmp` when `tmp_path` is below it) keeps its images its own."""
    task_dir = write_task(tmp_path / "tasks", _task_name(test_tmp or tmp_path))
    (task_dir / "environment" / "Dockerfile").write_text(dockerfile.replace("TOKEN", secrets.token_hex(6)))
    return task_dir


def _request(task_dir: Path) -> SandboxRequest:
    task = load_task(task_dir)
    return SandboxRequest(task_id=task.id, environment_dir=task_dir / "environment", environment=task.environment,
                          env={"MM_SEED": "0"}, label=f"envimg-{secrets.token_hex(3)}")


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MATCHMETER, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "400", **(env or {})})


# ---------------------------------------------------------------- parsing (no engine)


def test_aliases_parse_and_a_malformed_one_is_one_line():
    assert parse_aliases(["ubuntu:24.04=matchmeter-base:latest", "python:3.12-slim=img:1"]) == {
        "ubuntu:24.04": "matchmeter-base:latest", "python:3.12-slim": "img:1"}
    for bad in ("ubuntu:24.04", "=img", "a= b"):
        with pytest.raises(UserError, match=r"bad --base-alias .*write NAME=IMAGE"):
            parse_aliases([bad])


def test_from_references_skip_comments_and_build_stages(tmp_path):
    text = ("# FROM commented:out\n\nFROM --platform=linux/amd64 python:3.12-slim AS build\nRUN true\n"
            "FROM build\nFROM ubuntu:24.04\n")
    assert base_references(text) == ["python:3.12-slim", "ubuntu:24.04"]
    (tmp_path / "Dockerfile").write_text(text)
    env = Environment(tmp_path, aliases={"ubuntu:24.04": BASE_IMAGE, "unused:1": "x"})
    assert env.aliases == {"ubuntu:24.04": BASE_IMAGE}  # only the aliases it uses enter the key
    assert env.bases == ["python:3.12-slim", BASE_IMAGE]
    assert "FROM matchmeter-base:latest\n" in env.rewritten()
    assert "FROM --platform=linux/amd64 python:3.12-slim AS build" in env.rewritten()
    assert env.plain is None
    assert env.key != Environment(tmp_path).key  # the alias is part of the image's cache key


def test_only_a_from_line_is_plain(tmp_path):
    (tmp_path / "Dockerfile").write_text("# the base\n\nFROM ubuntu:24.04\n")
    assert Environment(tmp_path).plain == "ubuntu:24.04"
    assert Environment(tmp_path, aliases={"ubuntu:24.04": BASE_IMAGE}).plain == BASE_IMAGE
    (tmp_path / "Dockerfile").write_text("FROM matchmeter-base:latest\nENV A=1\n")
    assert Environment(tmp_path).plain is None
    assert Environment(tmp_path / "missing").plain == BASE_IMAGE  # no Dockerfile: the base image


# ---------------------------------------------------------------- both backends


@pytest.mark.slow
@pytest.mark.parametrize("backend_name", BOTH)
def test_dockerfile_state_env_and_workspace_are_the_same_on_both_backends(tmp_path, backend_name):
    task_dir = _task(tmp_path, "FROM matchmeter-base:latest\n# TOKEN\nENV MM_GREETING=hello HOME=/root\n"
                               "RUN mkdir -p /app/sub /opt/task && printf baked > /app/sub/state.txt "
                               "&& ln -s sub/state.txt /app/link && printf marker > /opt/task/marker\n")
    backend = get_backend(backend_name)
    backend.preflight()
    box = backend.create(_request(task_dir))
    try:
        out = box.exec('cat sub/state.txt; echo; readlink link; cat /opt/task/marker; echo; '
                       'printf "%s|%s\\n" "$MM_GREETING" "$HOME"; echo more >> sub/state.txt && echo writable; '
                       'touch /opt/task/x 2>/dev/null || echo image-read-only', 30)
    finally:
        box.destroy()
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == ["baked", "sub/state.txt", "marker", "hello|/tmp", "writable", "image-read-only"]


@pytest.mark.slow
@pytest.mark.parametrize("backend_name", BOTH)
def test_wrong_from_is_one_clear_line_and_a_non_zero_exit(tmp_path, backend_name):
    task_dir = _task(tmp_path, "FROM matchmeter-no-such-base:9\nRUN true\n")
    done = _cli("run", "--out", str(tmp_path / "run"), "--tasks", str(task_dir), "--agent", "oracle",
                "--backend", backend_name, "--quiet")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    for part in ("FROM matchmeter-no-such-base:9", "environment/Dockerfile", "matchmeter env build-base",
                 "--base-alias NAME=IMAGE"):
        assert part in lines[0]
    assert not list((tmp_path / "run").glob("executions/*/result.json"))  # nothing stored as infra_error


@pytest.mark.slow
@pytest.mark.parametrize("backend_name", BOTH)
def test_base_alias_runs_a_task_from_an_image_that_cannot_be_pulled(tmp_path, backend_name):
    import docker

    task_dir = _task(tmp_path, "FROM ubuntu:24.04\n# TOKEN\nRUN printf 'seed-0' > /app/preset.txt\n")
    (task_dir / "solution" / "solve.sh").write_text("cp preset.txt out.txt\n")  # only the image holds preset.txt
    client = docker.from_env()
    had_ubuntu = any("ubuntu:24.04" in image.tags for image in client.images.list(name="ubuntu"))
    refused = _cli("tasks", "check", str(task_dir), "--backend", backend_name, "--seeds", "1")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "FROM ubuntu:24.04" in refused.stderr
    done = _cli("tasks", "check", str(task_dir), "--backend", backend_name, "--seeds", "1",
                "--base-alias", f"ubuntu:24.04={BASE_IMAGE}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1/1 task×seed checks pass" in done.stdout
    # the alias built from a rewritten copy: no tag was added to the user's engine
    assert any("ubuntu:24.04" in image.tags for image in client.images.list(name="ubuntu")) == had_ubuntu
    client.close()


# ---------------------------------------------------------------- bwrap: the exported image


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.docker
def test_image_rootfs_is_exported_once_for_concurrent_and_later_trials(tmp_path, monkeypatch):
    task_dir = _task(tmp_path, "FROM matchmeter-base:latest\n# TOKEN\nRUN printf once > /opt/once\n")
    exports: list[str] = []
    real_export = rootfs._export_image

    def counting_export(image: str, dest: Path) -> bool:
        exports.append(image)
        return real_export(image, dest)

    monkeypatch.setattr(rootfs, "_export_image", counting_export)
    backend = get_backend("bwrap")
    backend.preflight()
    roots, outputs, errors = [], [], []

    def trial() -> None:  # a whole trial per thread: bwrap dies with the thread that started it
        try:
            box = backend.create(_request(task_dir))
            try:
                roots.append(box.root)
                outputs.append(box.exec("cat /opt/once", 30).output)
            finally:
                box.destroy()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=trial) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert outputs == ["once"] * 3
    root = rootfs.image_rootfs_path(Environment(task_dir / "environment").key)
    assert roots == [root] * 3
    assert rootfs.is_complete(root)
    assert json.loads((root / rootfs.MARKER).read_text())["image"].startswith("matchmeter-task-env-task-")
    later = get_backend("bwrap").create(_request(task_dir))  # a new backend (a new run) reuses the export
    later.destroy()
    assert len(exports) == 1


@pytest.mark.slow
@pytest.mark.bwrap
def test_bwrap_without_an_engine_refuses_a_task_that_needs_its_image(tmp_path):
    dead = {"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"}
    task_dir = _task(tmp_path, "FROM matchmeter-base:latest\n# TOKEN\nRUN touch /opt/needs-build\n")
    done = _cli("run", "--out", str(tmp_path / "run"), "--tasks", str(task_dir), "--agent", "oracle",
                "--backend", "bwrap", "--quiet", env=dead)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "no Docker engine answers" in lines[0]
    assert "environment/Dockerfile" in lines[0]
    # a Dockerfile that only starts FROM the base still runs on the base root filesystem
    plain = _task(tmp_path / "plain", "# TOKEN\nFROM matchmeter-base:latest\n", test_tmp=tmp_path)
    ok = _cli("run", "--out", str(tmp_path / "run-plain"), "--tasks", str(plain), "--agent", "oracle",
              "--backend", "bwrap", "--quiet", "--json", env=dead)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["executed"] == 1


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.docker
def test_an_image_whose_app_is_a_link_gets_a_plain_empty_workspace(tmp_path):
    task_dir = _task(tmp_path, "FROM matchmeter-base:latest\n# TOKEN\nRUN rm -rf /app && ln -s /etc /app\n")
    box = get_backend("bwrap").create(_request(task_dir))
    try:
        out = box.exec("ls -A /app | wc -l; test -L /app && echo link || echo dir", 30)
        assert out.output.split() == ["0", "dir"]
        assert list(box.dirs.app.iterdir()) == []  # nothing of the host's /etc was copied in
    finally:
        box.destroy()
