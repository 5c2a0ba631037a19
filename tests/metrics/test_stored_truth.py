"""`score`, `report` and `calibrate` read results.parquet only where it agrees with the stored result.json files
(issue 31, item 9): a table that says something the stored executions do not, or a corrupt result.json, is
refused with one line naming the path and how to rebuild, never scored."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from tests.helpers.runs import stored_results
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory):
    """A real oracle run on three tiny tasks (local backend) and a calibration on it."""
    root = tmp_path_factory.mktemp("stored")
    suite = root / "suite"
    for task_id in ("copy-a", "copy-b", "copy-c"):
        write_task(suite, task_id)
    run = root / "run"
    proc = run_matchmeter("run", "--agent", "oracle", "--backend", "local", "--tasks", str(suite), "--out", str(run),
                          "--quiet", timeout=600)
    assert proc.returncode == 0, proc.stderr
    cal = root / "cal.json"
    assert run_matchmeter("calibrate", str(run), "--out", str(cal), timeout=300).returncode == 0
    return run, cal


def _copy(run, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(run, out, ignore=shutil.ignore_patterns(".writer.lock"))
    return out


def _edit_reward(run, tmp_path):
    out = _copy(run, tmp_path)
    path = stored_results(out)[0]
    data = json.loads(path.read_text())
    data["reward"] = 0.0
    path.write_text(json.dumps(data))
    return out, f"results table disagrees with the stored result.json: execution {path.parent.name}: reward 1.0 in " \
                "the table, 0.0 in result.json", out / "results.parquet"


def _corrupt(run, tmp_path):
    out = _copy(run, tmp_path)
    path = stored_results(out)[1]
    path.write_text('{"execution_key": "trunc')
    return out, "corrupt result.json: ", path


def _stale(run, tmp_path):
    out = _copy(run, tmp_path)
    table = pd.read_parquet(out / "results.parquet")
    table.iloc[1:].to_parquet(out / "results.parquet", index=False)
    return out, f"results table lacks 1 stored execution(s) (e.g. {table['execution_key'].iloc[0]})", \
        out / "results.parquet"


@pytest.mark.parametrize("damage", [_edit_reward, _corrupt, _stale], ids=["edited", "corrupt", "stale"])
def test_a_table_the_stored_executions_contradict_is_refused(oracle_run, tmp_path, damage):
    """Fails on the old code: score and report read results.parquet alone and scored the edited, corrupt or
    stale run with exit 0 (an edited result.json was not noticed at all)."""
    run, cal = oracle_run
    out, message, where = damage(run, tmp_path)
    for argv in (["score", str(out), "--calibration", str(cal), "--out-dir", str(tmp_path / "s")],
                 ["report", str(out), "--calibration", str(cal), "--out", str(tmp_path / "r.html"), "--quiet",
                  "--bootstrap", "10"]):
        proc = run_matchmeter(*argv, timeout=300)
        assert proc.returncode == 2, (argv[0], proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert lines[0].startswith(f"error: {message}"), lines[0]
        assert f"({where})" in lines[0]
        assert "rebuild" in lines[0] or "resume the run" in lines[0]
    assert not (tmp_path / "s").exists()
    assert not (tmp_path / "r.html").exists()


def test_an_intact_run_and_a_table_without_its_executions_are_scored(oracle_run, tmp_path):
    run, cal = oracle_run
    proc = run_matchmeter("score", str(run), "--calibration", str(cal), "--out-dir", str(tmp_path / "s"), "--json",
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scores"][0]["n_executions"] == 3
    alone = tmp_path / "alone"  # results.parquet copied on its own: nothing to check it against
    alone.mkdir()
    shutil.copy(run / "results.parquet", alone / "results.parquet")
    proc = run_matchmeter("score", str(alone), "--calibration", str(cal), "--out-dir", str(tmp_path / "t"), timeout=300)
    assert proc.returncode == 0, proc.stderr
