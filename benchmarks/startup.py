"""Cold-start time of `matchmeter --help` and `matchmeter tasks list` beside `python -c "import litellm"`.

Each command runs in a fresh interpreter several times; the table shows the median and min wall time
and the ratio of each median to the litellm import's median (the cost every command would pay if
litellm were imported eagerly). litellm is imported with LITELLM_LOCAL_MODEL_COST_MAP=True, as
matchmeter does, so the number excludes the network fetch of its price map.

    .venv/bin/python benchmarks/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, check=False)
    return time.perf_counter() - t0, proc.returncode


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
    }
    results: dict[str, tuple[float, float, set[int]]] = {}
    for name, argv in commands.items():
        _time(argv, env)  # warm the OS file cache once so every run measures interpreter start, not the disk
        samples = [_time(argv, env) for _ in range(args.runs)]
        times = [t for t, _ in samples]
        results[name] = (statistics.median(times), min(times), {rc for _, rc in samples})
    base = results['python -c "import litellm"'][0]
    print(f"{'command':<30} {'median s':>9} {'min s':>7} {'÷ litellm':>10}  exit")
    for name, (med, low, rcs) in results.items():
        print(f"{name:<30} {med:>9.3f} {low:>7.3f} {med / base:>10.2f}  {','.join(map(str, sorted(rcs)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
