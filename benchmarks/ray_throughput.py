"""Throughput of the oracle: the local pool vs the Ray executor with 1 and 2 worker nodes, interleaved.

    .venv/bin/python benchmarks/ray_throughput.py [--limit 12] [--seeds 1] [--rounds 3] [--worker-cpus 2]

Each round runs the same plan (oracle × the first --limit tasks of the Full suite, 0 = all) once per
configuration — the local pool, Ray with 1 worker node, Ray with 2 — into fresh run directories on bwrap,
and the order rotates from round to round, so a noisy minute on this shared machine falls on every
configuration alike. The Ray clusters are real (a head with no CPUs and 1 or 2 worker nodes as separate
processes, tests/helpers/ray_cluster.py); starting a cluster and joining it are not timed (this process joins
as the cluster comes up, so `connect` below is only the placement check), shipping the task files is. Medians over the rounds are printed per configuration:

- trials/min and the median trial (first phase start → last phase end, from the stored results);
- the driver's CPU per trial (this process: planning, Ray client, commits) and, for Ray, commit time and the
  bytes that came back per trial;
- where the wall time went when no trial was running (the idle gaps): `start` from the call until the first
  trial began (Ray: `connect` the placement check, `ship` putting the task files into the object store, the rest
  Ray starting the job's worker processes, each importing matchmeter; local: nothing), `mid` the spans
  inside the run with no trial running (scheduling hand-offs between trials), `tail` from the last trial's end
  until the call returned (the last results committed, Ray disconnecting); and `conc`, the mean number of
  trials running at once over the busy span, against the slots the configuration offers.

Nodes share this machine's two cores, so 2 workers measure the executor's overhead and scheduling, not extra
hardware.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
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


def _span(r: ExecutionResult) -> tuple[float, float]:
    return r.phases[0].started_at.timestamp(), r.phases[-1].ended_at.timestamp()


@dataclass
class Sample:
    """One configuration's run in one round."""

    n: int
    wall: float
    cpu: float
    trial_s: float
    start_gap: float
    mid_gap: float
    tail_gap: float
    concurrency: float
    reward: float
    commit_ms: float = float("nan")
    back_kib: float = float("nan")
    connect_s: float = float("nan")  # Ray: part of start_gap spent joining the cluster and checking placement
    ship_s: float = float("nan")  # Ray: part of start_gap spent putting the task files into the object store


def sample(results: list[ExecutionResult], began: float, ended: float, cpu: float) -> Sample:
    """Times from the stored phases: the idle gaps are the parts of [began, ended] that no trial covers."""
    spans = sorted(_span(r) for r in results if r.phases)
    busy_from, busy_to = spans[0][0], max(end for _, end in spans)
    mid, reach = 0.0, spans[0][1]
    for start, end in spans[1:]:
        if start > reach:
            mid += start - reach
        reach = max(reach, end)
    return Sample(n=len(results), wall=ended - began, cpu=cpu,
                  trial_s=statistics.median(end - start for start, end in spans),
                  start_gap=max(0.0, busy_from - began), mid_gap=mid, tail_gap=max(0.0, ended - busy_to),
                  concurrency=sum(end - start for start, end in spans) / max(1e-9, busy_to - busy_from),
                  reward=sum(r.reward for r in results) / max(1, len(results)))


def _plan(limit: int, seeds: int):  # type: ignore[no-untyped-def]
    tasks = load_tasks([builtin_suite_dir()])
    tasks = tasks[:limit] if limit else tasks
    config = configuration_from_flags("oracle", None)
    return plan_cross_product([config], tasks, lambda t: [Description.original(t)], range(seeds), 1).unique()


def _now() -> float:
    return time.time()  # the clock the stored phases' timestamps come from


def run_local(plan, backend, tmp: Path, tag: str, concurrency: int) -> Sample:  # type: ignore[no-untyped-def]
    store = RunStore(tmp / tag)
    store.claim()
    cpu0, began = _cpu(), _now()
    results = execute_plan(plan, store, f"bench-{tag}", backend, concurrency)
    return sample(results, began, _now(), _cpu() - cpu0)


def run_ray(plan, backend, tmp: Path, tag: str, workers: int, worker_cpus: float) -> Sample:  # type: ignore[no-untyped-def]
    from matchmeter.runner.ray_executor import RayStats
    from matchmeter.runner.ray_executor import execute_plan as execute_plan_ray
    from tests.helpers.ray_cluster import RayCluster

    with RayCluster(workers=workers, worker_cpus=worker_cpus) as cluster:  # started before the clock
        store = RunStore(tmp / tag)
        store.claim()
        stats = RayStats()
        cpu0, began = _cpu(), _now()
        results = execute_plan_ray(plan, store, f"bench-{tag}", backend, address=cluster.address, stats=stats)
        got = sample(results, began, _now(), _cpu() - cpu0)
    got.commit_ms = stats.commit_s / max(1, stats.committed) * 1000
    got.back_kib = stats.payload_bytes / max(1, stats.committed) / 1024
    got.connect_s, got.ship_s = stats.connect_s, stats.ship_s
    return got


@dataclass
class Config:
    name: str
    slots: float
    samples: list[Sample] = field(default_factory=list)

    def row(self) -> str:
        def med(attr: str) -> float:
            return statistics.median(getattr(s, attr) for s in self.samples)

        n = self.samples[0].n
        return (f"{self.name:<16} {n / med('wall') * 60:6.1f} trials/min  trial {med('trial_s'):5.2f} s  "
                f"driver CPU {med('cpu') / n * 1000:6.1f} ms/trial  idle start {med('start_gap'):5.2f} s "
                f"(connect {med('connect_s'):4.2f}, ship {med('ship_s'):4.2f})  "
                f"mid {med('mid_gap'):5.2f} s  tail {med('tail_gap'):5.2f} s  conc {med('concurrency'):4.2f}/"
                f"{self.slots:g}  commit {med('commit_ms'):5.1f} ms  back {med('back_kib'):5.1f} KiB  "
                f"reward {med('reward'):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=12, help="First N tasks of the Full suite (0 = all).")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="Interleaved rounds; medians over them.")
    parser.add_argument("--concurrency", type=int, default=2, help="Local pool threads.")
    parser.add_argument("--worker-cpus", type=float, default=2, help="CPUs each Ray worker node declares.")
    args = parser.parse_args()

    plan = _plan(args.limit, args.seeds)
    backend = get_backend("bwrap")
    backend.preflight()
    print(f"plan: oracle x {len({p.task.id for p in plan})} tasks x {args.seeds} seed(s) = {len(plan)} trials, bwrap, "
          f"{args.rounds} interleaved rounds")
    configs = [Config(f"local pool x{args.concurrency}", args.concurrency),
               Config("ray 1 worker", args.worker_cpus), Config("ray 2 workers", 2 * args.worker_cpus)]
    with tempfile.TemporaryDirectory(prefix="mm-bench-ray-") as tmp:
        for round_no in range(args.rounds):
            for offset in range(len(configs)):  # rotate the order: round r starts at configuration r
                index = (round_no + offset) % len(configs)
                tag = f"r{round_no}-c{index}"
                t0 = time.perf_counter()
                got = (run_local(plan, backend, Path(tmp), tag, args.concurrency) if index == 0 else
                       run_ray(plan, backend, Path(tmp), tag, index, args.worker_cpus))
                configs[index].samples.append(got)
                print(f"  round {round_no} {configs[index].name:<16} wall {got.wall:6.1f} s "
                      f"({time.perf_counter() - t0:5.1f} s with cluster start/stop)", flush=True)
    print("medians over the rounds:")
    for config in configs:
        print(config.row())
    local = statistics.median(s.wall for s in configs[0].samples)
    for config in configs[1:]:
        print(f"{config.name}: wall {statistics.median(s.wall for s in config.samples) / local:.2f}x the local pool's")


if __name__ == "__main__":
    main()
