"""Harness-fairness scores (SPEC §6, seed `002_…`): HDR, CB-HDR, HDR-C, p50 latency, lines touched.

Input: a validated results table with configuration_id, task_id, reward, tokens_total, cost_usd and
`agent_s` (or `wall_s`); `lines_touched` is optional. The *cohort* is the whole table given: every
configuration compared together sets the per-task medians.

Choices: a pass is reward ≥ 1; every rate is a task macro (mean over executions within a task, then
over tasks), like AMS. The HDR-C reference cost is per task (costs differ by orders of magnitude
between tasks); passes with an unknown cost make that configuration's HDR-C NaN, never a pass at 0 USD.
Latency and lines touched are reported beside the scores, never folded into them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matchmeter.metrics.table import require_columns

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

BRAKE_START = 5.0  # full credit up to 5 × the passer-median token spend
BRAKE_END = 10.0  # no credit from 10 × onwards, linear in between


def spend_credit(tokens: np.ndarray, median_tokens: np.ndarray) -> np.ndarray:
    """Credit of a pass: 1 up to 5·m, falling linearly to 0 at 10·m (m = 0: only t = 0 keeps credit)."""
    import numpy as np

    t, m = np.asarray(tokens, float), np.asarray(median_tokens, float)
    start, end = BRAKE_START * m, BRAKE_END * m
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(end > start, (end - t) / np.where(end > start, end - start, 1.0), 0.0)
    return np.where(t <= start, 1.0, np.clip(slope, 0.0, 1.0))


def fairness_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: hdr, cb_hdr, hdr_c, p50_latency_s, [p50_lines_touched], n_executions."""
    import numpy as np

    require_columns(df, ("configuration_id", "task_id", "reward", "tokens_total", "cost_usd"), "fairness input")
    passed = (df["reward"].to_numpy(float) >= 1.0)
    tokens = df["tokens_total"].to_numpy(float)
    cost = df["cost_usd"].to_numpy(float)
    frame = df[["configuration_id", "task_id"]].copy()
    frame["hdr"] = passed.astype(float)
    passers = df.loc[passed]
    median_tok = df["task_id"].map(passers.groupby("task_id")["tokens_total"].median()).to_numpy(float)
    frame["cb_hdr"] = np.where(passed, spend_credit(tokens, np.nan_to_num(median_tok)), 0.0)
    median_cost = df["task_id"].map(passers.groupby("task_id")["cost_usd"].median()).to_numpy(float)
    frame["hdr_c"] = (passed & (cost <= median_cost)).astype(float)
    per_task = frame.groupby(["configuration_id", "task_id"])[["hdr", "cb_hdr", "hdr_c"]].mean()
    out = per_task.groupby(level="configuration_id").mean()
    unknown_pass = (frame.assign(u=passed & np.isnan(cost)).groupby("configuration_id")["u"].any())
    out.loc[unknown_pass[unknown_pass].index, "hdr_c"] = np.nan  # an unknown-cost pass is not judged
    latency_col = "agent_s" if "agent_s" in df.columns and df["agent_s"].notna().any() else "wall_s"
    grouped = df.groupby("configuration_id")
    if latency_col in df.columns:
        out["p50_latency_s"] = grouped[latency_col].median()
    if "lines_touched" in df.columns:
        out["p50_lines_touched"] = grouped["lines_touched"].median()
    out["n_executions"] = grouped.size()
    return out.reset_index()
