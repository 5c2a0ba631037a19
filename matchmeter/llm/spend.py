"""The per-run spend cap: a small ledger of new USD spend, persisted by the caller between sessions.

The client checks the ledger before every HTTP call (cache hits spend nothing and are always
allowed) and adds each priced call's cost after it. With a `path`, the ledger is a JSON file shared
by every trial of the run: each check re-reads it and each charge is a locked read-add-write
(fcntl lock on `<path>.lock`, then an atomic rename), so concurrent trials — threads or processes —
never lose each other's spend. A run stopped by `SpendCapReached` resumes later with a higher cap:
`SpendLedger(path, cap_usd=new_cap)` continues from what was spent. Calls whose price is unknown
cannot be charged; they are counted in `unpriced_calls` so the gap is visible.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import threading
from collections.abc import Iterator
from pathlib import Path

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import SpendCapReached


class SpendLedger:
    def __init__(self, path: Path | None = None, cap_usd: float | None = None) -> None:
        self.path = Path(path) if path else None
        self.cap_usd = cap_usd
        self.spent_usd = 0.0
        self.unpriced_calls = 0
        self._lock = threading.Lock()
        self._reload()

    def check(self) -> None:
        """Raise SpendCapReached when the spend already reached the cap (checked before a call)."""
        with self._lock:
            self._reload()
            if self.cap_usd is not None and self.spent_usd >= self.cap_usd:
                raise SpendCapReached(
                    f"spend cap reached: ${self.spent_usd:.6f} spent of ${self.cap_usd:.6f}; "
                    "resume the run with a higher spend cap"
                )

    def charge(self, usd: float | None) -> None:
        with self._lock, self._file_lock():
            self._reload()
            if usd is None:
                self.unpriced_calls += 1
            else:
                self.spent_usd += usd
            self._save()

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _reload(self) -> None:
        if self.path and self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.spent_usd = float(data.get("spent_usd", 0.0))
            self.unpriced_calls = int(data.get("unpriced_calls", 0))

    def _save(self) -> None:
        if self.path is None:
            return
        atomic_write_text(self.path, json.dumps({"spent_usd": self.spent_usd, "cap_usd": self.cap_usd,
                                                 "unpriced_calls": self.unpriced_calls}))
