"""Host trials of the built-in suite (tests/tasks/harness.py) with each candidate `python3`, side by side.

The test suite runs about 2,600 of these (oracle, reference path, nop, check scripts, seed replays); each
calls `python3` a few times (the verifier, task scripts). tests/conftest.py puts Debian's /usr/bin/python3,
the interpreter the sandbox images run, first on PATH when the host has it. This prints, per interpreter,
the median wall time and the CPU time of one trial (setup from the session cache, oracle, verify), measured
interleaved in one run, and the ratio to the first interpreter.

Usage: python benchmarks/host_trials.py [--tasks 20] [--rounds 3] [--python3 PATH ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.tasks.harness

from matchmeter.tasks import load_tasks  # noqa: E402
from tests.tasks.harness import SETUP_CACHE_ENV, Trial, host_trials_python3, resolved_python3  # noqa: E402


def _candidates(given: list[str]) -> list[str]:
    """The given interpreters, else the one `python3` resolves to and the images' own, each once."""
    if given:
        return given
    found: list[str] = []
    for python3 in (resolved_python3(), host_trials_python3()):
        if python3 and all(Path(python3).resolve() != Path(f).resolve() for f in found):
            found.append(python3)
    if not found:
        raise SystemExit("no python3 found: pass one with --python3 PATH")
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_trial(task, python3: str, bindir: Path) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    link = bindir / "python3"
    link.unlink(missing_ok=True)
    link.symlink_to(python3)
    cpu, wall = _children_cpu(), time.perf_counter()
    with Trial(task, 0) as trial:
        trial.setup()
        trial.solve()
        verdict = trial.verify()
    assert verdict.reward_txt == 1.0, f"{task.id} with {python3}: reward {verdict.reward_txt}"
    return time.perf_counter() - wall, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20, help="how many tasks of the suite (spread over it)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python3", action="append", default=[], help="interpreter to compare (repeatable)")
    args = parser.parse_args()
    pythons = _candidates(args.python3)
    tasks = load_tasks([])
    tasks = tasks[:: max(1, len(tasks) // args.tasks)][: args.tasks]
    bindir = Path(tempfile.mkdtemp(prefix="mm-bench-python3-"))
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ['PATH']}"
    os.environ[SETUP_CACHE_ENV] = tempfile.mkdtemp(prefix="mm-bench-setups-")
    for task in tasks:  # fill the setup cache first, as a test session does
        _one_trial(task, pythons[0], bindir)
    walls: dict[str, list[float]] = {p: [] for p in pythons}
    cpus: dict[str, list[float]] = {p: [] for p in pythons}
    for _ in range(args.rounds):
        for task in tasks:
            for python3 in pythons:  # interleaved: both see the same machine load
                wall, cpu = _one_trial(task, python3, bindir)
                walls[python3].append(wall)
                cpus[python3].append(cpu)
    shutil.rmtree(bindir, ignore_errors=True)
    shutil.rmtree(os.environ[SETUP_CACHE_ENV], ignore_errors=True)
    first = pythons[0]
    print(f"{len(tasks)} tasks x {args.rounds} rounds, one host trial = setup (cached) + oracle + verify")
    for python3 in pythons:
        wall, cpu = statistics.median(walls[python3]), statistics.median(cpus[python3])
        print(f"{python3:45s} median wall {wall * 1000:7.1f} ms  CPU {cpu * 1000:7.1f} ms  "
              f"ratio to first: wall {wall / statistics.median(walls[first]):.2f}x  "
              f"CPU {cpu / statistics.median(cpus[first]):.2f}x")


if __name__ == "__main__":
    main()
