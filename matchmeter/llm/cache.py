"""The LM response cache: diskcache keyed by the request and by which server answers it.

Key = sha256 of canonical JSON of (model, messages, every sampling parameter, salt, endpoint, served
model). The endpoint is the API base URL (None = the provider's default), so the same model name on two
servers never shares a reply; the served model is the identity the server reported for that name at the
last preflight (`served_identity`), so a local server that now serves other weights under the same name
misses too. Credentials are never part of a key or a record. Only successful replies are stored (errors
are never cached). A stored record holds the reply text, the reported model and the original token usage.

    <cache_dir>/            (MATCHMETER_CACHE_DIR, default ~/.cache/matchmeter)
      lm/                   diskcache store (cache.db + value files)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from matchmeter.schema import canonical_json, sha256_text

KEY_VERSION = "lm-cache-v2"  # v2: the endpoint and served model joined the key


def default_cache_dir() -> Path:
    return Path(os.environ.get("MATCHMETER_CACHE_DIR") or Path.home() / ".cache" / "matchmeter")


def cache_key(model: str, messages: list[dict[str, Any]], sampling: dict[str, Any], salt: str,
              endpoint: str | None = None, served: str | None = None) -> str:
    """Digest of what determines the reply. Sampling keys whose value is None are dropped."""
    payload = {
        "v": KEY_VERSION,
        "model": model,
        "messages": messages,
        "sampling": {k: v for k, v in sampling.items() if v is not None},
        "salt": salt,
        "endpoint": endpoint.rstrip("/") if endpoint else None,
        "served": served,
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

    def served_identity(self, endpoint: str | None, model: str) -> str | None:
        """The model the endpoint last reported serving under this name (recorded at preflight)."""
        value = self._cache.get(_served_key(endpoint, model))
        return value if isinstance(value, str) else None

    def record_served(self, endpoint: str | None, model: str, served: str | None) -> None:
        if served:
            self._cache.set(_served_key(endpoint, model), served)

    def close(self) -> None:
        self._cache.close()


def _served_key(endpoint: str | None, model: str) -> str:
    return "served:" + sha256_text(canonical_json({"endpoint": endpoint.rstrip("/") if endpoint else None,
                                                   "model": model}))
