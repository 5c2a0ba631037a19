"""The README's real-model workflow end to end, with three loopback stub servers standing in for local
OpenAI-compatible servers (target, rewriter, judge: three endpoints, three keys) under non-sim names:
run → calibrate → score → optimize → evaluate --reuse → report. Every step must reach exactly the
servers it should (stub call counters), and a second pass with a warm cache must give the same numbers
as the first pass with an empty cache, while only the preflight pings reach the servers.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from matchmeter.llm.preflight import PING
from matchmeter.llm.stub_server import StubServer
from matchmeter.optimizer.sim_replies import judge_reply, rewriter_reply
from tests.helpers.tasks import write_task

MM = [sys.executable, "-m", "matchmeter.cli"]
COPY = "THOUGHT: copy it.\n```bash\ncp data/input.txt out.txt\n```"
SUBMIT = "THOUGHT: done.\n```bash\nsubmit\n```"
PRICES = """table_id = "e2e-local"
[[price]]
pattern = "openai/coder"
input = 0.5
cached_input = 0.05
output = 1.5
reasoning = 1.5
[[price]]
pattern = "openai/writer"
input = 3.0
cached_input = 0.3
output = 15.0
reasoning = 15.0
[[price]]
pattern = "openai/judge"
input = 1.0
cached_input = 0.1
output = 4.0
reasoning = 4.0
"""


def _is_ping(request: dict) -> bool:
    return request["messages"][-1]["content"] == PING[0]["content"]


GUESS = "THOUGHT: which file? guess.\n```bash\necho guess > out.txt\n```"
INSTRUCTIONS = {  # copy-a's Original is vague for this model; a rewrite that says it explicitly helps
    "copy-a": "Copy the input file in data/ to out.txt in the working directory.\n",
    "copy-b": "Copy data/input.txt to out.txt.\n",
    "copy-c": "Please copy data/input.txt to out.txt in the working directory.\n",
}


def target(request: dict) -> str:
    """A local model that copies when the file is named or the description is explicit, else guesses."""
    messages = request["messages"]
    if _is_ping(request):
        return "OK"
    if len(messages) > 2:
        return SUBMIT
    text = messages[-1]["content"]
    return COPY if "data/input.txt" in text or "explicit" in text or "literally" in text else GUESS


def rewriter(request: dict):  # noqa: ANN201 - a stub responder
    return "OK" if _is_ping(request) else rewriter_reply(request)


def judge(request: dict):  # noqa: ANN201 - a stub responder
    return "OK" if _is_ping(request) else judge_reply(request)


def _mm(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*MM, *args], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc


class Servers:
    def __init__(self) -> None:
        self.target = StubServer(target, api_key="t-key", models=["coder"]).start()
        self.rewriter = StubServer(rewriter, api_key="r-key", models=["writer"]).start()
        self.judge = StubServer(judge, api_key="j-key", models=["judge"]).start()

    def calls(self) -> tuple[int, int, int]:
        return self.target.stats.http_calls, self.rewriter.stats.http_calls, self.judge.stats.http_calls

    def stop(self) -> None:
        for s in (self.target, self.rewriter, self.judge):
            s.stop()


@pytest.fixture
def servers(monkeypatch):
    monkeypatch.setenv("MM_TARGET_KEY", "t-key")
    monkeypatch.setenv("MM_REWRITER_KEY", "r-key")
    monkeypatch.setenv("MM_JUDGE_KEY", "j-key")
    found = Servers()
    yield found
    found.stop()


def _delta(servers: Servers, before: tuple[int, int, int]) -> tuple[int, int, int]:
    now = servers.calls()
    return now[0] - before[0], now[1] - before[1], now[2] - before[2]


def pipeline(root: Path, tasks: Path, prices: Path, s: Servers, evaluate_flags: tuple[str, ...] = ()) -> dict:
    """Every step of the README's real-model section; returns the numbers and the per-step server calls."""
    steps: dict[str, tuple[int, int, int]] = {}
    target_flags = ["--api-base", s.target.api_base, "--api-key-env", "MM_TARGET_KEY", "--prices", str(prices)]
    before = s.calls()
    run = json.loads(_mm("run", "--tasks", str(tasks), "--agent", "bash", "--model", "openai/coder", *target_flags,
                         "--backend", "local", "--out", str(root / "run"), "--quiet", "--json").stdout)
    steps["run"], before = _delta(s, before), s.calls()
    _mm("calibrate", str(root / "run"), "--out", str(root / "cal.json"))
    scores = json.loads(_mm("score", str(root / "run"), "--calibration", str(root / "cal.json"),
                            "--out-dir", str(root / "scores"), "--json").stdout)
    steps["calibrate+score"], before = _delta(s, before), s.calls()
    optimize = _mm("optimize", "--run", str(root / "run"), "--out", str(root / "descset"), "--candidates", "2",
                   "--no-generic", "--quiet", "--prices", str(prices),
                   "--rewriter-model", "openai/writer", "--rewriter-api-base", s.rewriter.api_base,
                   "--rewriter-api-key-env", "MM_REWRITER_KEY",
                   "--judge-model", "openai/judge", "--judge-api-base", s.judge.api_base,
                   "--judge-api-key-env", "MM_JUDGE_KEY", "--allow-unmeasured-judge").stdout
    steps["optimize"], before = _delta(s, before), s.calls()
    evaluate = _mm("evaluate", "--descriptions", str(root / "descset"), "--target", "bash:openai/coder",
                   *target_flags, "--reuse", str(root / "run"), "--conditions", "original,self",
                   "--tasks", str(tasks), "--backend", "local", "--out", str(root / "eval"), "--quiet",
                   *evaluate_flags).stdout
    steps["evaluate"], before = _delta(s, before), s.calls()
    report = _mm("report", str(root / "run"), str(root / "eval"), "--calibration", str(root / "cal.json"),
                 "--out", str(root / "report.html"), "--quiet", "--bootstrap", "20", "--draws", "10").stdout
    steps["report"] = _delta(s, before)
    evaluated = pd.read_parquet(root / "eval" / "results.parquet").sort_values("execution_key")
    return {"run": run, "scores": scores["scores"], "optimize": " ".join(optimize.split()),
            "evaluate": " ".join(evaluate.split()), "report": " ".join(report.split()), "steps": steps,
            "evaluated": evaluated[["execution_key", "task_id", "description_origin", "reward", "cost_usd",
                                    "tokens_total", "failure_mode"]].reset_index(drop=True)}


@pytest.mark.slow  # two whole pipelines, 26 local-sandbox trials: ~6 min on a loaded 2-core machine
def test_real_model_workflow_hits_the_right_servers_and_cache_changes_no_number(tmp_path, servers):
    tasks = tmp_path / "tasks"
    for task_id, instruction in INSTRUCTIONS.items():  # calibration needs at least 3 tasks
        (write_task(tasks, task_id) / "instruction.md").write_text(instruction)
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)

    # evaluate --no-cache: optimize's source-side trial already asked copy-a's rewrite the same questions
    cold = pipeline(tmp_path / "cold", tasks, prices, servers, ("--no-cache",))
    # run: 1 preflight ping + 3 tasks × (copy, submit) on the target only
    assert cold["steps"]["run"] == (7, 0, 0)
    assert cold["run"]["failure_modes"] == {"none": 3}
    assert cold["run"]["lm_cache_hits"] == 0
    assert cold["run"]["mean_reward"] == pytest.approx((0.75 + 1 + 1) / 3)
    assert cold["steps"]["calibrate+score"] == (0, 0, 0)
    [row] = cold["scores"]
    assert (row["configuration_id"], row["n_executions"]) == ("openai/coder+bash", 3)
    # optimize: the rewriter and the judge on their own endpoints with their own keys (each: a ping + work);
    # the source-side trials of each eligible candidate reach the target
    t, r, j = cold["steps"]["optimize"]
    def count(label: str) -> int:
        return int(re.search(rf"{label} (\d+)", cold["optimize"]).group(1))

    # one rewrite per task; one judge vote per candidate the rules let through; each eligible candidate runs
    # on the source (copy, submit)
    assert count("candidates generated") == 6
    rejected, eligible = count("rejected by rule"), count("eligible")
    assert rejected >= 2  # the two the first gate caught; gate v2's contract and prose-command rules may add more
    assert eligible == 6 - rejected - count("rejected by judge")
    assert (r, j) == (1 + 3, 1 + 6 - rejected), cold["optimize"]
    assert count("source-side:") == eligible
    assert t == 1 + 2 * eligible  # the source side preflights its configuration's endpoint, like run and evaluate
    assert "selected 1, fell back 2" in cold["optimize"]  # copy-a's explicit rewrite beats its Original
    assert servers.rewriter.stats.authorized_calls == servers.rewriter.stats.http_calls
    assert "spend $" in cold["optimize"]
    assert "unknown" not in cold["optimize"]
    # evaluate adopts the 3 stored Original executions (the endpoint is not part of the key) and runs Self
    assert "(3 adopted from --reuse runs)" in cold["evaluate"]
    executed = int(re.search(r"executed (\d+)", cold["evaluate"]).group(1))
    assert executed == 1
    assert cold["steps"]["evaluate"] == (1 + 2 * executed, 0, 0)
    assert "model calls 2 (0 from the response cache)" in cold["evaluate"]
    assert cold["steps"]["report"] == (0, 0, 0)
    assert "infrastructure failures" not in cold["report"]
    assert set(cold["evaluated"]["failure_mode"]) == {"none"}
    assert cold["evaluated"]["cost_usd"].notna().all()

    warm = pipeline(tmp_path / "warm", tasks, prices, servers)
    # the same steps with a warm cache: only the preflight pings reach the servers...
    assert warm["steps"] == {"run": (1, 0, 0), "calibrate+score": (0, 0, 0), "optimize": (1, 1, 1),
                             "evaluate": (1, 0, 0), "report": (0, 0, 0)}, warm["optimize"]
    assert (warm["run"]["lm_calls"], warm["run"]["lm_cache_hits"]) == (6, 6)
    assert "model calls 2 (2 from the response cache)" in warm["evaluate"]
    assert json.loads((tmp_path / "warm" / "run" / "manifest.json").read_text())["lm_cache_hits"] == 6
    # ...and every number equals the empty-cache pass
    assert warm["scores"] == cold["scores"]
    pd.testing.assert_frame_equal(warm["evaluated"], cold["evaluated"])
    assert warm["run"]["mean_reward"] == cold["run"]["mean_reward"] == pytest.approx((0.75 + 1 + 1) / 3)
