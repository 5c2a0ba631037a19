"""Harness overhead per trial and per `matchmeter run` process, like for like against bare scripts, interleaved.

For each backend and task, every rep runs, in turn (so the shared machine's noise falls on all alike):

- bare: the same work with nothing of matchmeter in between, files copied as the trial copies them, cleanup
  included. docker: `docker run -d` of the task image, then `docker cp` + `docker exec` of setup.sh, of the
  oracle's solve.sh and of the tests, `docker exec cat` of the reward, `docker rm -f`. bwrap (and local): plain
  bash on the host: environment/, the solution and the tests copied into a temp tree, setup, solve, test, the
  reward read, the tree removed (no sandbox at all: the floor any sandbox adds to).
- trial: the oracle through the full lifecycle (runner/trial.py `run_trial`: create, seed, snapshot, agent,
  restart so no agent process survives, snapshot, copy tests, verify, halt + verdict, destroy).
- process: the whole `matchmeter run --agent oracle --task T --backend B --out DIR` in a fresh interpreter.

Printed: medians over the reps and the ratios trial / bare and process / bare (issue 35's goals: docker trial
<= 1.5x, bwrap trial <= 1.2x, process <= 2x on both).

Usage: python benchmarks/overhead.py [--backends bwrap,docker] [--tasks cleanup-old-tmp] [--reps 7]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.sandbox.baseimage import docker_client, task_image
from matchmeter.runner.sandbox.policy import CONTAINER_PATH
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description, TaskSpec
from matchmeter.tasks.loader import load_tasks, verify_support_files
from matchmeter.tasks.oracle import stage_oracle

MATCHMETER = [sys.executable, "-m", "matchmeter.cli"]


def _stage(task: TaskSpec, root: Path) -> dict[str, Path]:
    """What a trial sends into its sandbox, as host dirs: environment/, the oracle's solution, the tests with the
    runner's shared verifier files beside them. Staged before the clock starts, as the trial's sources are."""
    staged = {"env": root / "env", "solution": root / "solution", "tests": root / "tests"}
    shutil.copytree(Path(task.path) / "environment", staged["env"])
    stage_oracle(task, staged["solution"])
    shutil.copytree(Path(task.path) / "tests", staged["tests"])
    for name, host in verify_support_files(task).items():
        shutil.copyfile(host, staged["tests"] / name)
    for path in staged.values():
        path.chmod(0o755)
    return staged


def bare_host_s(task: TaskSpec, staged: dict[str, Path], seed: int) -> float:
    """Plain bash in a temp tree: copy in, setup, solve, test, read the reward, remove the tree."""
    start = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="mm-bare-"))
    dirs = {name: root / name for name in ("app", "tests", "logs")}
    for d in dirs.values():
        d.mkdir()
    # the sandbox's PATH (Debian's python3 first, as in the image), not a pyenv shim that costs a second a call
    env = {**os.environ, "PATH": CONTAINER_PATH, "MM_SEED": str(seed), "MM_APP": str(dirs["app"]), "MM_TESTS": str(dirs["tests"]),
           "MM_LOGS": str(dirs["logs"])}
    try:
        shutil.copytree(staged["env"], dirs["logs"] / ".env")
        run = f'bash "{dirs["logs"]}/.env/setup.sh"' if (staged["env"] / "setup.sh").exists() else "true"
        subprocess.run(["bash", "-c", run], cwd=dirs["app"], env=env, capture_output=True, check=False)
        shutil.copytree(staged["solution"], dirs["logs"] / ".oracle")
        subprocess.run(["bash", f"{dirs['logs']}/.oracle/solve.sh"], cwd=dirs["app"], env=env, capture_output=True,
                       check=False)
        shutil.copytree(staged["tests"], dirs["tests"], dirs_exist_ok=True)
        subprocess.run(["bash", f"{dirs['tests']}/test.sh"], cwd=dirs["app"], env=env, capture_output=True,
                       check=False)
        reward = (dirs["logs"] / "reward.txt").read_text().strip()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    elapsed = time.perf_counter() - start
    if float(reward) != 1.0:
        raise SystemExit(f"bare host run of {task.id} scored {reward}")
    return elapsed


def bare_docker_s(task: TaskSpec, image: str, staged: dict[str, Path], seed: int) -> float:
    """The docker CLI alone: run -d, cp + exec setup, solve and tests, cat the reward, rm -f."""
    def docker(*args: str) -> str:
        return subprocess.run(["docker", *args], capture_output=True, text=True, check=True).stdout

    start = time.perf_counter()
    cid = docker("run", "-d", "--network", "none", "--label", "matchmeter=1", "-w", "/app", "-e", f"MM_SEED={seed}",
                 "-e", "MM_APP=/app", "-e", "MM_TESTS=/tests", "-e", "MM_LOGS=/logs", image, "sleep", "600").strip()
    try:
        docker("exec", cid, "mkdir", "-p", "/app", "/tests", "/logs")
        docker("cp", f"{staged['env']}/.", f"{cid}:/logs/.env")
        if (staged["env"] / "setup.sh").exists():
            docker("exec", cid, "bash", "/logs/.env/setup.sh")
        docker("cp", f"{staged['solution']}/.", f"{cid}:/logs/.oracle")
        docker("exec", cid, "bash", "/logs/.oracle/solve.sh")
        docker("cp", f"{staged['tests']}/.", f"{cid}:/tests")
        subprocess.run(["docker", "exec", cid, "bash", "/tests/test.sh"], capture_output=True, check=False)
        reward = docker("exec", cid, "cat", "/logs/reward.txt").strip()
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if float(reward) != 1.0:
        raise SystemExit(f"bare docker run of {task.id} scored {reward}")
    return elapsed


def trial_s(task: TaskSpec, backend_name: str, seed: int) -> float:
    backend = get_backend(backend_name)
    backend.preflight()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        outcome = run_trial(TrialRequest(
            run_id="overhead", execution_key="overhead", configuration=configuration_from_flags("oracle", None),
            task=task, description=Description.original(task), seed=seed, attempt=0, backend=backend,
            logs_dir=Path(tmp) / "logs"))
        elapsed = time.perf_counter() - start
    if outcome.result.reward != 1.0:
        raise SystemExit(f"{backend_name} trial of {task.id}: {outcome.result.failure_mode} {outcome.result.error}")
    return elapsed


def process_s(task: TaskSpec, backend_name: str, seed: int) -> float:
    # Byte-compiled modules, as an installed package has them, even where PYTHONDONTWRITEBYTECODE is set (then
    # every module was compiled from source on every run): kept in a cache tree of the benchmark's own.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "mm-overhead-pycache")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        done = subprocess.run([*MATCHMETER, "run", "--agent", "oracle", "--task", task.id, "--backend", backend_name,
                               "--out", f"{tmp}/run", "--quiet", "--json"], capture_output=True, text=True, check=False,
                              env=env)
        elapsed = time.perf_counter() - start
    if done.returncode != 0 or json.loads(done.stdout).get("mean_reward") != 1.0:
        raise SystemExit(f"matchmeter run on {backend_name} failed: {done.stdout[-300:]} {done.stderr[-300:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="bwrap,docker")
    parser.add_argument("--tasks", default="cleanup-old-tmp", help="Comma-separated built-in task ids.")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tasks = load_tasks([], only=args.tasks.split(","))
    print(f"{'backend':7} {'task':22} {'bare s':>7} {'trial s':>8} {'process s':>10} {'trial/bare':>11} "
          f"{'process/bare':>13}  (medians of {args.reps} interleaved reps)")
    for name in [b for b in args.backends.split(",") if b]:
        for task in tasks:
            with tempfile.TemporaryDirectory() as tmp:
                staged = _stage(task, Path(tmp))
                if name == "docker":
                    client = docker_client()
                    image = task_image(client, task.id, Path(task.path) / "environment", task.environment.dockerfile)
                    client.close()
                    def bare(task: TaskSpec = task, image: str = image, staged: dict[str, Path] = staged) -> float:
                        return bare_docker_s(task, image, staged, args.seed)
                else:
                    def bare(task: TaskSpec = task, staged: dict[str, Path] = staged) -> float:
                        return bare_host_s(task, staged, args.seed)
                trial_s(task, name, args.seed)  # warm-up: images, root filesystems, the OS file cache, bytecode
                process_s(task, name, args.seed)
                bare()
                times: dict[str, list[float]] = {"bare": [], "trial": [], "process": []}
                for _ in range(args.reps):
                    times["bare"].append(bare())
                    times["trial"].append(trial_s(task, name, args.seed))
                    times["process"].append(process_s(task, name, args.seed))
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"{name:7} {task.id:22} {med['bare']:7.3f} {med['trial']:8.3f} {med['process']:10.3f} "
                  f"{med['trial'] / med['bare']:11.2f} {med['process'] / med['bare']:13.2f}", flush=True)


if __name__ == "__main__":
    main()
