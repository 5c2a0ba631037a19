"""Cold-start time of `matchmeter --help` and `matchmeter tasks list` beside `python -c "import litellm"`, and
litellm imported the way matchmeter imports it (`import_litellm()`, the cyclic collector paused).

Each command runs in a fresh interpreter several times, the commands taking turns so machine noise falls on all
of them alike; the table shows the median and min wall time, the median CPU time (user + system of the child),
and the ratio of each median to the plain litellm import's (the cost every command would pay if litellm were
imported eagerly). litellm is imported with LITELLM_LOCAL_MODEL_COST_MAP=True, as matchmeter does, so the
number excludes the network fetch of its price map.

    .venv/bin/python benchmarks/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and exit status of one fresh run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    matchmeter = str(BIN / "matchmeter") if (BIN / "matchmeter").exists() else None
    prefix = [matchmeter] if matchmeter else [sys.executable, "-m", "matchmeter.cli"]
    commands = {
        "matchmeter --help": [*prefix, "--help"],
        "matchmeter tasks list": [*prefix, "tasks", "list"],
        'python -c "import litellm"': [sys.executable, "-c", "import litellm"],
        "import_litellm() (gc paused)": [sys.executable, "-c",
                                          "from matchmeter.llm.client import import_litellm; import_litellm()"],
    }
    for argv in commands.values():
        _time(argv, env)  # warm the OS file cache once so every run measures interpreter start, not the disk
    samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            samples[name].append(_time(argv, env))
    results = {name: (statistics.median(t for t, _, _ in runs), min(t for t, _, _ in runs),
                      statistics.median(c for _, c, _ in runs), {rc for _, _, rc in runs})
               for name, runs in samples.items()}
    base, base_cpu = results['python -c "import litellm"'][0], results['python -c "import litellm"'][2]
    print(f"{'command':<30} {'median s':>9} {'min s':>7} {'cpu s':>7} {'÷ litellm':>10} {'cpu ÷':>7}  exit")
    for name, (med, low, cpu, rcs) in results.items():
        print(f"{name:<30} {med:>9.3f} {low:>7.3f} {cpu:>7.3f} {med / base:>10.2f} {cpu / base_cpu:>7.2f}  "
              f"{','.join(map(str, sorted(rcs)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
