"""Infrastructure failures per configuration, exclusion of mostly-infra configurations, re-pricing."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from matchmeter.metrics.health import check_health
from tests.helpers.warm_cli import run_matchmeter


def _row(cfg: str, mode: str, model: str = "openai/coder", cost: float | None = 0.5) -> dict:
    return {"configuration_id": cfg, "model": model, "failure_mode": mode, "cost_usd": cost, "cost_null_reason": None,
            "tokens_input": 1_000_000, "tokens_cached_input": 0, "tokens_output": 500_000, "tokens_reasoning": 0}


def test_mostly_infra_configurations_are_left_out_with_the_reason(tmp_path):
    frame = pd.DataFrame([_row("a", "infra_error"), _row("a", "sandbox_error"), _row("a", "none"),
                          _row("b", "infra_error"), _row("b", "none"), _row("b", "agent_error"),
                          _row("c", "none")])
    health = check_health(frame, [tmp_path])
    assert health.infra_errors == {"a": 2, "b": 1}
    assert health.n_executions == {"a": 3, "b": 3, "c": 1}
    assert list(health.excluded) == ["a"]
    assert health.excluded["a"].startswith("2 of 3 executions are infrastructure failures")
    assert "--retry-failed infra_error" in health.excluded["a"]
    assert sorted(health.frame["configuration_id"]) == ["b", "b", "b", "c"]
    assert health.repriced_with is None


def test_reprice_uses_the_given_table_without_prefix_stripping_on_custom_endpoints(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    # "local" as a run stored before the endpoint had its own field wrote it (agent options), "hosted" as now
    configs = [{"id": "local", "agent": {"name": "bash", "options": {"api_base": "http://127.0.0.1:8000/v1"}}},
               {"id": "hosted", "agent": {"name": "bash", "options": {}}, "endpoint": {"api_key_env": "K"}}]
    (run / "manifest.json").write_text(json.dumps({"configurations": configs}))
    prices = tmp_path / "p.toml"
    prices.write_text('table_id = "mine"\n[[price]]\npattern = "openai/coder"\ninput = 2.0\ncached_input = 0.0\n'
                      'output = 8.0\nreasoning = 8.0\n[[price]]\npattern = "gpt-4o-mini-local"\ninput = 9.0\n'
                      'cached_input = 0.0\noutput = 9.0\nreasoning = 9.0\n')
    frame = pd.DataFrame([_row("local", "none"), _row("local", "none", model="openai/gpt-4o-mini-local"),
                          _row("hosted", "none", model="openai/gpt-4o-mini-local"),
                          _row("oracle", "none", model=None, cost=0.0)])
    health = check_health(frame, [run], prices)
    assert health.repriced_with.startswith("2026-11-01+mine (digest ")
    costs = health.frame["cost_usd"].tolist()
    assert costs[0] == pytest.approx(2.0 + 0.5 * 8.0)  # 1M input at $2 + 0.5M output at $8
    assert pd.isna(costs[1])  # custom endpoint: the prefix is not stripped, so no entry matches
    assert "custom endpoint" in health.frame["cost_null_reason"][1]
    assert costs[2] == pytest.approx(9.0 + 0.5 * 9.0)  # provider default: openai/ is stripped
    assert costs[3] == 0.0  # a model-free agent keeps its stored cost


def test_score_and_report_leave_out_an_all_infra_configuration_and_say_when_they_re_price(tmp_path, monkeypatch):
    """An all-401 run (key revoked after preflight) next to an oracle run: score and report name the infra
    failures and leave that configuration out instead of ranking it at AMS 0; --prices says it re-priced."""

    from matchmeter.llm.stub_server import StubServer
    from tests.helpers.tasks import write_task
    from tests.runner.test_real_endpoints import PING, solver

    tasks = tmp_path / "tasks"
    for task_id in ("copy-a", "copy-b", "copy-c"):
        write_task(tasks, task_id)
    common = ["--tasks", str(tasks), "--backend", "local", "--quiet"]
    oracle = run_matchmeter("run", "--agent", "oracle", "--out", str(tmp_path / "oracle"), *common, timeout=600)
    assert oracle.returncode == 0, oracle.stderr
    monkeypatch.setenv("MM_TEST_KEY", "the-key")

    def revoke_after_ping(request):
        if request["messages"][-1]["content"] == PING[0]["content"]:
            stub.api_key = "revoked"
        return solver(request)

    with StubServer(revoke_after_ping, api_key="the-key") as stub:
        broken = run_matchmeter("run", "--agent", "bash", "--model", "openai/coder", "--api-base", stub.api_base,
                                 "--api-key-env", "MM_TEST_KEY", "--out", str(tmp_path / "broken"), *common, timeout=600)
    assert broken.returncode == 1
    runs = [str(tmp_path / "oracle"), str(tmp_path / "broken")]
    prices = tmp_path / "p.toml"
    prices.write_text('table_id = "mine"\n[[price]]\npattern = "openai/coder"\ninput = 1.0\ncached_input = 0.0\n'
                      'output = 1.0\nreasoning = 1.0\n')
    cal = tmp_path / "cal.json"  # calibrated with the table the runs are scored with (their grids are in its dollars)
    assert run_matchmeter("calibrate", runs[0], "--out", str(cal), "--prices", str(prices), timeout=300).returncode == 0
    scored = run_matchmeter("score", *runs, "--calibration", str(cal), "--out-dir", str(tmp_path / "s"),
                             "--json", "--prices", str(prices), timeout=300)
    assert scored.returncode == 0, scored.stderr
    payload = json.loads(scored.stdout)
    assert [r["configuration_id"] for r in payload["scores"]] == ["oracle"]
    assert payload["infra_errors"] == {"openai/coder+bash": 3}
    assert payload["excluded"]["openai/coder+bash"].startswith("3 of 3 executions are infrastructure failures")
    assert payload["repriced_with"].startswith("2026-11-01+mine (digest ")
    report = run_matchmeter("report", *runs, "--calibration", str(cal), "--out", str(tmp_path / "r.html"),
                             "--quiet", "--bootstrap", "20", "--draws", "10", "--prices", str(prices), timeout=600)
    assert report.returncode == 0, report.stderr
    assert ("infrastructure failures: openai/coder+bash: 3 of 3 executions (left out of the report: mostly "
            "infrastructure failures)") in " ".join(report.stdout.split())
