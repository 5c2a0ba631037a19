"""Throughput of the oracle: the local pool vs the Ray executor with 1 and 2 worker nodes on this machine.

    .venv/bin/python benchmarks/ray_throughput.py [--limit 24] [--seeds 1] [--worker-cpus 2] [--concurrency 2]

Each configuration runs the same plan (oracle × the first --limit tasks of the Full suite, 0 = all) into a
fresh run directory on bwrap. The Ray clusters are real: a head (no CPUs) and 1 or 2 worker nodes as
separate processes on this machine (tests/helpers/ray_cluster.py), each worker declaring --worker-cpus;
cluster start-up is not timed, joining it and shipping task files is. Printed per configuration:
trials/min, median trial wall time (from the results' phases), the driver's CPU seconds per trial
(this process: planning, Ray client, commits) and, for Ray, the driver's commit time and the bytes
that came back per trial. Nodes share this machine's cores, so 2 workers measure the executor's
overhead and scheduling, not extra hardware.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matchmeter.runner.executor import execute_plan, plan_cross_product  # noqa: E402
from matchmeter.runner.run import configuration_from_flags  # noqa: E402
from matchmeter.runner.sandbox import get_backend  # noqa: E402
from matchmeter.runner.store import RunStore  # noqa: E402
from matchmeter.schema import Description, ExecutionResult  # noqa: E402
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _trial_s(results: list[ExecutionResult]) -> float:
    spans = [(r.phases[-1].ended_at - r.phases[0].started_at).total_seconds() for r in results if r.phases]
    return statistics.median(spans) if spans else float("nan")


def _plan(limit: int, seeds: int):  # type: ignore[no-untyped-def]
    tasks = load_tasks([builtin_suite_dir()])
    tasks = tasks[:limit] if limit else tasks
    config = configuration_from_flags("oracle", None)
    return plan_cross_product([config], tasks, lambda t: [Description.original(t)], range(seeds), 1).unique()


def _row(name: str, n: int, wall: float, cpu: float, results: list[ExecutionResult], extra: str = "") -> str:
    rewards = sum(r.reward for r in results) / max(1, len(results))
    return (f"{name:<18} {n:>4} trials  {n / wall * 60:7.1f} trials/min  wall {wall:6.1f} s  "
            f"median trial {_trial_s(results):5.2f} s  driver CPU {cpu / n * 1000:6.1f} ms/trial  "
            f"mean reward {rewards:.2f}{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=24, help="First N tasks of the Full suite (0 = all).")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=2, help="Local pool threads.")
    parser.add_argument("--worker-cpus", type=float, default=2, help="CPUs each Ray worker node declares.")
    args = parser.parse_args()
    from tests.helpers.ray_cluster import RayCluster

    plan = _plan(args.limit, args.seeds)
    backend = get_backend("bwrap")
    backend.preflight()
    print(f"plan: oracle x {len({p.task.id for p in plan})} tasks x {args.seeds} seed(s) = {len(plan)} trials, bwrap")
    with tempfile.TemporaryDirectory(prefix="mm-bench-ray-") as tmp:
        store = RunStore(Path(tmp) / "local")
        store.claim()
        cpu0, t0 = _cpu(), time.perf_counter()
        results = execute_plan(plan, store, "bench-local", backend, args.concurrency)
        print(_row(f"local pool x{args.concurrency}", len(plan), time.perf_counter() - t0, _cpu() - cpu0, results),
              flush=True)
        for workers in (1, 2):
            from matchmeter.runner.ray_executor import RayStats
            from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray

            with RayCluster(workers=workers, worker_cpus=args.worker_cpus) as cluster:
                store = RunStore(Path(tmp) / f"ray{workers}")
                store.claim()
                stats = RayStats()
                cpu0, t0 = _cpu(), time.perf_counter()
                results = execute_plan_ray(plan, store, f"bench-ray{workers}", backend, address=cluster.address,
                                           stats=stats)
                wall, cpu = time.perf_counter() - t0, _cpu() - cpu0
            extra = (f"  commit {stats.commit_s / stats.committed * 1000:5.1f} ms/trial  back"
                     f" {stats.payload_bytes / stats.committed / 1024:5.1f} KiB/trial  nodes {sorted(stats.nodes.values())}")
            print(_row(f"ray {workers} worker(s)", len(plan), wall, cpu, results, extra), flush=True)


if __name__ == "__main__":
    main()
