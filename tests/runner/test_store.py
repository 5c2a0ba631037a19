"""Run store: atomic commits, partial directories cleaned on resume, table rebuilt from files."""

from __future__ import annotations

from matchmeter.runner.atif import to_atif
from matchmeter.runner.store import RunStore, execution_key
from matchmeter.schema import AgentSpec, Configuration, ExecutionResult, Trajectory


def _result(key: str, reward: float) -> ExecutionResult:
    config = Configuration(id="c", agent=AgentSpec(name="nop"))
    return ExecutionResult(execution_key=key, run_id="r", configuration_id="c", configuration=config, task_id="t",
                           task_digest="d", description_sha256="s", seed=0, attempt=0, backend="local", reward=reward)


def test_execution_key_depends_on_every_part():
    base = execution_key("c", "t", "d", 0, 0)
    assert len(base) == 24
    variants = {execution_key("c2", "t", "d", 0, 0), execution_key("c", "t2", "d", 0, 0),
                execution_key("c", "t", "d2", 0, 0), execution_key("c", "t", "d", 1, 0),
                execution_key("c", "t", "d", 0, 1)}
    assert base not in variants
    assert len(variants) == 5
    assert execution_key("c", "t", "d", 0, 0) == base


def test_commit_moves_whole_execution_and_table_rebuilds(tmp_path):
    import pandas as pd

    store = RunStore(tmp_path / "run")
    for i, reward in enumerate([1.0, 0.5]):
        staging = store.staging_dir(f"{i:024x}")
        store.commit(staging, _result(f"{i:024x}", reward), Trajectory().model_dump_json(),
                     to_atif(Trajectory(), session_id=f"{i:024x}", agent_version="1", instruction="do it"))
    assert store.finished_keys() == {f"{0:024x}", f"{1:024x}"}
    assert not [p for p in store.executions.iterdir() if p.name.startswith(".partial-")]
    table = pd.read_parquet(store.rebuild_table())
    assert sorted(table["reward"]) == [0.5, 1.0]
    assert list(table["execution_key"]) == [f"{0:024x}", f"{1:024x}"]


def test_table_reads_back_as_the_frame_pandas_makes_of_the_rows(tmp_path):
    """Every metric reads results.parquet with pandas: it reads back exactly as the frame of the rows,
    nulls in float, int and str columns and an all-null column included (the table is written without pandas)."""
    import pandas as pd

    from matchmeter.schema import Cost

    store = RunStore(tmp_path / "run")
    results = [_result(f"{0:024x}", 1.0),
               _result(f"{1:024x}", 0.25).model_copy(update={"cost": Cost(usd=None, null_reason="no price"),
                                                             "raw_verifier_reward": None, "wall_s": 2}),
               _result(f"{2:024x}", 0.0).model_copy(update={"cost": Cost(usd=0.125)}),
               # integer columns with a null (a measure not recorded): pandas makes them float64, so must the file
               _result(f"{3:024x}", 0.5).model_copy(update={"not_recorded": ["tokens", "n_steps"]})]
    for result in results:
        store.commit(store.staging_dir(result.execution_key), result, Trajectory().model_dump_json(),
                     to_atif(Trajectory(), session_id=result.execution_key, agent_version="1", instruction="do it"))
    expected = pd.DataFrame([r.to_row() for r in results])
    assert expected["cost_usd"].isna().sum() == 1
    assert expected["raw_verifier_reward"].isna().any()
    assert expected["cost_null_reason"].isna().sum() == 3
    assert expected["tokens_input"].isna().sum() == 1
    assert expected["tokens_input"].dtype == "float64"
    pd.testing.assert_frame_equal(pd.read_parquet(store.rebuild_table()), expected)
    empty = RunStore(tmp_path / "empty")
    assert pd.read_parquet(empty.rebuild_table()).empty


def test_partial_directories_are_removed_and_not_counted(tmp_path):
    store = RunStore(tmp_path / "run")
    staging = store.staging_dir("dead")
    (staging / "trajectory.json").write_text("{}")  # a process died here before commit
    assert store.finished_keys() == set()
    assert store.clean_partials() == 1
    assert not staging.exists()
