"""Move matchmeter's own keys of every task.toml under [metadata.matchmeter] (the layout `harbor lint`
accepts), checking that each task loads to the same TaskSpec before and after.

    python scripts/migrate_task_toml.py [DIR ...]   (default: the built-in suite and the probes)

Idempotent: a task.toml already in the new layout is left as is. Exit 1 when a rewrite would change
what a task means (nothing is written for that task).
"""

from __future__ import annotations

import sys
from pathlib import Path

from matchmeter.tasks.harbor import to_matchmeter_table
from matchmeter.tasks.loader import builtin_probes_dir, builtin_suite_dir, load_task


def migrate(task_dir: Path) -> bool:
    """Rewrite task_dir/task.toml in place; False when the rewritten file would load differently."""
    toml = task_dir / "task.toml"
    old = toml.read_text(encoding="utf-8")
    new = to_matchmeter_table(old)
    if new == old:
        return True
    before = load_task(task_dir).model_dump(exclude={"path", "digest"})
    toml.write_text(new, encoding="utf-8")
    if load_task(task_dir).model_dump(exclude={"path", "digest"}) != before:
        toml.write_text(old, encoding="utf-8")
        return False
    return True


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [builtin_suite_dir(), builtin_probes_dir()]
    dirs = sorted(p.parent for root in roots for p in root.glob("*/task.toml"))
    failed = [d for d in dirs if not migrate(d)]
    for d in failed:
        print(f"not migrated (would load differently): {d}", file=sys.stderr)
    print(f"{len(dirs) - len(failed)} of {len(dirs)} task.toml file(s) in the [metadata.matchmeter] layout")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
