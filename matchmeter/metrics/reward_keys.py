"""Per-key reward means: what Harbor's `mean` metric reports for a job whose verifiers write several keys.

A Harbor-format verifier may write `reward.json` with several keys (`{"correctness": 1, "speed": 0.4}`);
each execution keeps them in its `rewards` column (canonical JSON, '' when it has none). Harbor averages
over trials per key, and a trial that lacks a key (or has no rewards at all: a verifier error) counts 0
for it, over every trial of the agent. `per_key_means` does the same per configuration: the mean of each
key any of its executions wrote, over every execution the configuration has in the frame, absent keys and
executions without keys counting 0, values as written (unclamped, as Harbor keeps them). A key none of
a configuration's executions wrote is NaN for it (Harbor's metric for that agent has no such key). Where
Harbor names the one key of an agent that wrote a single key `mean`, the key keeps its own name here. The scalar `reward` column AMS uses is
separate (runner/verdict.py says which number it is).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

KEY_PREFIX = "mean:"


def _parsed(cell: object) -> dict[str, float]:
    if not isinstance(cell, str) or not cell:
        return {}
    data = json.loads(cell)
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def reward_keys(frame: pd.DataFrame) -> list[str]:
    """Every key any execution wrote, sorted; [] without a `rewards` column or keys."""
    if "rewards" not in frame.columns:
        return []
    return sorted({k for cell in frame["rewards"] for k in _parsed(cell)})


def per_key_means(frame: pd.DataFrame) -> pd.DataFrame | None:
    """One row per configuration: `n` executions and `mean:<key>` per key; None when no execution has a key
    other than the plain `reward` (then the reward column already says everything)."""
    import pandas as pd

    keys = reward_keys(frame)
    if not keys or keys == ["reward"]:
        return None
    rows = []
    for config, group in frame.groupby("configuration_id", sort=True):
        parsed = [_parsed(cell) for cell in group["rewards"]]
        written = {k for p in parsed for k in p}
        row: dict[str, object] = {"configuration_id": str(config), "n": len(parsed)}
        for key in keys:
            row[KEY_PREFIX + key] = sum(p.get(key, 0.0) for p in parsed) / len(parsed) if key in written \
                else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def per_key_payload(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """{configuration: {key: mean}} for scores.json; {} when `per_key_means` has no table."""
    table = per_key_means(frame)
    if table is None:
        return {}
    return {str(row["configuration_id"]): {c[len(KEY_PREFIX):]: float(row[c]) for c in table.columns
                                           if c.startswith(KEY_PREFIX) and row[c] == row[c]}  # NaN: not written
            for row in table.to_dict("records")}
