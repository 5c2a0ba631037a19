"""Harbor itself against matchmeter on the same Harbor-format tasks, and Harbor's job read by `import harbor`.

The one shared Harbor job (tests/tasks/conftest.py `harbor_job`: oracle and nop over the exported built-in
tasks and the Harbor-format fixtures harbor-multikey, harbor-steps and harbor-steps-timeout) is compared with
matchmeter's own runs of the fixtures on bwrap and docker (`mm_fixture_runs`): the rewards per key and, for the
multi-step tasks, per step are Harbor's, also after an agent timeout in a step. Then the job is imported
(`matchmeter import harbor`): every trial's rewards are
Harbor's, the per-key means `score` prints are Harbor's own job metrics (its `mean` metric in the job's
result.json), and calibrate/score run on it. Needs what test_harbor_oracle.py needs (Harbor venv, Docker,
Compose v2); skips with the reason otherwise.
"""

from __future__ import annotations

import json

import pytest

from matchmeter.schema import ExecutionResult
from tests.helpers.cli_inprocess import cli
from tests.tasks.conftest import HARBOR_FIXTURES
from tests.tasks.test_harbor_oracle import HARBOR_RUN_MARKS

pytestmark = HARBOR_RUN_MARKS


def _floats(rewards: dict | None) -> dict[str, float]:
    return {k: float(v) for k, v in (rewards or {}).items()}


# The one execution of the fixtures that fails: the oracle's step `write` of harbor-steps-timeout sleeps past its
# own agent deadline (Harbor: an AgentTimeoutError on that step).
TIMED_OUT = ("harbor-steps-timeout", "oracle")


def test_matchmeter_gives_harbors_rewards_per_key_and_per_step(harbor_job, mm_fixture_runs):
    for task in HARBOR_FIXTURES:
        for agent in ("oracle", "nop"):
            harbor, ours = harbor_job.trials[(task, agent)], mm_fixture_runs[(task, agent)]
            assert harbor["exception_info"] is None, (task, agent)
            assert harbor["reward_valid"] is True, (task, agent)
            assert ours.failure_mode == ("agent_timeout" if (task, agent) == TIMED_OUT else "none"), (task, agent)
            assert ours.rewards == _floats(harbor["verifier_result"]["rewards"]), (task, agent)
            harbor_steps = [(s["step_name"], _floats((s["verifier_result"] or {}).get("rewards")),
                             (s["exception_info"] or {}).get("exception_type")) for s in harbor["step_results"] or []]
            # each step's rewards, and which step's agent timed out
            assert [(s.name, s.rewards, "AgentTimeoutError" if "deadline" in (s.error or "") else None)
                    for s in ours.steps] == harbor_steps, (task, agent)
    # what the comparison covered: several keys, an unclamped key, a gated second step, a key one step lacks
    assert mm_fixture_runs[("harbor-multikey", "oracle")].rewards == {"correctness": 1.0, "performance": 1.5}
    assert [s.name for s in mm_fixture_runs[("harbor-steps", "nop")].steps] == ["write"]
    assert mm_fixture_runs[("harbor-steps", "oracle")].rewards == {"reward": 1.0, "lines": 1.0}
    # and a step whose agent timed out: verified, then the next step ran, as in Harbor; the timeout scores the
    # execution 0 (matchmeter's rule for every execution), its raw reward is Harbor's trial reward
    timed_out = mm_fixture_runs[TIMED_OUT]
    assert [(s.name, s.verified) for s in timed_out.steps] == [("write", True), ("extend", True)]
    assert (timed_out.reward, timed_out.raw_verifier_reward) == (0.0, 1.0)


def test_import_of_harbors_job_keeps_its_rewards_and_scores(harbor_job, tmp_path, monkeypatch, capsys):
    run = tmp_path / "imported"
    code, out, err = cli(monkeypatch, capsys, "import", "harbor", harbor_job.job_dir, "--out", run)
    assert (code, err) == (0, ""), out
    assert f"imported {len(harbor_job.trials)} trial(s)" in out
    imported = {}
    for path in (run / "executions").glob("*/result.json"):
        r = ExecutionResult.model_validate_json(path.read_text())
        imported[(r.task_id, r.configuration_id)] = r
    assert sorted(imported) == sorted(harbor_job.trials)
    for key, trial in harbor_job.trials.items():
        # a trial Harbor holds no valid reward for (an exception of its own) scores 0, as Harbor's mean counts it
        rewards = _floats(trial["verifier_result"]["rewards"]) if trial["reward_valid"] else {}
        assert imported[key].rewards == rewards, key
        scalar = rewards.get("reward", sum(min(max(v, 0), 1) for v in rewards.values()) / len(rewards)) if rewards \
            else 0.0
        assert imported[key].reward == min(max(scalar, 0.0), 1.0), key
    all_valid = all(t["reward_valid"] for t in harbor_job.trials.values())
    cal = tmp_path / "cal.json"
    assert cli(monkeypatch, capsys, "calibrate", run, "--out", cal)[0] == 0
    code, out, err = cli(monkeypatch, capsys, "score", run, "--calibration", cal, "--json", "--out-dir", tmp_path / "s")
    assert code == 0, err
    payload = json.loads(out)
    ams = {r["configuration_id"]: r["ams"] for r in payload["scores"]}
    assert ams == {"oracle": 1.0, "nop": 0.0} if all_valid else ams["oracle"] > ams["nop"], ams
    # Harbor's own per-key means of the job (its `mean` metric: every key over every trial, a missing key 0)
    stats = json.loads((harbor_job.job_dir / "result.json").read_text())["stats"]["evals"]
    for agent in ("oracle", "nop"):
        harbor_means = next(v["metrics"][0] for k, v in stats.items() if k.startswith(f"{agent}__"))
        assert payload["reward_keys"][agent] == pytest.approx(harbor_means), agent


def test_replay_refuses_harbors_result_files(harbor_job, tmp_path, monkeypatch, capsys):
    trial = next(iter(harbor_job.trials.values()))
    task = HARBOR_FIXTURES[0]
    for path in (harbor_job.job_dir / "result.json", harbor_job.job_dir / trial["trial_name"] / "result.json"):
        code, _, err = cli(monkeypatch, capsys, "run", "--tasks", f"tests/tasks/data/{task}", "--agent", "replay",
                           "--replay", path, "--backend", "local", "--out", tmp_path / "run")
        assert code != 0
        assert len(err.strip().splitlines()) == 1, err
        assert "replay file is neither a trajectory, an ATIF v1.x file nor a list of commands" in err
    assert not (tmp_path / "run").exists()
