"""`matchmeter import harbor` / `import atif` on a committed Harbor job (tests/runner/data/harbor-job).

The fixture is two real `harbor run` jobs of Harbor 0.26 (oracle and nop on tests/tasks/data/harbor-hello,
harbor-multikey and harbor-steps), trimmed to the fields the importer reads, plus trials of a model agent
written in Harbor's shape: one with token counts, cost and an ATIF trajectory, one that timed out with a
valid multi-key reward and recorded nothing else, one whose verifier wrote no reward, and one unfinished.
The real-job counterpart (a job `harbor run` makes in the test) is tests/tasks/test_harbor_parity.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from matchmeter.report.view import create_app
from matchmeter.report.viewdata import open_library
from matchmeter.schema import ExecutionResult, Trajectory
from tests.helpers.cli_inprocess import cli

JOB = Path(__file__).parent / "data" / "harbor-job"
MODEL = "terminus-2:openai/gpt-5-mini"


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    from matchmeter.runner.harbor_import import import_harbor_job

    out = tmp_path_factory.mktemp("imported") / "run"
    summary = import_harbor_job(JOB, out)
    assert (summary.imported, summary.skipped_unfinished) == (9, 1)
    return out


def results(run: Path) -> dict[tuple[str, str], ExecutionResult]:
    found = {}
    for path in (run / "executions").glob("*/result.json"):
        r = ExecutionResult.model_validate_json(path.read_text())
        found[(r.configuration_id, r.task_id)] = r
    return found


def test_rewards_per_key_and_scalar_are_harbors(imported):
    got = results(imported)
    assert sorted(got) == sorted((c, t) for c in ("oracle", "nop", MODEL)
                                 for t in ("harbor-hello", "harbor-multikey", "harbor-steps"))
    for (config, task), r in got.items():
        harbor = json.loads((JOB / f"{task}__{'terminus' if config == MODEL else config}" / "result.json").read_text())
        valid = harbor["reward_valid"]
        assert r.rewards == ({k: float(v) for k, v in harbor["verifier_result"]["rewards"].items()} if valid else {})
    assert {k: (r.reward, r.raw_verifier_reward) for k, r in got.items() if k[0] == "oracle"} == {
        ("oracle", "harbor-hello"): (1.0, 1.0),
        ("oracle", "harbor-multikey"): (1.0, 1.0),  # no `reward` key: mean of clamped 1 and 1.5
        ("oracle", "harbor-steps"): (1.0, 1.0)}  # Harbor's combined reward: its `reward` key
    assert got[(MODEL, "harbor-multikey")].reward == 0.75  # timed out, reward still valid (Harbor's policy)
    assert got[(MODEL, "harbor-multikey")].failure_mode == "agent_timeout"
    steps = got[(MODEL, "harbor-steps")]
    assert (steps.reward, steps.raw_verifier_reward, steps.failure_mode) == (0.0, None, "verifier_error")
    assert [(s.name, s.verified, s.error) for s in steps.steps] == [("write", False, "RewardFileNotFoundError")]
    oracle_steps = got[("oracle", "harbor-steps")].steps
    assert [(s.name, s.rewards, s.reward) for s in oracle_steps] == [
        ("write", {"reward": 1.0}, 1.0), ("extend", {"reward": 1.0, "lines": 2.0}, 1.0)]
    assert [s.name for s in got[("nop", "harbor-steps")].steps] == ["write"]  # min_reward stopped the job there


def test_missing_measures_are_null_never_zero(imported):
    got = results(imported)
    hello = got[(MODEL, "harbor-hello")]
    assert (hello.tokens.input, hello.tokens.cached_input, hello.tokens.output) == (1000, 200, 300)
    assert (hello.cost.usd, hello.n_steps, hello.not_recorded) == (0.0021, 2, [])
    timed_out = got[(MODEL, "harbor-multikey")]
    assert timed_out.not_recorded == ["tokens", "cost", "n_steps"]
    assert timed_out.cost.usd is None
    assert (got[("oracle", "harbor-steps")].n_steps, got[("nop", "harbor-hello")].n_steps) == (2, 0)
    table = pd.read_parquet(imported / "results.parquet").set_index(["configuration_id", "task_id"])
    row = table.loc[(MODEL, "harbor-multikey")]
    assert row[["tokens_total", "cost_usd", "n_steps"]].isna().all()
    assert table.loc[("oracle", "harbor-hello"), "cost_usd"] == 0.0  # a model-free agent spends nothing
    # the ATIF trajectory became ours; a trial without one stores none
    key = hello.execution_key
    trajectory = Trajectory.model_validate_json((imported / "executions" / key / "trajectory.json").read_text())
    assert [s.command for s in trajectory.steps] == ["ls /app", "echo 'Hello, world!' > /app/hello.txt"]
    assert trajectory.tokens.total == 1500
    assert not (imported / "executions" / timed_out.execution_key / "trajectory.json").exists()


def test_calibrate_score_report_and_view_work_on_the_import(imported, tmp_path, monkeypatch, capsys):
    cal = tmp_path / "cal.json"
    code, _, err = cli(monkeypatch, capsys, "calibrate", imported, "--out", cal, "--reference-config", "oracle",
                       "--reference-config", "nop")
    assert (code, err) == (0, "")
    code, out, err = cli(monkeypatch, capsys, "score", imported, "--calibration", cal, "--json",
                         "--out-dir", tmp_path / "scores")
    assert code == 0, err
    payload = json.loads(out)
    assert {r["configuration_id"]: r["ams"] for r in payload["scores"]} == {"oracle": 1.0, "nop": 0.0}
    assert "unknown cost" in payload["excluded"][MODEL]
    # Harbor's mean metric over the job: each key over every trial of the agent, a missing key 0
    assert payload["reward_keys"]["oracle"] == pytest.approx(
        {"reward": 2 / 3, "correctness": 1 / 3, "performance": 0.5, "lines": 1 / 3})
    # a key none of its trials wrote is not one of its keys (Harbor's metric for that agent has none)
    assert payload["reward_keys"][MODEL] == pytest.approx({"reward": 1 / 3, "correctness": 1 / 3, "performance": 0.5 / 3})
    assert payload["reward_keys"]["nop"] == {"reward": 0.0, "correctness": 0.0, "performance": 0.0}
    code, _, err = cli(monkeypatch, capsys, "report", imported, "--calibration", cal, "--out", tmp_path / "r.html",
                       "--tables-dir", tmp_path / "tables", "--bootstrap", "20")
    assert code == 0, err
    keys = json.loads((tmp_path / "tables" / "reward_keys.json").read_text())
    assert "mean:performance" in json.dumps(keys)
    client = create_app(open_library([imported])).test_client()
    name = next(iter(open_library([imported]).runs))
    key = results(imported)[(MODEL, "harbor-hello")].execution_key
    for url in ("/", f"/run/{name}", f"/run/{name}/x/{key}"):
        assert client.get(url).status_code == 200, url
    assert "echo &#39;Hello, world!&#39;" in client.get(f"/run/{name}/x/{key}").get_data(as_text=True)


def _one_line(code: int, err: str, *parts: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    for part in parts:
        assert part in err


def test_bad_inputs_are_one_line_and_write_nothing(imported, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    _one_line(*cli(monkeypatch, capsys, "import", "harbor", tmp_path, "--out", out)[::2],
              "no Harbor trial here", str(tmp_path))
    _one_line(*cli(monkeypatch, capsys, "import", "harbor", imported, "--out", out)[::2], "no Harbor trial here")
    broken = tmp_path / "job"
    shutil.copytree(JOB, broken)
    (broken / "harbor-hello__nop" / "result.json").write_text("{")
    _one_line(*cli(monkeypatch, capsys, "import", "harbor", broken, "--out", out)[::2], "unreadable Harbor file",
              "harbor-hello__nop")
    assert not out.exists()
    _one_line(*cli(monkeypatch, capsys, "import", "harbor", JOB, "--out", imported)[::2],
              "--out already holds a run")


def test_import_atif_reads_counts_and_refuses_what_is_not_atif(tmp_path, monkeypatch, capsys):
    atif = JOB / "harbor-hello__terminus" / "agent" / "trajectory.json"
    code, out, err = cli(monkeypatch, capsys, "import", "atif", atif, "--out", tmp_path / "t")
    assert (code, err) == (0, "")
    assert "2 action(s), 2 model call(s), 1500 tokens, $0.0021" in out
    got = Trajectory.model_validate_json((tmp_path / "t" / "trajectory.trajectory.json").read_text())
    assert (len(got.steps), got.cost.usd, got.model) == (2, 0.0021, "openai/gpt-5-mini")
    trial = JOB / "harbor-hello__terminus" / "result.json"
    _one_line(*cli(monkeypatch, capsys, "import", "atif", trial, "--out", tmp_path / "u")[::2],
              "not an ATIF v1.x trajectory: schema_version is 1, not ATIF-v1.x", str(trial))
    assert not (tmp_path / "u").exists()


def test_results_stored_before_per_key_rewards_still_load_and_score(imported, tmp_path, monkeypatch, capsys):
    """A result.json without rewards/not_recorded/steps and a results.parquet without the rewards column (an
    older run) load, check against each other and score; they simply have no per-key means."""
    old = tmp_path / "old"
    shutil.copytree(imported, old)
    for path in (old / "executions").glob("*/result.json"):
        data = json.loads(path.read_text())
        data["rewards"] = {} if data["configuration_id"] != MODEL else data["rewards"]
        for key in ("rewards", "not_recorded", "steps"):
            data.pop(key)
        path.write_text(json.dumps(data))
    table = pd.read_parquet(old / "results.parquet").drop(columns=["rewards"])
    table = table.loc[table["configuration_id"] != MODEL]
    table.to_parquet(old / "results.parquet")
    for exe in (old / "executions").iterdir():
        if ExecutionResult.model_validate_json((exe / "result.json").read_text()).configuration_id == MODEL:
            shutil.rmtree(exe)
    cal = tmp_path / "cal.json"
    assert cli(monkeypatch, capsys, "calibrate", old, "--out", cal)[0] == 0
    code, out, err = cli(monkeypatch, capsys, "score", old, "--calibration", cal, "--json", "--out-dir", tmp_path / "s")
    assert code == 0, err
    payload = json.loads(out)
    assert ({r["configuration_id"]: r["ams"] for r in payload["scores"]}, payload["reward_keys"]) == (
        {"oracle": 1.0, "nop": 0.0}, {})
