"""tests/helpers/warm_cli.py: a CLI call forked from the warm parent answers as a cold `python -m matchmeter.cli`."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import CLI, import_env_difference, is_warm, run_matchmeter


def _cold(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=cwd, stdin=subprocess.DEVNULL)


def test_a_warm_call_answers_exactly_as_a_cold_one(tmp_path):
    write_task(tmp_path / "tasks", "copy-file")
    assert is_warm(), import_env_difference()
    answers = {}
    for args in (["--help"], ["score", str(tmp_path / "none")], ["tasks", "list", "tasks"],
                 ["tasks", "list", "missing"]):
        warm, cold = run_matchmeter(*args, cwd=tmp_path, timeout=300), _cold(*args, cwd=tmp_path)
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr), args
        answers[args[-1].rsplit("/", 1)[-1]] = warm
    assert answers["tasks"].returncode == 0
    assert "copy-file" in answers["tasks"].stdout
    assert answers["missing"].returncode == 2
    assert answers["none"].returncode == 2


def test_the_callers_environment_reaches_the_child(tmp_path, monkeypatch):
    assert is_warm(), import_env_difference()  # in a later test than the one that started the parent, too
    write_task(tmp_path / "tasks", "copy-file")
    args = ["run", "--tasks", "tasks", "--agent", "bash", "--model", "openai/coder", "--api-base",
            "http://127.0.0.1:9/v1", "--api-key-env", "MM_WARM_KEY", "--backend", "local", "--out", "run", "--quiet"]
    monkeypatch.delenv("MM_WARM_KEY", raising=False)
    unset = run_matchmeter(*args, cwd=tmp_path, timeout=300)
    assert unset.returncode == 2
    assert "environment variable MM_WARM_KEY is not set" in " ".join(unset.stderr.split())
    given = run_matchmeter(*args, cwd=tmp_path, timeout=300, env={**os.environ, "MM_WARM_KEY": "k"})
    assert given.returncode == 2
    assert "MM_WARM_KEY is not set" not in given.stderr
    assert "preflight failed: cannot reach http://127.0.0.1:9/v1" in " ".join(given.stderr.split())
    assert not (tmp_path / "run").exists()


def test_a_variable_read_at_import_time_means_a_cold_start():
    call_time = {"MATCHMETER_HOME": "/elsewhere", "MM_ANY": "1", "COLUMNS": "300", "RAY_ADDRESS": "h:1",
                 "PYTHONBREAKPOINT": "0", "TIKTOKEN_CACHE_DIR": "/tokenizers"}
    assert is_warm({**os.environ, **call_time}), import_env_difference({**os.environ, **call_time})
    assert not is_warm({**os.environ, "PYTHONWARNINGS": "ignore"})
    assert not is_warm({**os.environ, "LITELLM_MODE": "PRODUCTION"})
    cold = run_matchmeter("--help", env={**os.environ, "PYTHONWARNINGS": "ignore"}, timeout=300)
    assert cold.returncode == 0
    assert "Usage" in cold.stdout


def test_a_timeout_kills_the_child_and_raises_as_subprocess_run_does(tmp_path):
    write_task(tmp_path / "tasks", "copy-file")
    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        api = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        with pytest.raises(subprocess.TimeoutExpired):
            run_matchmeter("run", "--tasks", "tasks", "--agent", "bash", "--model", "openai/coder", "--api-base", api,
                           "--backend", "local", "--out", "run", "--quiet", cwd=tmp_path, timeout=3)
    after = run_matchmeter("--help", timeout=300)  # the parent still serves
    assert after.returncode == 0
