"""`optimize` on the demo sources: wall time with units one at a time vs side by side, same bytes.

    .venv/bin/python benchmarks/ray_optimize.py [--concurrency 4] [--tasks 12]

SIMULATED: every model is a sim/ persona served by the loopback stub. The source runs are the demo's
(sim/sloppy and sim/explorer with the bash agent, Original descriptions, bwrap, one seed) over the demo's
12-task Core slice; then `optimize` (sources sloppy and explorer, plus the generic unit: 3 units per task)
runs twice into fresh directories, `--concurrency 1` (units one at a time, one trial at a time, as before)
and `--concurrency N` (N units side by side sharing N trial slots), each with a cold response cache of its
own so neither reads the other's replies. Printed: wall time of each, the ratio, and whether
descriptions.json and every unit state are byte-identical.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matchmeter.optimizer.pipeline import OptimizeRequest, optimize  # noqa: E402
from matchmeter.pipeline.demo import DEMO_TASKS, SOURCES  # noqa: E402
from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run  # noqa: E402


def _bytes(out: Path) -> dict[str, bytes]:
    files = [out / "descriptions.json", *sorted((out / "state").rglob("*.json"))]
    return {str(p.relative_to(out)): p.read_bytes() for p in files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=len(DEMO_TASKS), help="First N of the demo's tasks.")
    parser.add_argument("--executor", default="local", help="local or ray (needs --ray-address).")
    parser.add_argument("--ray-address", default=None)
    args = parser.parse_args()
    tasks = list(DEMO_TASKS)[: args.tasks]
    with tempfile.TemporaryDirectory(prefix="mm-bench-opt-") as tmp:
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
        walls, outs = {}, {}
        for width in (1, args.concurrency):
            os.environ["MATCHMETER_CACHE_DIR"] = str(root / f"cache-{width}")  # cold, and its own
            out = root / f"descset-{width}"
            started = time.perf_counter()
            s = optimize(OptimizeRequest(runs=runs, sources=[f"sim/{p}+bash" for p in SOURCES],
                                         rewriter_model="sim/rewriter", judge_model="sim/judge", out=str(out),
                                         backend="bwrap", concurrency=width, use_cache=False,
                                         executor=args.executor if width > 1 else "local",
                                         ray_address=args.ray_address), progress=False)
            walls[width], outs[width] = time.perf_counter() - started, out
            print(f"--concurrency {width}: {s.units_run} units, {s.source_side_executions} source-side executions, "
                  f"{s.lm_calls} LM calls, wall {walls[width]:.1f} s", flush=True)
        same = _bytes(outs[1]) == _bytes(outs[args.concurrency])
        print(f"speed-up x{walls[1] / walls[args.concurrency]:.2f}; descriptions.json and unit states byte-identical: {same}")


if __name__ == "__main__":
    main()
