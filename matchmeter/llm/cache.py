"""The LM response cache: diskcache keyed by the request's meaning, never by where or who sent it.

Key = sha256 of canonical JSON of (model, messages, every sampling parameter, salt). The API base URL
and credentials are excluded, so a key never contains a secret and the same request to two mirrors
shares one entry. Only successful replies are stored (errors are never cached). A stored record holds
the reply text, the reported model and the original token usage — nothing else.

    <cache_dir>/            (MATCHMETER_CACHE_DIR, default ~/.cache/matchmeter)
      lm/                   diskcache store (cache.db + value files)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from matchmeter.schema import canonical_json, sha256_text

KEY_VERSION = "lm-cache-v1"


def default_cache_dir() -> Path:
    return Path(os.environ.get("MATCHMETER_CACHE_DIR") or Path.home() / ".cache" / "matchmeter")


def cache_key(model: str, messages: list[dict[str, Any]], sampling: dict[str, Any], salt: str) -> str:
    """Digest of what determines the reply. Sampling keys whose value is None are dropped."""
    payload = {
        "v": KEY_VERSION,
        "model": model,
        "messages": messages,
        "sampling": {k: v for k, v in sampling.items() if v is not None},
        "salt": salt,
    }
    return sha256_text(canonical_json(payload))


class ResponseCache:
    """A thin wrapper over diskcache.Cache (imported lazily; it opens a SQLite file)."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        import diskcache

        self.directory = Path(cache_dir or default_cache_dir()) / "lm"
        self._cache = diskcache.Cache(str(self.directory))

    def get(self, key: str) -> dict[str, Any] | None:
        value = self._cache.get(key)
        return value if isinstance(value, dict) else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        self._cache.set(key, record)

    def close(self) -> None:
        self._cache.close()
