"""The per-run spend cap: a small ledger of new USD spend, persisted by the caller between sessions.

The client checks the ledger before every HTTP call (cache hits spend nothing and are always
allowed) and adds each priced call's cost after it. With a `path`, the ledger is a JSON file
rewritten atomically after every charge, so a run stopped by `SpendCapReached` can resume later with
a higher cap (`SpendLedger(path, cap_usd=new_cap)` reloads what was spent). Calls whose price is
unknown cannot be charged; they are counted in `unpriced_calls` so the gap is visible.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from matchmeter.errors import SpendCapReached


class SpendLedger:
    def __init__(self, path: Path | None = None, cap_usd: float | None = None) -> None:
        self.path = Path(path) if path else None
        self.cap_usd = cap_usd
        self.spent_usd = 0.0
        self.unpriced_calls = 0
        self._lock = threading.Lock()
        if self.path and self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.spent_usd = float(data.get("spent_usd", 0.0))
            self.unpriced_calls = int(data.get("unpriced_calls", 0))

    def check(self) -> None:
        """Raise SpendCapReached when the spend already reached the cap (checked before a call)."""
        with self._lock:
            if self.cap_usd is not None and self.spent_usd >= self.cap_usd:
                raise SpendCapReached(
                    f"spend cap reached: ${self.spent_usd:.6f} spent of ${self.cap_usd:.6f}; "
                    "resume the run with a higher --spend-cap-usd"
                )

    def charge(self, usd: float | None) -> None:
        with self._lock:
            if usd is None:
                self.unpriced_calls += 1
            else:
                self.spent_usd += usd
            self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"spent_usd": self.spent_usd, "cap_usd": self.cap_usd,
                       "unpriced_calls": self.unpriced_calls}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(self.path)
