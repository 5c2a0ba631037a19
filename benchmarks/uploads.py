"""The verify phase's upload, file by file against one copy: a task's tests/ plus the suite's shared files.

A trial copies the task's tests/ into the sandbox with the files the runner supplies beside them (verifylib.py,
the setup script, a quoting family's shared verifier). Measured side by side in one run, alternating A B A B
on one sandbox per backend (the machines are shared and noisy: quote medians and ratios):

- A, per file: `upload(tests)` then one `upload(file)` per shared file (how trials did it before);
- B, one copy: `upload(tests, extra_files=...)`.

For docker it also reports the engine's CPU per upload: dockerd's own CPU plus that of the children it reaped
(each put_archive re-executes the daemon to unpack the archive), read from /proc before and after each rep.

Usage: python benchmarks/uploads.py [--backends bwrap,docker] [--reps 30] [--task q-sqlite-insert-h1]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.tasks.loader import builtin_suite_dir, load_task, verify_support_files

TICKS = os.sysconf("SC_CLK_TCK")


@functools.cache
def dockerd_pid() -> str:
    """The engine's pid, looked up once; '' when no dockerd is visible here."""
    return subprocess.run(["pgrep", "-xo", "dockerd"], capture_output=True, text=True).stdout.strip()


def dockerd_cpu_s() -> float | None:
    """dockerd's CPU seconds so far, its reaped children's included; None when no dockerd is visible here."""
    pid = dockerd_pid()
    if not pid:
        return None
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / TICKS  # utime stime cutime cstime


def measure(fn: Callable[[], None]) -> tuple[float, float | None]:
    engine = dockerd_cpu_s()
    start = time.perf_counter()
    fn()
    wall_ms = (time.perf_counter() - start) * 1000
    after = dockerd_cpu_s()
    return wall_ms, None if engine is None or after is None else (after - engine) * 1000


def compare(name: str, tests: Path, extra: dict[str, Path], reps: int) -> None:
    """A and B alternating on one sandbox of backend `name`; prints the medians and their ratio."""
    runs: dict[str, list[tuple[float, float | None]]] = {"per file": [], "one copy": []}
    with tempfile.TemporaryDirectory() as env:
        sandbox = get_backend(name).create(SandboxRequest(task_id="bench", environment_dir=Path(env), label="bench"))
        try:
            dest = sandbox.exec('printf %s "$MM_TESTS"', 30).output

            def per_file() -> None:
                sandbox.upload(tests, f"{dest}/a")
                for file, host in extra.items():
                    sandbox.upload(host, f"{dest}/a/{file}")

            def one_copy() -> None:
                sandbox.upload(tests, f"{dest}/b", extra_files=extra)

            for _ in range(reps):
                runs["per file"].append(measure(per_file))
                runs["one copy"].append(measure(one_copy))
            same = sandbox.exec(f'diff -r "{dest}/a" "{dest}/b" && echo same', 30).output.strip()
        finally:
            sandbox.destroy()
    walls = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    print(f"{name}: per file {walls['per file']:.1f} ms, one copy {walls['one copy']:.1f} ms, "
          f"ratio {walls['one copy'] / walls['per file']:.2f}x (median wall); contents {same or 'DIFFER'}")
    engine = {k: [c for _, c in v if c is not None] for k, v in runs.items()}
    if name == "docker" and all(len(v) == reps for v in engine.values()):
        cpu = {k: statistics.median(v) for k, v in engine.items()}
        print(f"docker engine CPU per upload: per file {cpu['per file']:.0f} ms, one copy {cpu['one copy']:.0f} ms, "
              f"ratio {cpu['one copy'] / cpu['per file']:.2f}x (median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="bwrap,docker")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--task", default="q-sqlite-insert-h1", help="a built-in task id (default: 4 shared files)")
    args = parser.parse_args()
    task = load_task(builtin_suite_dir() / args.task)
    tests, extra = Path(task.path) / "tests", verify_support_files(task)
    print(f"task {task.id}: tests/ ({len(list(tests.iterdir()))} entries) + {len(extra)} shared files; "
          f"{args.reps} alternating reps each")
    for name in args.backends.split(","):
        compare(name, tests, extra, args.reps)


if __name__ == "__main__":
    main()
