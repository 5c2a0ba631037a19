"""Shared fixtures: user/cache dirs go to tmp_path; markers skip only with a stated reason."""

from __future__ import annotations

import shutil
import subprocess

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("MATCHMETER_HOME", str(tmp_path / "mm-home"))
    monkeypatch.setenv("MATCHMETER_CACHE_DIR", str(tmp_path / "mm-cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _trajectories_are_atif(tmp_path):
    """Every trajectory.atif.json a test writes under its tmp_path must validate (tests/helpers/atif.py)."""
    yield
    from tests.helpers.atif import check_atif_files

    problems = check_atif_files(tmp_path)
    assert not problems, "invalid ATIF trajectories:\n" + "\n".join(problems[:20])


def pytest_sessionfinish(session, exitstatus):
    """The same check over the whole session's temp root (module- and session-scoped fixtures' dirs), plus
    Harbor's own ATIF model when MM_HARBOR_PYTHON is set (CI)."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or factory._basetemp is None:
        return
    from tests.helpers.atif import check_atif_files, harbor_problems

    problems = check_atif_files(factory.getbasetemp()) + harbor_problems(factory.getbasetemp())
    if problems:
        print("\ninvalid ATIF trajectories:\n" + "\n".join(problems[:20]))
        session.exitstatus = 1


def docker_available() -> tuple[bool, str]:
    if shutil.which("docker") is None:
        return False, "docker CLI not found"
    try:
        proc = subprocess.run(["docker", "version"], capture_output=True, text=True, timeout=20)
    except Exception as exc:  # noqa: BLE001 - any probe failure means no engine
        return False, f"`docker version` failed: {exc}"
    if proc.returncode != 0:
        return False, f"`docker version` failed: {proc.stderr.strip()[:200]}"
    return True, ""


def pytest_collection_modifyitems(config, items):
    has_docker, why_docker = docker_available()
    has_bwrap = shutil.which("bwrap") is not None
    for item in items:
        if "docker" in item.keywords and not has_docker:
            item.add_marker(pytest.mark.skip(reason=f"no Docker engine answers: {why_docker}"))
        if "bwrap" in item.keywords and not has_bwrap:
            item.add_marker(pytest.mark.skip(reason="bubblewrap (bwrap) is not installed: apt-get install bubblewrap"))
