"""Trust in three states, per configuration (seed 002's anti-gaming probes).

- `trusted`: probes ran for this configuration and every check passed;
- `UNTRUSTED`: some anti-gaming check failed (a probe, or the per-trial checks recorded in the same
  `trusted` column, e.g. tests present during the agent phase);
- `not probed`: no probe task ever ran for it, so nothing supports a claim of trust (a passing
  per-trial check alone is not a probe).

A probe execution is a row whose task is one of the built-in probe tasks (`tasks/probes/`, added by
`matchmeter run --with-probes`) or whose task id starts with `probe-`. Probe rows carry trust only: they
are not calibrated tasks and are taken out before scoring (`split_probes`).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from matchmeter.tasks.loader import builtin_probes_dir

if TYPE_CHECKING:
    import pandas as pd

TRUSTED, UNTRUSTED, NOT_PROBED = "trusted", "UNTRUSTED", "not probed"


@cache
def probe_task_ids() -> frozenset[str]:
    """Ids of the built-in probe tasks (their directory names)."""
    root = builtin_probes_dir()
    return frozenset(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else frozenset()


def is_probe(task_ids: pd.Series) -> pd.Series:
    """Boolean mask of probe rows."""
    ids = task_ids.astype(str)
    return ids.isin(list(probe_task_ids())) | ids.str.startswith("probe-")


def split_probes(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows to score, probe rows)."""
    mask = is_probe(df["task_id"])
    return df.loc[~mask], df.loc[mask]


def trust_states(df: pd.DataFrame) -> dict[str, str]:
    """Configuration id → trusted | UNTRUSTED | not probed, over every row given (probes included)."""
    import pandas as pd

    trusted = df["trusted"].astype("boolean").fillna(True) if "trusted" in df.columns else pd.Series(True, df.index)
    probe = is_probe(df["task_id"])
    frame = pd.DataFrame({"cfg": df["configuration_id"].astype(str), "failed": ~trusted.astype(bool), "probe": probe})
    per = frame.groupby("cfg").agg(failed=("failed", "any"), probed=("probe", "any"))
    return {str(cfg): UNTRUSTED if r.failed else (TRUSTED if r.probed else NOT_PROBED) for cfg, r in per.iterrows()}
