"""`optimize` on the demo sources: wall time with units one at a time vs side by side, or on the local pool
vs a Ray cluster; the same bytes either way.

    .venv/bin/python benchmarks/ray_optimize.py [--concurrency 4] [--tasks 12]
    .venv/bin/python benchmarks/ray_optimize.py --compare executors --concurrency 2 --tasks 4 --repeat 3

SIMULATED: every model is a sim/ persona served by the loopback stub. The source runs are the demo's
(sim/sloppy and sim/explorer with the bash agent, Original descriptions, bwrap, one seed) over the first
--tasks of the demo's 12-task Core slice; then `optimize` (sources sloppy and explorer, plus the generic
unit: 3 units per task) runs into fresh directories, each with a cold response cache of its own so none
reads another's replies:

- `--compare widths` (default): `--concurrency 1` (units one at a time, one trial at a time) and
  `--concurrency N` (N units side by side sharing N trial slots; on Ray with `--executor ray`);
- `--compare executors`: `--concurrency N` on the local pool and on Ray, alternating, `--repeat` times each.
  Without `--ray-address` a real cluster is started on this machine (tests/helpers/ray_cluster.py: a head
  with no CPUs and `--workers` nodes of `--worker-cpus` each, not timed).

Printed: wall time of each optimize, medians and their ratio, and whether descriptions.json and every
unit state are byte-identical across all of them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matchmeter.optimizer.pipeline import OptimizeRequest, optimize  # noqa: E402
from matchmeter.pipeline.demo import DEMO_TASKS, SOURCES  # noqa: E402
from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run  # noqa: E402


def _bytes(out: Path) -> dict[str, bytes]:
    files = [out / "descriptions.json", *sorted((out / "state").rglob("*.json"))]
    return {str(p.relative_to(out)): p.read_bytes() for p in files}


@contextlib.contextmanager
def _cluster(args: argparse.Namespace, root: Path) -> Iterator[str | None]:
    """The Ray address to use: the given one, a cluster started here for the benchmark, or None (no Ray)."""
    wanted = args.executor == "ray" or args.compare == "executors"
    if args.ray_address or not wanted:
        yield args.ray_address
        return
    from tests.helpers.ray_cluster import RayCluster

    cluster = RayCluster(workers=args.workers, worker_cpus=args.worker_cpus, worker_memory_mb=4096)
    cluster.env["MATCHMETER_CACHE_DIR"] = str(root / "cache-nodes")  # the nodes' own, not the machine's
    with cluster:  # this process stays connected: every optimize below reuses the connection
        yield cluster.address


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=len(DEMO_TASKS), help="First N of the demo's tasks.")
    parser.add_argument("--compare", choices=("widths", "executors"), default="widths")
    parser.add_argument("--repeat", type=int, default=1, help="Optimize runs per side (medians are printed).")
    parser.add_argument("--executor", default="local", help="widths: where the wide run goes (local or ray).")
    parser.add_argument("--ray-address", default=None, help="An existing cluster (default: start one here).")
    parser.add_argument("--workers", type=int, default=2, help="Worker nodes of a cluster started here.")
    parser.add_argument("--worker-cpus", type=int, default=1)
    args = parser.parse_args()
    tasks = list(DEMO_TASKS)[: args.tasks]
    if args.compare == "widths":
        sides = [("local", 1), (args.executor, args.concurrency)]
    else:
        sides = [("local", args.concurrency), ("ray", args.concurrency)]
    with tempfile.TemporaryDirectory(prefix="mm-bench-opt-") as tmp, _cluster(args, Path(tmp)) as address:
        root = Path(tmp)
        os.environ["MATCHMETER_CACHE_DIR"] = str(root / "cache-source")
        runs = []
        started = time.perf_counter()
        for persona in SOURCES:
            out = root / "runs" / persona
            execute_run(RunRequest(configurations=[configuration_from_flags("bash", f"sim/{persona}")], only=tasks,
                                   backend="bwrap", concurrency=2, out=str(out)), progress=False)
            runs.append(str(out))
        print(f"SIMULATED source runs: {len(SOURCES)} x {len(tasks)} tasks in {time.perf_counter() - started:.0f} s")
        walls: dict[tuple[str, int], list[float]] = {side: [] for side in sides}
        outs: list[Path] = []
        for rep in range(args.repeat):
            for executor, width in sides:
                name = f"{executor}-{width}-{rep}"
                os.environ["MATCHMETER_CACHE_DIR"] = str(root / f"cache-{name}")  # cold, and its own
                out = root / f"descset-{name}"
                started = time.perf_counter()
                s = optimize(OptimizeRequest(runs=runs, sources=[f"sim/{p}+bash" for p in SOURCES],
                                             rewriter_model="sim/rewriter", judge_model="sim/judge", out=str(out),
                                             backend="bwrap", concurrency=width, use_cache=False, executor=executor,
                                             ray_address=address if executor == "ray" else None), progress=False)
                walls[(executor, width)].append(time.perf_counter() - started)
                outs.append(out)
                print(f"{executor} --concurrency {width} (run {rep + 1}): {s.units_run} units, "
                      f"{s.source_side_executions} source-side executions, {s.lm_calls} LM calls, "
                      f"wall {walls[(executor, width)][-1]:.1f} s", flush=True)
        medians = [statistics.median(walls[side]) for side in sides]
        for (executor, width), median in zip(sides, medians, strict=True):
            print(f"median {executor} --concurrency {width}: {median:.1f} s over {args.repeat} run(s)")
        same = all(_bytes(out) == _bytes(outs[0]) for out in outs[1:])
        print(f"ratio (first / second) x{medians[0] / medians[1]:.2f}; descriptions.json and unit states "
              f"byte-identical across all {len(outs)} runs: {same}")


if __name__ == "__main__":
    main()
