"""The Ray executor on a real local Ray cluster: a head and two worker nodes, separate processes, loopback.

One module-scoped cluster serves every test here (tests/conftest.py groups the tests that use it onto one
xdist worker, so it starts once) and stops after the last of them: left running to the session's end, its idle
daemons (log monitors, raylets, idle workers) burned about a tenth of a core for the rest of the suite. The head
declares no CPUs, so trials run on the two workers only; each worker declares one CPU and the `backend_bwrap` resource. Worker 0 also declares `docker_engine` (2 GiB); worker 1 does
not and declares 3 GiB, so a task whose image must be built goes to worker 0 only, and one that needs 3 GiB and
a build fits no node. Tests that kill a worker bring it back before they end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")

from matchmeter.errors import SpendCapReached, UserError  # noqa: E402
from matchmeter.runner.executor import execute_plan, plan_cross_product  # noqa: E402
from matchmeter.runner.run import configuration_from_flags  # noqa: E402
from matchmeter.runner.sandbox import get_backend  # noqa: E402
from matchmeter.runner.store import RunStore  # noqa: E402
from matchmeter.schema import Description, ModelEndpoint  # noqa: E402
from matchmeter.tasks.loader import load_tasks  # noqa: E402
from tests.helpers.ray_cluster import RayCluster  # noqa: E402
from tests.helpers.tasks import write_task  # noqa: E402
from tests.helpers.warm_cli import run_matchmeter

pytestmark = [pytest.mark.bwrap, pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with RayCluster(workers=2, worker_cpus=1, worker_memory_mb=[2048, 3072], backend="bwrap",
                    engine_workers=1) as running:
        yield running


def _plan(tasks_dir: Path, agents: list[str], seeds: int, options: dict[str, str] | None = None):
    tasks = load_tasks([tasks_dir])
    configs = [configuration_from_flags(a, None, options=options) for a in agents]
    return plan_cross_product(configs, tasks, lambda t: [Description.original(t)], range(seeds), 1).unique()


def _run_local(plan, out: Path):
    store = RunStore(out)
    store.claim()
    results = execute_plan(plan, store, out.name, get_backend("bwrap"), concurrency=2)
    store.rebuild_table()
    return store, results


def _stored(store: RunStore) -> dict[str, tuple[float, str]]:
    return {r.execution_key: (r.reward, r.failure_mode) for r in store.iter_results()}


def test_ray_results_equal_the_local_pools(cluster, tmp_path):
    tasks = tmp_path / "tasks"
    for name in ("copy-a", "copy-b", "copy-c"):
        write_task(tasks, name)
    plan = _plan(tasks, ["oracle", "nop"], seeds=2)
    assert len(plan) == 12
    local, _ = _run_local(plan, tmp_path / "local")
    from matchmeter.runner.ray_executor import RayStats
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray

    stats = RayStats()
    store = RunStore(tmp_path / "ray")
    store.claim()
    remote = execute_plan_ray(plan, store, "ray", get_backend("bwrap"), concurrency=2, address=cluster.address,
                              stats=stats)
    assert len(remote) == 12
    assert _stored(store) == _stored(local)
    assert {reward for reward, _ in _stored(store).values()} == {0.0, 1.0}
    assert sorted(stats.nodes) == sorted(cluster.worker_node_ids())  # both workers ran trials
    assert stats.committed == 12
    for key in _stored(store):  # the whole execution came back: trajectories and the trial's logs
        execution = store.executions / key
        assert json.loads((execution / "trajectory.atif.json").read_text())["session_id"] == key
        assert (execution / "trajectory.json").exists()
        assert (execution / "logs" / "verifier.log").exists()
    assert not [p for p in store.executions.iterdir() if p.name.startswith(".partial-")]


def test_a_backend_no_node_offers_is_refused_at_placement(cluster, tmp_path):
    write_task(tmp_path / "tasks", "copy-a")
    plan = _plan(tmp_path / "tasks", ["oracle"], seeds=1)
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray

    store = RunStore(tmp_path / "docker")
    with pytest.raises(UserError) as refused:
        execute_plan_ray(plan, store, "r", get_backend("docker"), address=cluster.address)
    assert "no live Ray node offers the 'docker' sandbox backend" in str(refused.value)
    assert "backend_docker" in str(refused.value)
    assert store.finished_keys() == set()
    big = write_task(tmp_path / "big", "huge", toml_extra="\n[environment]\ncpus = 64\n")
    huge = _plan(big.parent, ["oracle"], seeds=1)
    with pytest.raises(UserError, match="task huge needs 64 CPUs"):
        execute_plan_ray(huge, store, "r", get_backend("bwrap"), address=cluster.address)


def _slow_plan(tmp_path: Path, seeds: int):
    tasks = tmp_path / "tasks"
    write_task(tasks, "slow-copy")
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(["sleep 2", "cp data/input.txt out.txt"]))
    return _plan(tasks, ["replay"], seeds=seeds, options={"trajectory": str(replay)})


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(cluster, tmp_path):
    plan = _slow_plan(tmp_path, seeds=8)
    from matchmeter.runner.ray_executor import RayStats
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray

    store = RunStore(tmp_path / "run")
    store.claim()
    stats = RayStats()
    outcome: dict[str, object] = {}

    def drive() -> None:
        try:
            outcome["results"] = execute_plan_ray(plan, store, "killed-node", get_backend("bwrap"),
                                                  address=cluster.address, stats=stats)
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            outcome["error"] = exc

    driver = threading.Thread(target=drive)
    driver.start()
    deadline = time.monotonic() + 180
    while stats.committed < 1 and time.monotonic() < deadline:  # both workers are busy from here on
        time.sleep(0.05)
    victim = cluster.worker_node_ids()[1]
    cluster.kill_worker(1)
    driver.join(300)
    try:
        assert "error" not in outcome, outcome.get("error")
        keys = [r.execution_key for r in outcome["results"]]  # type: ignore[union-attr]
        assert sorted(keys) == sorted(p.key for p in plan)  # every planned execution, each exactly once
        assert stats.committed == 8
        assert _stored(store) == {p.key: (1.0, "none") for p in plan}
        assert stats.nodes.get(victim, 0) < 8  # the dead node did not finish the run
    finally:
        cluster.restart_worker(1)



def test_when_every_node_offering_the_backend_is_lost_the_run_stores_infra_failures_and_resumes(cluster, tmp_path):
    """Both workers (the only nodes offering bwrap) die mid-run: within MATCHMETER_RAY_STALL_S the waiting
    executions are stored as infrastructure failures, the run exits non-zero with the resume command, and
    once the workers are back the resume reruns exactly those."""
    tasks = tmp_path / "tasks"
    write_task(tasks, "slow-copy")
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(["sleep 2", "cp data/input.txt out.txt"]))
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "matchmeter.cli", "run", "--tasks", str(tasks), "--agent", "replay",
            "--replay", str(replay), "--backend", "bwrap", "--seeds", "6", "--out", str(out),
            "--quiet", "--executor", "ray", "--ray-address", cluster.address]
    env = {**os.environ, "MATCHMETER_RAY_STALL_S": "5"}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 180
        while len(RunStore(out).finished_keys()) < 1 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        cluster.kill_worker(0)
        cluster.kill_worker(1)
        stdout, stderr = proc.communicate(timeout=240)
    finally:
        proc.kill()
        cluster.restart_worker(0)
        cluster.restart_worker(1)
    assert proc.returncode != 0, stdout + stderr
    assert "--resume --retry-failed infra_error" in stderr, stderr
    assert "(raylet)" not in stdout + stderr  # none of Ray's own messages in the terminal
    stored = list(RunStore(out).iter_results())
    assert sorted(r.seed for r in stored) == list(range(6))  # every execution stored once: ran, or infra_error
    lost = [r for r in stored if r.failure_mode == "infra_error"]
    assert lost
    assert all("no live Ray node could run this trial for 5 s" in (r.error or "") for r in lost)
    assert all(r.reward == 1.0 for r in stored if r not in lost)
    resumed = run_matchmeter(*argv[3:], "--resume", "--retry-failed", "infra_error", timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    final = list(RunStore(out).iter_results())
    assert sorted(r.seed for r in final) == list(range(6))
    assert {(r.reward, r.failure_mode) for r in final} == {(1.0, "none")}


DRIVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from matchmeter.runner.executor import plan_cross_product
    from matchmeter.runner.ray_executor import execute_plan
    from matchmeter.runner.run import configuration_from_flags
    from matchmeter.runner.sandbox import get_backend
    from matchmeter.runner.store import RunStore
    from matchmeter.schema import Description
    from matchmeter.tasks.loader import load_tasks

    tasks_dir, replay, out, address = sys.argv[1:5]
    config = configuration_from_flags("replay", None, options={"trajectory": replay})
    plan = plan_cross_product([config], load_tasks([Path(tasks_dir)]), lambda t: [Description.original(t)],
                              range(8), 1).unique()
    store = RunStore(Path(out))
    store.claim()
    new = execute_plan(plan, store, "driver-kill", get_backend("bwrap"), 2, address=address)
    store.rebuild_table()
    print(f"executed {len(new)}")
""")


def test_driver_killed_with_9_resumes_every_execution_exactly_once(cluster, tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "slow-copy")
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(["sleep 2", "cp data/input.txt out.txt"]))
    out = tmp_path / "run"
    args = [sys.executable, "-c", DRIVER, str(tasks), str(replay), str(out), cluster.address]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    executions = out / "executions"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if len(RunStore(out).finished_keys()) >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = len(RunStore(out).finished_keys())  # not `.partial-*/result.json` (killed mid-commit)
    assert 2 <= before < 8
    resumed = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"executed {8 - before}" in resumed.stdout
    store = RunStore(out)
    stored = list(store.iter_results())
    assert len(stored) == 8
    assert sorted(r.seed for r in stored) == list(range(8))
    assert {r.reward for r in stored} == {1.0}
    assert not [p for p in executions.iterdir() if p.name.startswith(".partial-")]


def test_the_spend_cap_is_held_on_the_driver_and_resume_finishes(cluster, tmp_path):
    """Every worker's gateway charges the driver's one ledger (spend.json): a tiny cap stops the run, a
    resume with a higher cap finishes it, and the total survives in the run directory."""
    from matchmeter.llm.spend import SpendLedger
    from matchmeter.runner.context import endpoint_resolver, sim_environment
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray

    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    # cache off: the workers' response cache is the node's own, and a warm one would spend nothing
    config = configuration_from_flags("bash", "sim/expert", endpoint=ModelEndpoint(use_cache=False))
    plan = plan_cross_product([config], load_tasks([tasks]), lambda t: [Description.original(t)], range(3), 1).unique()
    store = RunStore(tmp_path / "capped")
    store.claim()
    with sim_environment([config], [tasks]) as stub_url:
        def run(cap: float):
            return execute_plan_ray(plan, store, "capped", get_backend("bwrap"), 2,
                                    endpoint_for=endpoint_resolver(stub_url), address=cluster.address,
                                    spend_ledger=SpendLedger(store.root / "spend.json", cap))

        with pytest.raises(SpendCapReached, match="spend cap reached"):
            run(0.0000001)
        assert len(store.finished_keys()) < 3
        spent_at_cap = json.loads((store.root / "spend.json").read_text())["spent_usd"]
        assert spent_at_cap > 0
        run(10.0)
    stored = list(store.iter_results())
    assert sorted(r.seed for r in stored) == [0, 1, 2]
    assert {r.failure_mode for r in stored} == {"none"}, [r.error for r in stored]
    assert all(r.simulated and r.cost.usd and r.cost.usd > 0 for r in stored)
    total = json.loads((store.root / "spend.json").read_text())["spent_usd"]
    assert total > spent_at_cap
    assert total >= sum(r.cost.usd or 0 for r in stored) - 1e-12


MM = [sys.executable, "-m", "matchmeter.cli"]


def test_the_cli_runs_and_checks_tasks_on_the_cluster(cluster, tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    write_task(tasks, "copy-b")
    out = tmp_path / "run"
    ray_flags = ["--executor", "ray", "--ray-address", cluster.address]
    run = run_matchmeter("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "bwrap", "--seeds", "2",
                          "--out", str(out), "--quiet", *ray_flags, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "planned 4, executed 4, skipped (already stored) 0" in " ".join(run.stdout.split())
    assert {r.reward for r in RunStore(out).iter_results()} == {1.0}
    # the executor is how a run proceeds, not what it is: a Ray run resumes on the local pool
    local = run_matchmeter("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "bwrap", "--seeds",
                            "2", "--out", str(out), "--quiet", "--resume", timeout=300)
    assert local.returncode == 0, local.stderr[-2000:]
    assert "executed 0, skipped (already stored) 4" in " ".join(local.stdout.split())
    check = run_matchmeter("tasks", "check", str(tasks), "--backend", "bwrap", "--seeds", "1", *ray_flags, timeout=300)
    assert check.returncode == 0, check.stderr[-2000:] + check.stdout[-2000:]
    assert "2/2 task×seed checks pass" in check.stdout
    refused = run_matchmeter("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "docker",
                              "--out", str(tmp_path / "docker"), *ray_flags, timeout=300)
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0
    assert "no live Ray node offers the 'docker' sandbox backend" in refused.stderr
    assert not (tmp_path / "docker").exists()  # refused before anything was written


# ---------------------------------------------------------------- --base-alias on the nodes

ALIAS = "mm-ray-alias-base:1"  # a FROM no engine here has: only the alias makes the task buildable


def _alias_task(root: Path, token: str, toml_extra: str = "") -> Path:
    """A copy task FROM the alias, whose ENV only the built image carries: the oracle copies only under it."""
    task = write_task(root, "alias-copy", toml_extra=toml_extra)
    (task / "environment" / "Dockerfile").write_text(f"FROM {ALIAS}\nENV MM_ALIAS_MARK={token}\n")
    (task / "solution" / "solve.sh").write_text(f'[ "$MM_ALIAS_MARK" = {token} ] && cp data/input.txt out.txt\n')
    return task


@pytest.fixture
def alias_builds():
    """Removes what the alias test built: its task images and their exports in the nodes' rootfs cache."""
    import shutil

    from matchmeter.runner.sandbox import rootfs

    keys: list[str] = []
    yield keys
    names = subprocess.run(["docker", "images", "-q", "matchmeter-task-alias-copy"], capture_output=True, text=True)
    if names.stdout.split():
        subprocess.run(["docker", "rmi", "-f", *set(names.stdout.split())], capture_output=True)
    for key in keys:  # the nodes run without MATCHMETER_* variables: the machine's default rootfs dir
        old = os.environ.pop("MATCHMETER_ROOTFS_DIR", None)
        try:
            shutil.rmtree(rootfs.image_rootfs_path(key), ignore_errors=True)
        finally:
            if old is not None:
                os.environ["MATCHMETER_ROOTFS_DIR"] = old


def test_base_aliases_reach_the_nodes_that_build_the_image(cluster, tmp_path, alias_builds):
    import secrets

    import docker

    from matchmeter.runner.ray_executor import RayStats
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray
    from matchmeter.runner.sandbox.baseimage import BASE_IMAGE, Environment

    token = secrets.token_hex(6)  # a fresh image key: this run builds it
    task = _alias_task(tmp_path / "tasks", token)
    aliases = {ALIAS: BASE_IMAGE}
    key = Environment(task / "environment", "Dockerfile", aliases).key
    alias_builds.append(key)
    tag = f"matchmeter-task-alias-copy:{key}"
    plan = _plan(task.parent, ["oracle"], seeds=2)
    client = docker.from_env()
    assert not client.images.list(name=tag)
    stats = RayStats()
    store = RunStore(tmp_path / "ray")
    store.claim()
    execute_plan_ray(plan, store, "alias", get_backend("bwrap", aliases), address=cluster.address, stats=stats)
    assert _stored(store) == {p.key: (1.0, "none") for p in plan}  # the image's ENV reached the trial
    assert set(stats.nodes) == {cluster.worker_node_ids()[0]}  # only the node that declares an engine
    built = client.images.get(tag)  # the node built it under the local path's key (aliases in it)
    assert ALIAS not in " ".join(t for image in client.images.list() for t in image.tags)  # nothing retagged
    local, _ = _run_local_with(plan, tmp_path / "local", get_backend("bwrap", aliases))
    assert _stored(local) == _stored(store)
    assert client.images.get(tag).id == built.id  # the local path found the node's image: one key, one build
    client.close()
    # without the alias the node cannot build it: refused, naming the node, nothing stored
    unaliased = RunStore(tmp_path / "unaliased")
    unaliased.claim()
    with pytest.raises(UserError, match=rf"a Ray node could not run trials: node \w+: .*FROM {ALIAS}.*--base-alias"):
        execute_plan_ray(plan, unaliased, "no-alias", get_backend("bwrap"), address=cluster.address)
    assert unaliased.finished_keys() == set()


def _run_local_with(plan, out: Path, backend):
    store = RunStore(out)
    store.claim()
    results = execute_plan(plan, store, out.name, backend, concurrency=2)
    return store, results


def test_a_build_no_node_with_an_engine_fits_is_refused_at_placement(cluster, tmp_path):
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray
    from matchmeter.runner.ray_executor import preflight_cluster
    from matchmeter.runner.sandbox.baseimage import BASE_IMAGE

    # 3000 MB: only worker 1 is that big, and it declares no Docker engine
    task = _alias_task(tmp_path / "tasks", "x", toml_extra="\n[environment]\nmemory_mb = 3000\n")
    plan = _plan(task.parent, ["oracle"], seeds=1)
    store = RunStore(tmp_path / "run")
    with pytest.raises(UserError) as refused:
        execute_plan_ray(plan, store, "r", get_backend("bwrap", {ALIAS: BASE_IMAGE}), address=cluster.address)
    message = str(refused.value)
    assert "task alias-copy runs in an image built from its Dockerfile" in message
    assert "declares a Docker engine (resource 'docker_engine')" in message
    assert '"docker_engine": 1000' in message
    assert store.finished_keys() == set()
    # the same size with a Dockerfile that only starts FROM the base (through the alias) needs no engine
    (task / "environment" / "Dockerfile").write_text(f"FROM {ALIAS}\n")
    preflight_cluster(cluster.address, get_backend("bwrap", {ALIAS: BASE_IMAGE}), load_tasks([task.parent]))


def test_a_ray_client_address_is_one_line_and_exit_2(cluster, tmp_path):
    write_task(tmp_path / "tasks", "copy-a")
    out = tmp_path / "run"
    refused = run_matchmeter("run", "--tasks", str(tmp_path / "tasks"), "--agent", "oracle", "--backend",
                              "bwrap", "--out", str(out), "--executor", "ray", "--ray-address",
                              f"ray://{cluster.address}", timeout=300)
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0, refused.stderr
    assert "Ray Client addresses are not supported: ray://" in refused.stderr
    assert "--ray-address HEAD:6379" in refused.stderr
    assert "ray job submit" in refused.stderr
    assert not out.exists()


_JOIN_AND_LEAVE = textwrap.dedent("""
    import json, os, sys
    from matchmeter.runner.ray_executor import connected
    before = dict(os.environ)
    with connected(sys.argv[1]):
        inside = dict(os.environ)
    after = dict(os.environ)
    print(json.dumps({"added_inside": sorted(set(inside) - set(before)), "after_equals_before": after == before}))
""")


def test_leaving_the_cluster_puts_the_environment_back(cluster):
    """ray.init writes RAY_* and PYTHONBREAKPOINT (Ray's remote debugger) into the driver's os.environ and
    ray.shutdown leaves them: without the restore, every process the driver starts afterwards inherits them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"}
    proc = subprocess.run([sys.executable, "-c", _JOIN_AND_LEAVE, cluster.address], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "PYTHONBREAKPOINT" in seen["added_inside"]  # what there is to undo (a Ray upgrade may change it)
    assert seen["after_equals_before"]


# ---------------------------------------------------------------- optimize on the cluster

OPTIMIZE_TASKS = ("cleanup-old-tmp",)  # the demo's first task: 3 units (sloppy, explorer, generic)


def _descset(out: Path) -> dict[str, bytes]:
    files = [out / "descriptions.json", *sorted((out / "state").rglob("*.json"))]
    return {str(p.relative_to(out)): p.read_bytes() for p in files}


def test_optimize_on_the_cluster_equals_the_local_pool_and_resumes_after_a_kill(cluster, tmp_path):
    """The demo's sources (sim/sloppy, sim/explorer with bash) on a demo task: optimize's source-side
    trials on Ray give the local pool's descriptions.json byte for byte, also when the first Ray driver is
    killed with -9 after its first unit and the same command resumes."""
    from matchmeter.optimizer.pipeline import OptimizeRequest, optimize
    from matchmeter.pipeline.demo import SOURCES
    from matchmeter.runner.run import RunRequest, execute_run

    runs = tmp_path / "runs"
    execute_run(RunRequest(configurations=[configuration_from_flags("bash", f"sim/{p}") for p in SOURCES],
                           only=list(OPTIMIZE_TASKS), backend="bwrap", concurrency=2, out=str(runs)), progress=False)
    sources = [f"sim/{p}+bash" for p in SOURCES]
    local = optimize(OptimizeRequest(runs=[str(runs)], sources=sources, rewriter_model="sim/rewriter",
                                     judge_model="sim/judge", out=str(tmp_path / "local"), backend="bwrap",
                                     concurrency=2, use_cache=False), progress=False)
    assert local.units_run == 3
    assert local.source_side_executions > 0
    out = tmp_path / "ray"
    args = [*MM, "optimize", "--run", str(runs), "--sources", ",".join(sources), "--rewriter-model", "sim/rewriter",
            "--judge-model", "sim/judge", "--out", str(out), "--backend", "bwrap", "--concurrency", "2",
            "--no-cache", "--quiet", "--executor", "ray", "--ray-address", cluster.address]
    first = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline and first.poll() is None and not list((out / "state").rglob("*.json")):
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    done_before = len(list((out / "state").rglob("*.json")))
    assert 1 <= done_before < 3
    assert not (out / "descriptions.json").exists()
    resumed = subprocess.run(args, capture_output=True, text=True, timeout=500, env={**os.environ, "COLUMNS": "400"})
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"units run {3 - done_before}, skipped {done_before}" in resumed.stdout
    assert _descset(out) == _descset(tmp_path / "local")  # descriptions.json and every unit state
    ray_runs = RunStore(out / "source-runs")
    local_runs = RunStore(tmp_path / "local" / "source-runs")
    assert sorted(_stored(ray_runs).items()) == sorted(_stored(local_runs).items())
