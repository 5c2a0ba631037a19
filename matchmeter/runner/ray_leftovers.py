"""What a Ray worker process killed mid-trial leaves on its node, found and removed by the next worker there.

A worker killed with -9 (its node's OOM killer, a lost node coming back, `ray stop --force`) never runs its
cleanup: its staging dir (`/tmp/mm-ray-<pid>-*`), its bwrap/local sandbox trees and its Docker containers
stay. Each worker process records, in a node-local registry, the (run label, backend) pairs it made
sandboxes for; a worker starting its first trial prunes the entries of dead processes. A run label is
pruned only when no live worker on the node has recorded it: sandboxes of one run share its label, so
pruning a label a live sibling still uses would kill that sibling's trials (those leftovers wait for a
later worker). A pid is taken as the same process only with the same start time (pids are reused).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from matchmeter.atomicfile import atomic_write_text

STAGING_PREFIX = "mm-ray-"


def staging_prefix(pid: int | None = None) -> str:
    """The prefix of a worker process's staging dirs under the temp dir."""
    return f"{STAGING_PREFIX}{os.getpid() if pid is None else pid}-"


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (clock ticks since boot), or None when no such process lives."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


class Registry:
    """One JSON file per worker process under `root`: {"pid", "started", "sandboxes": [[label, backend], ...]}."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def record(self, label: str, backend: str) -> None:
        """This process makes sandboxes labelled `label` on `backend`."""
        pid = os.getpid()
        path = self.root / f"{pid}.json"
        with self._locked():
            entry = self._read(path) or {"pid": pid, "started": _start_time(pid), "sandboxes": []}
            if [label, backend] not in entry["sandboxes"]:
                entry["sandboxes"].append([label, backend])
                atomic_write_text(path, json.dumps(entry))

    def prune_dead(self, prune: Callable[[str, str], int]) -> int:
        """Remove what dead worker processes left: their staging dirs, and (through `prune(label, backend)`)
        the sandboxes of every label no live worker still records. Returns how many things were removed."""
        removed = 0
        with self._locked():
            entries = [e for e in map(self._read, sorted(self.root.glob("*.json"))) if e is not None]
            dead = [e for e in entries if e["started"] is None or _start_time(e["pid"]) != e["started"]]
            live_labels = {tuple(s) for e in entries if e not in dead for s in e["sandboxes"]}
            for entry in dead:
                for stale in Path(tempfile.gettempdir()).glob(f"{staging_prefix(entry['pid'])}*"):
                    shutil.rmtree(stale, ignore_errors=True)
                    removed += 1
                for label, backend in entry["sandboxes"]:
                    if (label, backend) not in live_labels:
                        removed += prune(label, backend)
                (self.root / f"{entry['pid']}.json").unlink(missing_ok=True)
        return removed

    @staticmethod
    def _read(path: Path) -> dict[str, Any] | None:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None
