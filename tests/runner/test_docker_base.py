"""The docker backend's own machinery: base image, task images, limits, labels, prune, failure cleanup."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError, UserError
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.sandbox import baseimage as bi
from matchmeter.runner.sandbox.docker import DockerSandbox
from matchmeter.schema import EnvironmentSpec

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def client():
    bi.build_base_image()
    return bi.docker_client()


def labelled(client, label: str) -> list:
    return client.containers.list(all=True, filters={"label": f"matchmeter.label={label}"})


def request(env_dir: Path, label: str, **kw) -> SandboxRequest:
    return SandboxRequest(task_id="docker-base", environment_dir=env_dir, label=label, **kw)


def test_base_image_is_cached_and_has_the_tools(client, tmp_path):
    image_id = client.images.get(bi.BASE_IMAGE).id
    started = time.monotonic()
    assert bi.build_base_image() == bi.BASE_IMAGE
    assert time.monotonic() - started < 10  # no second debootstrap
    assert client.images.get(bi.BASE_IMAGE).id == image_id
    sb = get_backend("docker").create(request(tmp_path, f"base-{secrets.token_hex(3)}"))
    try:
        tools = "bash python3 git curl jq sqlite3 bc file patch xz ps less timeout mktemp"
        result = sb.exec(f"for t in {tools}; do command -v $t >/dev/null || echo missing $t; done; echo done", 20)
    finally:
        sb.destroy()
    assert result.output == "done\n"


def test_task_image_builds_from_the_dockerfile_and_is_reused(client, tmp_path):
    env_dir = tmp_path / "environment"
    env_dir.mkdir()
    marker = secrets.token_hex(4)
    (env_dir / "Dockerfile").write_text(f"FROM {bi.BASE_IMAGE}\nRUN printf {marker} > /opt/marker\n")
    task_id = f"t-{marker}"
    tag = bi.task_image(client, task_id, env_dir)
    try:
        assert tag == f"matchmeter-task-{task_id}:{bi.Environment(env_dir).key}"
        started = time.monotonic()
        assert bi.task_image(client, task_id, env_dir) == tag
        assert time.monotonic() - started < 5  # reused, not rebuilt
        sb = get_backend("docker").create(SandboxRequest(task_id=task_id, environment_dir=env_dir, label=task_id))
        try:
            assert sb.exec("cat /opt/marker", 20).output == marker
        finally:
            sb.destroy()
        (env_dir / "extra.txt").write_text("changes the digest")
        assert bi.Environment(env_dir).key != tag.rsplit(":", 1)[1]
    finally:
        client.images.remove(tag, force=True)


def test_dockerfile_from_an_image_that_is_not_local_is_refused_and_leaves_nothing(client, tmp_path):
    env_dir = tmp_path / "environment"
    env_dir.mkdir()
    (env_dir / "Dockerfile").write_text("FROM matchmeter-test-not-local:0\nRUN true\n")  # never pulled
    label = f"refused-{secrets.token_hex(3)}"
    with pytest.raises(UserError, match=r"starts FROM matchmeter-test-not-local:0, which is not a local image.*"
                                        r"matchmeter env build-base.*--base-alias NAME=IMAGE"):
        get_backend("docker").create(request(env_dir, label))
    assert labelled(client, label) == []


def test_limits_labels_and_network_mode_reach_the_container(client, tmp_path):
    label = f"limits-{secrets.token_hex(3)}"
    sb = get_backend("docker").create(request(tmp_path, label, environment=EnvironmentSpec(cpus=0.5, memory_mb=256)))
    try:
        sb.container.reload()
        host = sb.container.attrs["HostConfig"]
        assert (host["NanoCpus"], host["Memory"], host["NetworkMode"]) == (500_000_000, 256 * 1024 * 1024, "none")
        assert sb.container.labels == {"matchmeter": "1", "matchmeter.label": label}
        assert sb.container.attrs["Config"]["WorkingDir"] == "/app"
    finally:
        sb.destroy()


def test_interrupt_during_create_removes_the_container(client, tmp_path, monkeypatch):
    label = f"create-int-{secrets.token_hex(3)}"

    def interrupted(self, argv, timeout_s, env):
        assert labelled(client, label) != []  # the container exists when the interrupt lands
        raise KeyboardInterrupt

    monkeypatch.setattr(DockerSandbox, "_raw_exec", interrupted)
    with pytest.raises(KeyboardInterrupt):
        get_backend("docker").create(request(tmp_path, label))
    assert labelled(client, label) == []


def test_prune_removes_only_matchmeter_containers_of_the_label(client, tmp_path):
    label, other = f"prune-{secrets.token_hex(3)}", f"keep-{secrets.token_hex(3)}"
    backend = get_backend("docker")
    doomed = [backend.create(request(tmp_path, label)) for _ in range(2)]
    kept = backend.create(request(tmp_path, other))
    try:
        assert bi.prune(label=label) == 2
        assert labelled(client, label) == []
        assert len(labelled(client, other)) == 1
        with pytest.raises(SandboxError):
            doomed[0].exec("true", 5)  # a pruned sandbox reports itself unreachable, not a failed command
    finally:
        for sb in [*doomed, kept]:
            sb.destroy()


def test_unreachable_engine_is_a_user_error_with_a_fix(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(UserError) as info:
        get_backend("docker").preflight()
    assert "no Docker engine answers" in info.value.what
    assert "start the Docker daemon" in info.value.fix


def test_cli_build_base_reports_the_cached_image(client):
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from matchmeter.cli import main; sys.argv=['matchmeter','env','build-base']; main()"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "base image ready: matchmeter-base:latest" in proc.stdout


def test_a_stalled_engine_cannot_block_an_exec_forever(client, tmp_path, monkeypatch):
    import matchmeter.runner.sandbox.docker as docker_backend

    label = f"stall-{secrets.token_hex(3)}"
    sb = get_backend("docker").create(request(tmp_path, label))
    # Stand-in for an engine that never finishes the stream: the wrapper ignores the command's deadline.
    monkeypatch.setattr(docker_backend, "EXEC_WRAPPER", "sleep 600")
    monkeypatch.setattr(docker_backend, "ENGINE_SLACK_S", 1.0)
    started = time.monotonic()
    try:
        with pytest.raises(SandboxError, match="did not finish an exec"):
            sb.exec("true", 1.0)
        assert time.monotonic() - started < 30
        assert labelled(client, label) == []
    finally:
        sb.destroy()


def test_preflight_asks_the_engine_once_per_process_and_engine(client, monkeypatch):
    """Issue 35: a run, an evaluation or a benchmark makes several backends; the engine and the base image are
    asked about once per process, and again for another $DOCKER_HOST (which answers for itself: unreachable)."""
    from matchmeter.runner.sandbox import docker as docker_backend

    get_backend("docker").preflight()
    asked = docker_backend._base_image_ready.cache_info()
    get_backend("docker").preflight()
    again = docker_backend._base_image_ready.cache_info()
    assert (again.hits, again.misses) == (asked.hits + 1, asked.misses)
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(UserError):
        get_backend("docker").preflight()
