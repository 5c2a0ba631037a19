"""Harness overhead per trial and per `matchmeter run` process, like for like against bare scripts, interleaved.

For each backend and task, every rep runs, in turn (so the shared machine's noise falls on all alike), each bare
side of the backend, then the trial, then the process:

- bare, docker: the docker CLI alone in the same kind of container: `docker run -d --network none` of the task
  image, then `docker cp` + `docker exec` of the setup script, of the oracle's solve.sh and of the tests, `docker
  exec cat` of the reward, `docker rm -f`.
- bare, bwrap (`bare bwrap`): plain `bwrap` command lines written out here (none of matchmeter's sandbox code),
  with the isolation the backend gives an agent: the same root filesystem (the base rootfs, or the task image's
  exported one) ro-bound entry by entry over bwrap's tmpfs root, the same hand-made /dev, /proc, fresh tmpfs /run,
  /tmp and /var/tmp, a host temp tree's app/, tests/ and logs/ bound writable at /app, /tests and /logs (nothing
  else writable: `--remount-ro /`), /etc/passwd and /etc/group with the sandbox uids' entries, new pid, ipc,
  uts, cgroup and network namespaces (no network), `--die-with-parent --new-session --chdir /app`, the same
  rlimits (host `prlimit`), and `setpriv` inside to the same kind of fresh uid with no capabilities and
  no_new_privs (as root: a random agent uid, and a second verifier uid with only the verifier's capabilities;
  as a normal user: bwrap's user namespace and one uid). Two sandboxes, as in a trial (the agent's, then a fresh
  one for the verifier): environment/ (with the setup script's shared files) and the oracle's solution copied
  into logs/, owned by the agent uid; bwrap 1 runs the setup, removes environment/, runs solve.sh, removes the
  solution; tests/ and logs/ handed to the verifier uid (0700), the tests (with the verifier's shared files)
  copied into tests/; bwrap 2 runs `mkdir -p /logs/verifier; bash /tests/test.sh` with the verifier's
  environment; the reward read from logs/ on the host; the tree removed. A task that needs the network, or one
  judged as root in Harbor's writable root (imported tasks), has no bare bwrap side (slirp4netns and the
  verifier's overlay are not written out here). Where it differs from the backend, at no cost that shows: the
  arguments are on bwrap's command line (the backend passes them through `--args FD`), /etc/passwd and /etc/group
  are bound host files (the backend's are `--ro-bind-data` pipes), setup and solve run in one bash (the trial: one
  exec each into the same sandbox), and tests/ and logs/ are handed over in place (the trial makes them anew).
- bare, bwrap and local (`host bash, no sandbox`): plain bash on the host, no sandbox at all (the floor any
  sandbox adds to): environment/, the solution and the tests copied into a temp tree, setup, solve, test, the
  reward read, the tree removed.
- None of the bare sides does what matchmeter adds to prove a clean state and grade safety (the tests dir emptied
  and checked, the protected-state snapshots before and after the agent, the scan that no sandbox process is
  left): that is the overhead measured.
- trial: the oracle through the full lifecycle (runner/trial.py `run_trial`: create, seed, snapshot, agent,
  restart so no agent process survives, snapshot, copy tests, verify, halt + verdict, destroy).
- process: the whole `matchmeter run --agent oracle --task T --backend B --out DIR` in a fresh interpreter.

Printed, one row per bare side: medians over the reps and the ratios trial / bare and process / bare (issue 35's
goals, against the like-for-like sides `docker CLI` and `bare bwrap`: docker trial <= 1.5x, bwrap trial <= 1.2x,
process <= 2x on both).

Usage: python benchmarks/overhead.py [--backends bwrap,docker] [--tasks cleanup-old-tmp] [--reps 7]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend, rootfs
from matchmeter.runner.sandbox.baseimage import BASE_IMAGE, Environment, docker_client, task_image
from matchmeter.runner.sandbox.bwrap import (
    AGENT_UID_BASE,
    FSIZE_LIMIT,
    NPROC_LIMIT,
    TMPFS_BYTES,
    VERIFIER_UID_BASE,
)
from matchmeter.runner.sandbox.policy import CONTAINER_PATH, SANDBOX_ENV, VERIFIER_CAPS
from matchmeter.runner.trial import VERIFIER_ENV, TrialRequest, run_trial
from matchmeter.runner.verdict import harbor_format
from matchmeter.schema import Description, TaskSpec
from matchmeter.tasks.loader import load_tasks, setup_files, setup_run_name, verify_support_files
from matchmeter.tasks.oracle import stage_oracle

MATCHMETER = [sys.executable, "-m", "matchmeter.cli"]

# The bwrap backend's limits and identities are its own constants (imported above), so the bare side cannot drift
# from them; only the command lines are written out here. As a normal user the backend's nproc limit is this one.
NPROC_USER = 4096


def _check_reward(side: str, task: TaskSpec, reward: str) -> None:
    try:
        if float(reward) == 1.0:
            return
    except ValueError:
        pass
    raise SystemExit(f"{side} run of {task.id} scored {reward}")


def _stage(task: TaskSpec, root: Path) -> dict[str, Path]:
    """What a trial sends into its sandbox, as host dirs: environment/ with the setup script's shared files beside
    it, the oracle's solution, the tests with the runner's shared verifier files beside them. Staged before the
    clock starts, as the trial's sources are."""
    staged = {"env": root / "env", "solution": root / "solution", "tests": root / "tests"}
    shutil.copytree(Path(task.path) / "environment", staged["env"])
    for name, host in setup_files(task).items():
        shutil.copyfile(host, staged["env"] / name)
    stage_oracle(task, staged["solution"])
    shutil.copytree(Path(task.path) / "tests", staged["tests"])
    for name, host in verify_support_files(task).items():
        shutil.copyfile(host, staged["tests"] / name)
    for path in staged.values():
        path.chmod(0o755)
    return staged


def bare_host_s(task: TaskSpec, staged: dict[str, Path], seed: int) -> float:
    """Host bash, no sandbox: copy into a temp tree, setup, solve, test, read the reward, remove the tree."""
    start = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="mm-bare-"))
    dirs = {name: root / name for name in ("app", "tests", "logs")}
    for d in dirs.values():
        d.mkdir()
    # the sandbox's PATH (Debian's python3 first, as in the image), not a pyenv shim that costs a second a call
    env = {**os.environ, "PATH": CONTAINER_PATH, "MM_SEED": str(seed), "MM_APP": str(dirs["app"]), "MM_TESTS": str(dirs["tests"]),
           "MM_LOGS": str(dirs["logs"])}
    setup = setup_run_name(task)
    try:
        shutil.copytree(staged["env"], dirs["logs"] / ".env")
        run = f'bash "{dirs["logs"]}/.env/{setup}"' if setup else "true"
        subprocess.run(["bash", "-c", run], cwd=dirs["app"], env=env, capture_output=True, check=False)
        shutil.copytree(staged["solution"], dirs["logs"] / ".oracle")
        subprocess.run(["bash", f"{dirs['logs']}/.oracle/solve.sh"], cwd=dirs["app"], env=env, capture_output=True,
                       check=False)
        shutil.copytree(staged["tests"], dirs["tests"], dirs_exist_ok=True)
        subprocess.run(["bash", f"{dirs['tests']}/test.sh"], cwd=dirs["app"], env=env, capture_output=True,
                       check=False)
        reward_file = dirs["logs"] / "reward.txt"
        reward = reward_file.read_text().strip() if reward_file.is_file() else "nothing"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    elapsed = time.perf_counter() - start
    _check_reward("host bash", task, reward)
    return elapsed


def bwrap_root(task: TaskSpec) -> Path:
    """The root filesystem the bwrap backend gives this task: the base rootfs for a Dockerfile that is only FROM
    the base, else its image's exported tree (made by the warm-up trial)."""
    env = Environment(Path(task.path) / "environment", task.environment.dockerfile)
    root = rootfs.base_rootfs_path() if env.plain == BASE_IMAGE else rootfs.image_rootfs_path(env.key)
    if not rootfs.is_complete(root):
        raise SystemExit(f"no complete root filesystem at {root} (run `matchmeter env build-base`)")
    return root


def bwrap_argv(root: Path, tree: Path) -> list[str]:
    """The plain bwrap command line of one sandbox over `root`, with tree/app, tree/tests and tree/logs writable
    at /app, /tests and /logs and tree/passwd, tree/group as /etc/passwd and /etc/group."""
    argv = ["bwrap"]
    for entry in sorted(root.iterdir()):  # the rootfs's top-level entries, read-only, over bwrap's tmpfs root
        if entry.name in {"proc", "dev", "tmp", "run", ".matchmeter-complete"}:
            continue
        if entry.is_symlink():
            argv += ["--symlink", str(entry.readlink()), f"/{entry.name}"]
        else:
            argv += ["--ro-bind", str(entry), f"/{entry.name}"]
    argv += ["--tmpfs", "/dev"]
    for node in ("null", "zero", "full", "random", "urandom", "tty"):
        argv += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
    argv += [
        "--symlink", "/proc/self/fd", "/dev/fd", "--symlink", "/proc/self/fd/0", "/dev/stdin",
        "--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink", "/proc/self/fd/2", "/dev/stderr",
        "--perms", "1777", "--tmpfs", "/dev/shm",
        "--proc", "/proc", "--tmpfs", "/run",
        "--perms", "1777", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp",
        "--perms", "1777", "--size", str(TMPFS_BYTES), "--tmpfs", "/var/tmp",
        "--bind", str(tree / "app"), "/app", "--bind", str(tree / "tests"), "/tests", "--bind", str(tree / "logs"), "/logs",
        "--ro-bind", str(tree / "passwd"), "/etc/passwd", "--ro-bind", str(tree / "group"), "/etc/group",
        "--remount-ro", "/",
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--unshare-net",
        "--die-with-parent", "--new-session", "--chdir", "/app",
    ]  # fmt: skip
    return argv


def _chown_tree(path: Path, uid: int) -> None:
    os.chown(path, uid, uid)
    for top, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.lchown(Path(top) / name, uid, uid)


def bare_bwrap_s(task: TaskSpec, root: Path, staged: dict[str, Path], seed: int) -> float:
    """Plain bwrap, two sandboxes (the agent's: setup + solve; the verifier's: tests), the reward read on the host,
    the tree removed. The module docstring says what each sandbox is given."""
    privileged = os.geteuid() == 0
    agent = AGENT_UID_BASE + secrets.randbelow(100_000) if privileged else os.getuid()
    verifier = VERIFIER_UID_BASE + secrets.randbelow(100_000) if privileged else os.getuid()
    limits = ["prlimit", f"--nproc={NPROC_LIMIT if privileged else NPROC_USER}", f"--fsize={FSIZE_LIMIT}", "--"]
    drop = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    as_agent, as_verifier = drop, drop
    if privileged:
        caps = "-all," + ",".join(f"+{c}" for c in VERIFIER_CAPS)
        as_agent = ["setpriv", f"--reuid={agent}", f"--regid={agent}", "--clear-groups", *drop[1:]]
        as_verifier = ["setpriv", f"--reuid={verifier}", f"--regid={verifier}", "--clear-groups", f"--bounding-set={caps}",
                       f"--inh-caps={caps}", f"--ambient-caps={caps}", "--no-new-privs"]
    env = {**SANDBOX_ENV, **{k: v for k, v in rootfs.rootfs_env(root).items() if k != "HOME"}, "MM_SEED": str(seed),
           "MM_APP": "/app", "MM_TESTS": "/tests", "MM_LOGS": "/logs"}
    setup = setup_run_name(task)

    start = time.perf_counter()
    tree = Path(tempfile.mkdtemp(prefix="mm-bare-bwrap-"))
    try:
        for name in ("app", "tests", "logs"):
            (tree / name).mkdir()
            if privileged:
                os.chown(tree / name, agent, agent)
        users, groups = f"agent:x:{agent}:{agent}:matchmeter agent:/tmp:/bin/bash\n", f"agent:x:{agent}:\n"
        if verifier != agent:
            users += f"verifier:x:{verifier}:{verifier}:matchmeter verifier:/tmp:/bin/bash\n"
            groups += f"verifier:x:{verifier}:\n"
        for name, extra in (("passwd", users), ("group", groups)):
            base = (root / "etc" / name).read_text()
            (tree / name).write_text((base if base.endswith("\n") else base + "\n") + extra)
            (tree / name).chmod(0o644)
        image_app = root / "app"  # what the image holds in /app, as docker's volume copy seeds it
        if image_app.is_dir() and not image_app.is_symlink() and any(image_app.iterdir()):
            shutil.copytree(image_app, tree / "app", symlinks=True, dirs_exist_ok=True)
        shutil.copytree(staged["env"], tree / "logs" / ".env")
        shutil.copytree(staged["solution"], tree / "logs" / ".oracle")
        if privileged:
            for path in (tree / "app", tree / "logs" / ".env", tree / "logs" / ".oracle"):
                _chown_tree(path, agent)
        argv = bwrap_argv(root, tree)
        run_setup = f'bash "/logs/.env/{setup}" || exit; ' if setup else ""
        agent_script = (f'{run_setup}rm -rf /logs/.env; bash /logs/.oracle/solve.sh; rc=$?; rm -rf /logs/.oracle; '
                        "exit $rc")
        subprocess.run([*limits, *argv, *as_agent, "bash", "-c", agent_script], env=env, capture_output=True, check=False)
        for name in ("tests", "logs"):  # the verifier's alone from now on, as after the trial's restart
            (tree / name).chmod(0o700)
            if privileged:
                os.chown(tree / name, verifier, verifier)
        shutil.copytree(staged["tests"], tree / "tests", dirs_exist_ok=True)
        if privileged:
            _chown_tree(tree / "tests", verifier)
        verifier_env = {**env, **VERIFIER_ENV, **({"MM_AGENT_UID": str(agent)} if verifier != agent else {})}
        done = subprocess.run([*limits, *argv, *as_verifier, "bash", "-c", 'mkdir -p "/logs/verifier"; bash "/tests/test.sh"'],
                              env=verifier_env, capture_output=True, text=True, check=False)
        reward_file = tree / "logs" / "reward.txt"
        reward = reward_file.read_text().strip() if reward_file.is_file() else f"nothing (verifier: {done.stderr[-300:]})"
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    elapsed = time.perf_counter() - start
    _check_reward("bare bwrap", task, reward)
    return elapsed


def bare_docker_s(task: TaskSpec, image: str, staged: dict[str, Path], seed: int) -> float:
    """The docker CLI alone: run -d, cp + exec setup, solve and tests, cat the reward, rm -f."""
    def docker(*args: str) -> str:
        return subprocess.run(["docker", *args], capture_output=True, text=True, check=True).stdout

    setup = setup_run_name(task)
    start = time.perf_counter()
    cid = docker("run", "-d", "--network", "none", "--label", "matchmeter=1", "-w", "/app", "-e", f"MM_SEED={seed}",
                 "-e", "MM_APP=/app", "-e", "MM_TESTS=/tests", "-e", "MM_LOGS=/logs", image, "sleep", "600").strip()
    try:
        docker("exec", cid, "mkdir", "-p", "/app", "/tests", "/logs")
        docker("cp", f"{staged['env']}/.", f"{cid}:/logs/.env")
        if setup:
            docker("exec", cid, "bash", f"/logs/.env/{setup}")
        docker("cp", f"{staged['solution']}/.", f"{cid}:/logs/.oracle")
        docker("exec", cid, "bash", "/logs/.oracle/solve.sh")
        docker("cp", f"{staged['tests']}/.", f"{cid}:/tests")
        subprocess.run(["docker", "exec", cid, "bash", "/tests/test.sh"], capture_output=True, check=False)
        reward = docker("exec", cid, "cat", "/logs/reward.txt").strip()
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    _check_reward("bare docker", task, reward)
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


def bare_sides(task: TaskSpec, backend: str, staged: dict[str, Path], seed: int) -> dict[str, Callable[[], float]]:
    """The bare sides of a backend, by the name printed: the like-for-like one first."""
    if backend == "docker":
        client = docker_client()
        image = task_image(client, task.id, Path(task.path) / "environment", task.environment.dockerfile)
        client.close()
        return {"docker CLI": lambda: bare_docker_s(task, image, staged, seed)}
    sides: dict[str, Callable[[], float]] = {}
    if backend == "bwrap":
        if task.environment.network or harbor_format(task):
            print(f"  ({task.id}: no bare bwrap side for a network-on or Harbor-judged task)", flush=True)
        else:
            root = bwrap_root(task)
            sides["bare bwrap"] = lambda: bare_bwrap_s(task, root, staged, seed)
    sides["host bash, no sandbox"] = lambda: bare_host_s(task, staged, seed)
    return sides


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="bwrap,docker")
    parser.add_argument("--tasks", default="cleanup-old-tmp", help="Comma-separated built-in task ids.")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # the package's bytecode, as a wheel install has it (`make bytecode`): with PYTHONDONTWRITEBYTECODE set, an
    # editable install would compile its modules anew in every measured process
    compileall.compile_dir(Path(__file__).parents[1] / "matchmeter", quiet=1, workers=0,
                           rx=re.compile(r"/tasks/(suite|probes)/"))
    tasks = load_tasks([], only=args.tasks.split(","))
    print(f"{'backend':7} {'task':22} {'bare side':22} {'bare s':>7} {'trial s':>8} {'process s':>10} "
          f"{'trial/bare':>11} {'process/bare':>13}  (medians of {args.reps} interleaved reps)")
    for name in [b for b in args.backends.split(",") if b]:
        for task in tasks:
            with tempfile.TemporaryDirectory() as tmp:
                staged = _stage(task, Path(tmp))
                trial_s(task, name, args.seed)  # warm-up: images, root filesystems, the OS file cache, bytecode
                process_s(task, name, args.seed)
                sides = bare_sides(task, name, staged, args.seed)
                for bare in sides.values():
                    bare()
                times: dict[str, list[float]] = {**{side: [] for side in sides}, "trial": [], "process": []}
                for _ in range(args.reps):
                    for side, bare in sides.items():
                        times[side].append(bare())
                    times["trial"].append(trial_s(task, name, args.seed))
                    times["process"].append(process_s(task, name, args.seed))
            med = {k: statistics.median(v) for k, v in times.items()}
            for side in sides:
                print(f"{name:7} {task.id:22} {side:22} {med[side]:7.3f} {med['trial']:8.3f} {med['process']:10.3f} "
                      f"{med['trial'] / med[side]:11.2f} {med['process'] / med[side]:13.2f}", flush=True)


if __name__ == "__main__":
    main()
