"""Harness overhead per command and per trial, for each sandbox backend, beside bare baselines.

Measured side by side in one run (the machines are shared and noisy: quote medians and ratios):

- per command: `sandbox.exec("true")` median vs a bare `bash -c true` subprocess and, for docker, a
  bare `docker exec <container> true` against a plain container of the same base image;
- per trial: the oracle through the full lifecycle (create, seed, snapshot, agent, restart so no agent
  process survives, snapshot, copy tests, verify, halt, read the verdict, destroy) over the built-in
  suite, vs the same three scripts (setup, solve, test) run with bare bash in a temp dir, and for
  docker also vs a bare `docker run` + `docker exec` x3 (setup, solve, test) + `docker rm` of the base
  image: the floor of any container-per-trial harness.

Usage: python benchmarks/overhead.py [--backends local,bwrap,docker] [--reps 30] [--seed 0] [--tasks N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from matchmeter.runner.executor import execute_plan, plan_cross_product
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.store import RunStore
from matchmeter.schema import Description
from matchmeter.tasks.loader import load_task, load_tasks, verify_support_files
from matchmeter.tasks.oracle import stage_oracle


def _median_ms(fn, reps: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def bare_bash_ms(reps: int) -> float:
    return _median_ms(lambda: subprocess.run(["bash", "-c", "true"], check=True), reps)


def bare_docker_exec_ms(reps: int) -> float:
    cid = subprocess.run(["docker", "run", "-d", "--rm", "--network", "none", "--label", "matchmeter=1",
                          "matchmeter-base:latest", "sleep", "600"], capture_output=True, text=True, check=True).stdout.strip()
    try:
        return _median_ms(lambda: subprocess.run(["docker", "exec", cid, "true"], check=True, capture_output=True), reps)
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def sandbox_exec_ms(backend_name: str, env_dir: Path, reps: int) -> float:
    sandbox = get_backend(backend_name).create(SandboxRequest(task_id="bench", environment_dir=env_dir, label="bench"))
    try:
        sandbox.exec("true", 30)  # warm-up
        return _median_ms(lambda: sandbox.exec("true", 30), reps)
    finally:
        sandbox.destroy()


def _bash_in_group(script: Path, cwd: Path, env: dict[str, str], groups: list[int]) -> None:
    proc = subprocess.Popen(["bash", str(script)], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    groups.append(proc.pid)  # its process group: services the script started in the background stay in it
    proc.wait(timeout=300)


def _stage_tests(task_path: Path, dest: Path) -> None:
    """tests/ plus what the runner supplies beside it at verify time (shared verifylib, setup script)."""
    shutil.copytree(task_path / "tests", dest, dirs_exist_ok=True)
    for name, host in verify_support_files(load_task(task_path)).items():
        shutil.copyfile(host, dest / name)


def bare_trial_s(task_path: Path, seed: int) -> float:
    """setup.sh, solve.sh, test.sh with plain bash in temp dirs: the work a trial must do anyway."""
    root = Path(tempfile.mkdtemp(prefix="mm-bare-"))
    dirs = {name: root / name for name in ("app", "tests", "logs")}
    for d in dirs.values():
        d.mkdir()
    solve = stage_oracle(load_task(task_path), root / "solution")  # the task's own, or from its reference path
    env = {**os.environ, "MM_SEED": str(seed), "MM_APP": str(dirs["app"]), "MM_TESTS": str(dirs["tests"]),
           "MM_LOGS": str(dirs["logs"])}
    groups: list[int] = []
    start = time.perf_counter()
    try:
        for script in (task_path / "environment" / "setup.sh", solve):
            _bash_in_group(script, dirs["app"], env, groups)
        _stage_tests(task_path, dirs["tests"])
        _bash_in_group(dirs["tests"] / "test.sh", dirs["app"], env, groups)
        return time.perf_counter() - start
    finally:
        for pgid in groups:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(root, ignore_errors=True)


def bare_docker_trial_s(task_path: Path, seed: int) -> float:
    """docker run + exec setup, solve, test + rm: the same work with nothing but the engine in between."""
    tests = Path(tempfile.mkdtemp(prefix="mm-bare-tests-"))
    _stage_tests(task_path, tests)
    tests.chmod(0o755)
    solution = Path(tempfile.mkdtemp(prefix="mm-bare-solution-"))
    solution.chmod(0o755)
    stage_oracle(load_task(task_path), solution / "s")
    start = time.perf_counter()
    cid = subprocess.run(["docker", "run", "-d", "--network", "none", "--label", "matchmeter=1", "-v",
                          f"{task_path}:/task:ro", "-v", f"{tests}:/tests:ro", "-v", f"{solution / 's'}:/solution:ro",
                          "-e", f"MM_SEED={seed}", "-e", "MM_APP=/app", "-e", "MM_TESTS=/tests", "-e", "MM_LOGS=/tmp",
                          "-w", "/app",
                          "matchmeter-base:latest", "sleep", "600"],
                         capture_output=True, text=True, check=True).stdout.strip()
    try:
        for script in ("/task/environment/setup.sh", "/solution/solve.sh", "/tests/test.sh"):
            subprocess.run(["docker", "exec", cid, "bash", script], capture_output=True)
        return time.perf_counter() - start
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
        shutil.rmtree(tests, ignore_errors=True)
        shutil.rmtree(solution, ignore_errors=True)


def lifecycle_trial_s(backend_name: str, seed: int, limit: int) -> tuple[list[float], int]:
    tasks = load_tasks([])[:limit]
    plan = plan_cross_product([configuration_from_flags("oracle", None)], tasks,
                              lambda t: [Description.original(t)], [seed], 1).unique()
    with tempfile.TemporaryDirectory() as tmp:
        results = execute_plan(plan, RunStore(Path(tmp) / "run"), "bench", get_backend(backend_name))
    return [r.wall_s for r in results], sum(r.reward == 1.0 for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="local,bwrap,docker")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", type=int, default=1000, help="Only the first N tasks of the suite.")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    tasks = load_tasks([])[: args.tasks]
    env_dir = Path(tasks[0].path) / "environment"

    bash_ms = bare_bash_ms(args.reps)
    docker_ms = bare_docker_exec_ms(args.reps) if "docker" in backends else float("nan")
    bare_trials = [bare_trial_s(Path(t.path), args.seed) for t in tasks]
    bare_trial = statistics.median(bare_trials)
    print(f"per-command baselines: bare `bash -c true` {bash_ms:.2f} ms; bare `docker exec true` {docker_ms:.2f} ms")
    print(f"per-trial baseline: bare bash setup+solve+test, median over {len(tasks)} tasks: {bare_trial:.3f} s")
    bare_docker = (statistics.median([bare_docker_trial_s(Path(t.path), args.seed) for t in tasks])
                   if "docker" in backends else float("nan"))
    print(f"per-trial baseline: bare docker run + exec x3 + rm, median over {len(tasks)} tasks: {bare_docker:.3f} s")
    print(f"{'backend':8} {'exec ms':>9} {'/bash':>7} {'/docker exec':>13} {'trial s':>9} {'/bare trial':>12} "
          f"{'/bare docker':>13} oracle 1.0")
    for name in backends:
        exec_ms = sandbox_exec_ms(name, env_dir, args.reps)
        trial_times, passes = lifecycle_trial_s(name, args.seed, args.tasks)
        trial = statistics.median(trial_times)
        print(f"{name:8} {exec_ms:9.2f} {exec_ms / bash_ms:7.2f} {exec_ms / docker_ms:13.2f} "
              f"{trial:9.3f} {trial / bare_trial:12.2f} {trial / bare_docker:13.2f} {passes}/{len(trial_times)}")


if __name__ == "__main__":
    main()
