"""Host-side check of the checks/ convention (issue 11) until the shared runner lands.

`python -m tests.tasks._check_runner_rest [--seeds 0 1] [TASK_ID | FAMILY ...]` runs, per task and seed,
the oracle, every `checks/cheap-*.sh` (must score <= 0.3) and `checks/alt-*.sh` (must score 1.0) the way
the oracle's solve.sh runs (bash, cwd = the seeded workspace, $ORACLE_SH naming it), graded by the
task's own tests with the task.toml weights; and "seeds that matter": the files seed 0's oracle changed,
copied onto the seed-1 starting state, must not score 1.0 unless task.toml declares `[seed_params]
invariant_reason`. Prints one line per task and exits non-zero on any miss. Uses tests/tasks/harness.py, so nothing is sandboxed.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

from matchmeter.schema import TaskSpec
from matchmeter.tasks import builtin_suite_dir, load_tasks
from matchmeter.tasks.seeding import tree_files
from tests.tasks.harness import Trial

CHEAP_MAX, ALT_MIN = 0.3 + 1e-9, 1.0 - 1e-9  # float sums of weights


def checks(task: TaskSpec, kind: str) -> list[Path]:
    return sorted((Path(task.path) / "checks").glob(f"{kind}-*.sh"))


def score(task: TaskSpec, seed: int, script: Path | None) -> float:
    """Weighted reward of one script (None = the oracle) on a fresh seeded workspace."""
    with Trial(task, seed) as trial:
        trial.setup()
        if script is None:
            trial.solve()
        else:
            trial.run_check(script)  # a cheap shot may fail half way; only the end state counts
        return trial.verify().weighted


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).digest() for p in tree_files(root)}


def replay_score(task: TaskSpec) -> float:
    """Seed 0's oracle outputs (files it created, changed or removed) applied to seed 1's start, graded on seed 1."""
    with Trial(task, 0) as zero, Trial(task, 1) as one:
        zero.setup()
        before = snapshot(zero.app)
        zero.solve()
        after = snapshot(zero.app)
        one.setup()
        for rel in before.keys() - after.keys():
            (one.app / rel).unlink(missing_ok=True)
        for rel, digest in after.items():
            if before.get(rel) != digest:
                (one.app / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(zero.app / rel, one.app / rel)
        return one.verify().weighted


def check_task(task: TaskSpec, seeds: list[int]) -> tuple[str, bool]:
    problems, cheap_max, alt_min = [], 0.0, 1.0
    for seed in seeds:
        if (oracle := score(task, seed, None)) < 1.0:
            problems.append(f"oracle {oracle:.2f} on seed {seed}")
        for script in checks(task, "cheap"):
            got = score(task, seed, script)
            cheap_max = max(cheap_max, got)
            if got > CHEAP_MAX:
                problems.append(f"{script.name} scores {got:.2f} on seed {seed}")
        for script in checks(task, "alt"):
            got = score(task, seed, script)
            alt_min = min(alt_min, got)
            if got < ALT_MIN:
                problems.append(f"{script.name} scores {got:.2f} on seed {seed}")
    n_cheap, n_alt = len(checks(task, "cheap")), len(checks(task, "alt"))
    if n_cheap < 2 or n_alt < 1:
        problems.append(f"{n_cheap} cheap shot(s), {n_alt} alternative(s): need >= 2 and >= 1")
    invariant = task.seed_params.get("invariant_reason")
    replay = replay_score(task)
    if replay >= 1.0 and not invariant:
        problems.append("seed 0's oracle outputs score 1.0 on seed 1 (no invariant_reason)")
    line = (f"{task.id:32} {task.source_family:14} cheap_max={cheap_max:.2f} alt_min={alt_min:.2f} "
            f"replay01={replay:.2f}" + (f"  PROBLEMS: {'; '.join(problems)}" if problems else ""))
    return line, not problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="task ids or source families (default: all three of ours)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = parser.parse_args(argv)
    names = set(args.names or ["quoting", "skills", "data-analysis"])
    tasks = [t for t in load_tasks([builtin_suite_dir()]) if t.id in names or t.source_family in names]
    ok = True
    for task in tasks:
        line, good = check_task(task, args.seeds)
        print(line, flush=True)
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
