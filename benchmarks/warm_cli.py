"""A CLI call from the tests' warm parent (tests/helpers/warm_cli.py) beside the same call started cold.

Three commands: `--help`, `tasks list`, and a one-execution SIMULATED run on the local backend with the response
cache off (so the run imports litellm and calls the loopback stub, as the CLI tests' runs do). Cold and warm take
turns; the table shows median wall and CPU seconds (user + system of the process and what it reaped) and the
warm/cold ratios. The warm parent's own start (its imports, paid once per test worker) is printed apart.

    .venv/bin/python benchmarks/warm_cli.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import warm_cli  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cold(args: list[str]) -> tuple[float, float, int]:
    cpu, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([*warm_cli.CLI, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - t0, _children_cpu() - cpu, proc.returncode


def _warm(args: list[str]) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    proc = warm_cli.run_matchmeter(*args)
    return time.perf_counter() - t0, warm_cli._parent.last_cpu_s, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mm-bench-warm-"))
    os.environ.update(LITELLM_LOCAL_MODEL_COST_MAP="True", MATCHMETER_HOME=str(tmp / "home"),
                      MATCHMETER_CACHE_DIR=str(tmp / "cache"))
    t0 = time.perf_counter()
    assert warm_cli.is_warm()
    print(f"warm parent start (once per test worker): {time.perf_counter() - t0:.2f} s wall")
    runs = iter(range(10_000))

    def sim_run() -> list[str]:
        return ["run", "--agent", "bash", "--model", "sim/expert", "--backend", "local", "--task", "env-merge",
                "--no-cache", "--quiet", "--out", str(tmp / f"run-{next(runs)}")]

    commands = {"matchmeter --help": lambda: ["--help"], "matchmeter tasks list": lambda: ["tasks", "list"],
                "matchmeter run (sim, no cache)": sim_run}
    samples: dict[str, dict[str, list[tuple[float, float, int]]]] = {n: {"cold": [], "warm": []} for n in commands}
    for _ in range(args.runs):
        for name, make in commands.items():
            samples[name]["cold"].append(_cold(make()))
            samples[name]["warm"].append(_warm(make()))
    print(f"{'command':<32} {'cold s':>7} {'warm s':>7} {'cold cpu':>9} {'warm cpu':>9} {'wall ÷':>7} {'cpu ÷':>6}  exit")
    for name, by in samples.items():
        wall = {k: statistics.median(t for t, _, _ in v) for k, v in by.items()}
        cpu = {k: statistics.median(c for _, c, _ in v) for k, v in by.items()}
        codes = sorted({rc for v in by.values() for _, _, rc in v})
        print(f"{name:<32} {wall['cold']:>7.2f} {wall['warm']:>7.2f} {cpu['cold']:>9.2f} {cpu['warm']:>9.2f} "
              f"{wall['warm'] / wall['cold']:>7.2f} {cpu['warm'] / cpu['cold']:>6.2f}  {','.join(map(str, codes))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
