"""The README's real-model workflow (run → calibrate → score → optimize → evaluate → report) end to end against
local OpenAI-compatible servers that misbehave mid-command (tests/helpers/misbehaving_server.py: real HTTP on
127.0.0.1, not the sim stub), through the console script: every exit code, message and stored failure mode
the README's "Failures are loud" paragraph promises, and the server's own request counts (one retry layer).

On the old code this failed at its first step: the malformed replies were stored as agent_error and the
run exited 0.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from matchmeter.optimizer.sim_replies import judge_reply, rewriter_reply
from tests.helpers.misbehaving_server import MisbehavingServer
from tests.helpers.runs import stored_results
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter
from tests.pipeline.test_real_models_e2e import INSTRUCTIONS, PRICES, target


def _flat(text: str) -> str:
    return " ".join(text.split())


def _modes(run_dir: Path) -> list[str]:
    return sorted(json.loads(p.read_text())["failure_mode"] for p in stored_results(run_dir))


@pytest.mark.slow  # about 25 local-sandbox trials and a 5 s hung call: ~2-3 min on the loaded 2-core machine
def test_the_real_model_workflow_against_servers_that_misbehave(tmp_path):
    tasks, slow = tmp_path / "tasks", tmp_path / "slow-tasks"
    for task_id, instruction in INSTRUCTIONS.items():
        (write_task(tasks, task_id) / "instruction.md").write_text(instruction)
    write_task(slow, "copy-slow", agent_s=5)
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    with MisbehavingServer(target, "coder") as coder, \
            MisbehavingServer(lambda r: rewriter_reply(r).text, "writer") as writer, \
            MisbehavingServer(lambda r: judge_reply(r).text, "judge") as judge:
        reach = ["--api-base", coder.api_base, "--prices", prices]
        run = ["run", "--tasks", tasks, "--agent", "bash", "--model", "openai/coder", *reach, "--backend", "local",
               "--out", tmp_path / "run", "--quiet"]

        # run: the server sends malformed JSON mid-run → infra_error naming the endpoint, exit 1,
        # 4 requests per execution (the one retry layer), never agent_error
        coder.fault = "malformed"
        proc = run_matchmeter(*run)
        assert proc.returncode == 1, proc.stderr
        err = _flat(proc.stderr)
        assert f"first infra_error: copy-a seed 0 (openai/coder+bash): the model endpoint failed: malformed reply " \
               f"from model openai/coder at {coder.api_base}" in err
        assert "every one of the 3 new executions failed for infrastructure reasons" in err
        assert "--resume --retry-failed infra_error" in err
        assert _modes(tmp_path / "run") == ["infra_error"] * 3
        assert (coder.count("ok"), coder.count("malformed")) == (1, 3 * 4)

        # the server is fixed: --resume keeps the failures, --retry-failed infra_error reruns them
        coder.fault = "ok"
        assert json.loads(run_matchmeter(*run, "--resume", "--json").stdout)["executed"] == 0
        proc = run_matchmeter(*run, "--resume", "--retry-failed", "infra_error", "--json")
        assert proc.returncode == 0, proc.stderr
        summary = json.loads(proc.stdout)
        assert (summary["retried"], summary["failure_modes"]) == (3, {"none": 3})
        assert summary["mean_reward"] == pytest.approx((0.75 + 1 + 1) / 3)

        # a hung server: the call in flight is cut at the task's 5 s agent limit, the message names the endpoint
        coder.fault = "hang"
        started = time.monotonic()
        proc = run_matchmeter("run", "--tasks", slow, "--agent", "bash", "--model", "openai/coder", *reach,
                              "--backend", "local", "--out", tmp_path / "hung", "--quiet", "--no-cache")
        assert time.monotonic() - started < 60
        assert proc.returncode == 0, proc.stderr  # the model used up its time: a result, not an infra failure
        assert f"the task's agent deadline passed while waiting 5s for model openai/coder at {coder.api_base}" \
            in _flat(proc.stderr)
        assert _modes(tmp_path / "hung") == ["agent_timeout"]
        coder.fault = "ok"

        cal = tmp_path / "cal.json"
        assert run_matchmeter("calibrate", tmp_path / "run", "--out", cal).returncode == 0
        scores = run_matchmeter("score", tmp_path / "run", "--calibration", cal, "--out-dir", tmp_path / "scores",
                                "--json")
        assert scores.returncode == 0, scores.stderr
        assert json.loads(scores.stdout)["scores"][0]["n_executions"] == 3

        # optimize: the rewriter's server answers 503 mid-command → one line, exit 1, the resume command; the
        # server received the 4 attempts the message reports; after the fix the same command finishes
        optimize = ["optimize", "--run", tmp_path / "run", "--out", tmp_path / "descset", "--candidates", "2",
                    "--no-generic", "--quiet", "--prices", prices, "--rewriter-model", "openai/writer",
                    "--rewriter-api-base", writer.api_base, "--judge-model", "openai/judge",
                    "--judge-api-base", judge.api_base, "--allow-unmeasured-judge"]
        writer.fault = "503"
        proc = run_matchmeter(*optimize)
        assert proc.returncode == 1, proc.stderr
        err = _flat(proc.stderr)
        assert f"error: model openai/writer at {writer.api_base}: ServiceUnavailableError persisted after 4 attempts" \
            in err
        assert "resume by running the same command again: matchmeter optimize" in err
        assert "Traceback" not in proc.stderr
        assert writer.count("503") == 4
        writer.fault = "ok"
        proc = run_matchmeter(*optimize)
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / "descset" / "descriptions.json").exists()

        # evaluate: --out at a user's directory is refused and left as it was
        mine = tmp_path / "mine"
        mine.mkdir()
        (mine / "results.parquet").write_bytes(b"mine")
        evaluate = ["evaluate", "--descriptions", tmp_path / "descset", "--target", "bash:openai/coder", *reach,
                    "--reuse", tmp_path / "run", "--conditions", "original,self", "--tasks", tasks,
                    "--backend", "local", "--quiet", "--no-cache"]
        proc = run_matchmeter(*evaluate, "--out", mine)
        assert proc.returncode == 2
        assert "--out is a directory that holds files but no matchmeter output" in _flat(proc.stderr)
        assert [p.name for p in mine.iterdir()] == ["results.parquet"]
        assert (mine / "results.parquet").read_bytes() == b"mine"

        # evaluate: the key is revoked after preflight → infra_error, not retried (a key does not come back),
        # exit 1; after the fix the same command reruns the stored failures
        coder.fault = "401"
        proc = run_matchmeter(*evaluate, "--out", tmp_path / "eval")
        assert proc.returncode == 1, proc.stderr
        assert "the server rejected the API key (HTTP 401)" in _flat(proc.stderr)
        failed = coder.count("401")
        assert failed >= 1
        assert set(_modes(tmp_path / "eval")) >= {"infra_error"}
        assert "agent_error" not in _modes(tmp_path / "eval")
        coder.fault = "ok"
        proc = run_matchmeter(*evaluate, "--out", tmp_path / "eval")
        assert proc.returncode == 0, proc.stderr
        assert set(_modes(tmp_path / "eval")) == {"none"}

        report = run_matchmeter("report", tmp_path / "run", tmp_path / "eval", "--calibration", cal,
                                "--out", tmp_path / "report.html", "--quiet", "--bootstrap", "20", "--draws", "10")
        assert report.returncode == 0, report.stderr
        assert (tmp_path / "report.html").exists()
    # every execution of the 401 evaluate was one request: nothing retried a rejected key
    assert failed == len(list((tmp_path / "eval" / "retried").iterdir()))
