"""Real-model failures are loud: each bad setup fails at preflight with one line naming the endpoint and
the fix (exit 2, nothing stored); failures during a run are printed, stored as infra_error (never the
model's agent_error), make an all-infra run exit 1, and are rerun by `--resume --retry-failed`.

The stub server stands in for a local OpenAI-compatible server (vLLM, llama.cpp) under non-sim names.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from matchmeter.llm.preflight import PING
from matchmeter.llm.stub_server import StubReply, StubServer
from tests.helpers.runs import stored_results
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

MM = [sys.executable, "-m", "matchmeter.cli"]
COPY = "THOUGHT: copy it.\n```bash\ncp data/input.txt out.txt\n```"
SUBMIT = "THOUGHT: done.\n```bash\nsubmit\n```"


def solver(request: dict) -> str:
    """A stateless local model: answers the preflight ping, copies on its first turn, then submits."""
    messages = request["messages"]
    if messages[-1]["content"] == PING[0]["content"]:
        return "OK"
    return COPY if len(messages) <= 2 else SUBMIT


def _mm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return run_matchmeter(*args, timeout=timeout)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def tasks(tmp_path) -> Path:
    write_task(tmp_path / "tasks", "copy-file")
    return tmp_path / "tasks"


def _run(tasks: Path, out: Path, model: str, api_base: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return _mm("run", "--tasks", str(tasks), "--agent", "bash", "--model", model, "--api-base", api_base,
               "--backend", "local", "--out", str(out), "--quiet", *extra)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_missing_key_variable_fails_at_preflight_naming_the_variable(tasks, tmp_path, monkeypatch):
    monkeypatch.delenv("MM_TEST_KEY", raising=False)
    with StubServer(solver) as stub:
        proc = _run(tasks, tmp_path / "run", "openai/coder", stub.api_base, "--api-key-env", "MM_TEST_KEY")
        assert stub.stats.http_calls == 0
    assert proc.returncode == 2
    assert "environment variable MM_TEST_KEY is not set" in _flat(proc.stderr)
    assert "export MM_TEST_KEY=<your key>" in _flat(proc.stderr)
    assert not (tmp_path / "run").exists()


def test_nothing_listening_fails_at_preflight_naming_the_endpoint(tasks, tmp_path):
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    proc = _run(tasks, tmp_path / "run", "openai/coder", dead)
    assert proc.returncode == 2
    err = _flat(proc.stderr)
    assert f"preflight failed: cannot reach {dead} for model openai/coder" in err
    assert "start the server, or fix --api-base" in err
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")] == [proc.stderr.splitlines()[-1]]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()


def test_rejected_key_is_a_user_error_at_preflight(tasks, tmp_path, monkeypatch):
    monkeypatch.setenv("MM_TEST_KEY", "not-the-key")
    with StubServer(solver, api_key="the-key") as stub:
        proc = _run(tasks, tmp_path / "run", "openai/coder", stub.api_base, "--api-key-env", "MM_TEST_KEY")
    assert proc.returncode == 2
    err = _flat(proc.stderr)
    assert "the server rejected the API key (HTTP 401)" in err
    assert f"endpoint {stub.api_base}, model openai/coder" in err
    assert "check $MM_TEST_KEY" in err


def test_model_typo_on_the_server_is_a_user_error_at_preflight(tasks, tmp_path):
    with StubServer(solver, models=["coder"]) as stub:
        proc = _run(tasks, tmp_path / "run", "openai/codr", stub.api_base)
    assert proc.returncode == 2
    err = _flat(proc.stderr)
    assert "model not found" in err
    assert "The model `codr` does not exist" in err
    assert f"endpoint {stub.api_base}, model openai/codr" in err
    assert "/v1/models" in err


def test_provider_typo_is_a_user_error_at_preflight(tasks, tmp_path):
    with StubServer(solver) as stub:
        proc = _run(tasks, tmp_path / "run", "opnai/coder", stub.api_base)
        assert stub.stats.http_calls == 0
    assert proc.returncode == 2
    assert "unknown provider in the model string" in _flat(proc.stderr)
    assert "write provider/model" in _flat(proc.stderr)


def test_malformed_json_is_a_user_error_at_preflight(tasks, tmp_path):
    with StubServer(lambda request: StubReply(fault="malformed")) as stub:
        proc = _run(tasks, tmp_path / "run", "openai/coder", stub.api_base)
    assert proc.returncode == 2
    err = _flat(proc.stderr)
    assert "the server's reply is not an OpenAI chat completion" in err
    assert "point --api-base at an OpenAI-compatible /v1 endpoint" in err


def test_failures_during_a_run_are_printed_stored_as_infra_and_retried(tasks, tmp_path, monkeypatch):
    """The key is revoked after preflight: every execution fails with a 401. The first error is printed,
    the failure is stored as infra_error (not agent_error), the run exits 1; a retry after the fix works."""
    monkeypatch.setenv("MM_TEST_KEY", "the-key")
    out = tmp_path / "run"

    def revoke_after_ping(request):
        if request["messages"][-1]["content"] == PING[0]["content"]:
            stub.api_key = "revoked"  # the next request is refused with 401
        return solver(request)

    with StubServer(revoke_after_ping, api_key="the-key") as stub:
        failed = _run(tasks, out, "openai/coder", stub.api_base, "--api-key-env", "MM_TEST_KEY", "--seeds", "2")
    assert failed.returncode == 1, failed.stderr
    err = _flat(failed.stderr)
    assert err.count("first infra_error: copy-file seed") == 1
    assert "the server rejected the API key (HTTP 401)" in err
    assert "every one of the 2 new executions failed for infrastructure reasons" in err
    results = [json.loads(p.read_text()) for p in stored_results(out)]
    assert [r["failure_mode"] for r in results] == ["infra_error", "infra_error"]
    assert "rejected the API key" in results[0]["error"]

    # plain --resume keeps stored failures; --retry-failed reruns them
    with StubServer(solver, api_key="the-key") as fixed:
        kept = _run(tasks, out, "openai/coder", fixed.api_base, "--api-key-env", "MM_TEST_KEY", "--seeds", "2",
                    "--resume", "--json")
        assert kept.returncode == 0, kept.stderr
        assert json.loads(kept.stdout)["executed"] == 0
        retried = _run(tasks, out, "openai/coder", fixed.api_base, "--api-key-env", "MM_TEST_KEY", "--seeds", "2",
                       "--resume", "--retry-failed", "infra_error", "--json")
    assert retried.returncode == 0, retried.stderr
    summary = json.loads(retried.stdout)
    assert (summary["retried"], summary["executed"], summary["infra_failures"]) == (2, 2, 0)
    assert summary["mean_reward"] == 1.0
    assert summary["failure_modes"] == {"none": 2}
    assert summary["lm_calls"] == 4
    assert summary["lm_cache_hits"] == 0
    assert len(list((out / "retried").iterdir())) == 2  # the failed executions are kept aside, not deleted
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["lm_calls"], manifest["lm_cache_hits"]) == (4, 0)


def test_retry_failed_needs_resume_and_known_modes(tasks, tmp_path):
    with StubServer(solver) as stub:
        proc = _run(tasks, tmp_path / "run", "openai/coder", stub.api_base, "--retry-failed", "infra_eror")
        assert stub.stats.http_calls == 0  # a flag error is found before any endpoint is called
        missing = _run(tasks, tmp_path / "run", "openai/coder", stub.api_base, "--retry-failed", "infra_error")
        assert stub.stats.http_calls == 0
    assert proc.returncode == 2
    assert "unknown failure mode 'infra_eror' (--retry-failed): choose from" in _flat(proc.stderr)
    assert missing.returncode == 2
    assert "--retry-failed only applies to a stored run (--retry-failed): add --resume" in _flat(missing.stderr)
    assert not (tmp_path / "run").exists()


def test_ctrl_c_prints_how_to_resume_even_with_quiet(tasks, tmp_path):
    out = tmp_path / "run"

    def slow(request):
        return StubReply(text=solver(request), delay_s=0 if request["messages"][-1]["content"] == PING[0]["content"] else 20)

    with StubServer(slow) as stub:
        proc = subprocess.Popen([*MM, "run", "--tasks", str(tasks), "--agent", "bash", "--model", "openai/coder",
                                 "--api-base", stub.api_base, "--backend", "local", "--out", str(out), "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while stub.stats.http_calls < 2 and time.monotonic() < deadline:  # the ping, then the agent's first call
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert f"interrupted; resume with: matchmeter run --tasks {tasks}" in _flat(stderr)
    assert _flat(stderr).split("interrupted; resume with: ")[1].split(" interrupted")[0].endswith("--quiet --resume")


def test_spend_cap_warns_for_unpriced_models_and_prices_file_prices_them(tasks, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('table_id = "my-local"\n[[price]]\npattern = "openai/coder"\ninput = 2.0\n'
                      'cached_input = 0.0\noutput = 8.0\nreasoning = 8.0\n')
    with StubServer(solver) as stub:
        unpriced = _run(tasks, tmp_path / "a", "openai/coder", stub.api_base, "--spend-cap", "1", "--json")
        priced = _run(tasks, tmp_path / "b", "openai/coder", stub.api_base, "--spend-cap", "1", "--json",
                      "--prices", str(prices))
        usages = stub.stats.usages
    assert unpriced.returncode == 0, unpriced.stderr
    assert "--spend-cap $1 cannot stop spend on unpriced model(s) openai/coder" in _flat(unpriced.stderr)
    assert priced.returncode == 0
    assert "spend-cap" not in priced.stderr
    [a] = [json.loads(p.read_text()) for p in stored_results(tmp_path / "a")]
    [b] = [json.loads(p.read_text()) for p in stored_results(tmp_path / "b")]
    assert a["cost"]["usd"] is None
    assert "custom endpoint" in a["cost"]["null_reason"]
    # requests: a's ping, copy, submit; b's ping only — b's replies came from the cache (same endpoint), and a
    # hit is priced from the original usage with b's table
    assert len(usages) == 4
    assert (json.loads(priced.stdout)["lm_calls"], json.loads(priced.stdout)["lm_cache_hits"]) == (2, 2)
    expected = sum(u["prompt_tokens"] * 2.0 + u["completion_tokens"] * 8.0 for u in usages[1:3]) / 1_000_000
    assert b["cost"]["usd"] == pytest.approx(expected, rel=1e-12)
    ma, mb = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("a", "b"))
    assert (ma["price_table_id"], mb["price_table_id"]) == ("2026-11-01", "2026-11-01+my-local")
    assert ma["price_table_digest"] != mb["price_table_digest"]
    assert len(mb["price_table_digest"]) == 64
