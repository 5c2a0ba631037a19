"""Transport damage (SPEC §7, seed `001_…`): RR, RN, NN, damage, compensation, matched gap.

Input columns: a subject column (default `model`: the configurations that differ only in contract and
transport share it), `contract` (raw | disclosed), `transport` (raw | nested | escaped), task_id,
reward, and optionally `exit_code_zero` (bool: the delivered program exited 0). Cells are
RR = raw contract over raw transport, RN = raw contract over nested transport, NN = disclosed
contract over nested transport.

Choices: a cell's value is the task-macro pass rate (reward ≥ 1); a missing cell is NaN and so is
everything derived from it. `exit0_wrong_<cell>` is the share of failed executions whose program
exited 0 (NaN without failures or without the `exit_code_zero` column). The escaped transport is a
control: `escaped_mismatches` lists every execution whose escaped outcome differs from raw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matchmeter.metrics.table import require_columns

if TYPE_CHECKING:
    import pandas as pd

CELLS = {"rr": ("raw", "raw"), "rn": ("raw", "nested"), "nn": ("disclosed", "nested")}


def transport_table(df: pd.DataFrame, subject_col: str = "model") -> pd.DataFrame:
    """Per subject: rr, rn, nn, damage (RN−RR), compensation (NN−RN), matched_gap (NN−RR), exit0_wrong_*."""
    import numpy as np
    import pandas as pd

    require_columns(df, (subject_col, "contract", "transport", "task_id", "reward"), "transport input")
    frame = df.assign(passed=(df["reward"] >= 1).astype(float), cell="")
    for cell, (contract, transport) in CELLS.items():
        frame.loc[(frame["contract"] == contract) & (frame["transport"] == transport), "cell"] = cell
    frame = frame.loc[frame["cell"] != ""]
    rate = (frame.groupby([subject_col, "cell", "task_id"])["passed"].mean()
            .groupby(level=[subject_col, "cell"]).mean().unstack("cell"))
    out = rate.reindex(columns=list(CELLS))
    out["damage"] = out["rn"] - out["rr"]
    out["compensation"] = out["nn"] - out["rn"]
    out["matched_gap"] = out["nn"] - out["rr"]
    if "exit_code_zero" in frame.columns:
        failed = frame.loc[frame["passed"] == 0]
        share = failed.assign(z=failed["exit_code_zero"].astype(float)).groupby([subject_col, "cell"])["z"].mean()
        wide = share.unstack("cell").reindex(columns=list(CELLS)) if not share.empty else pd.DataFrame(
            np.nan, index=out.index, columns=list(CELLS))
        for cell in CELLS:
            out[f"exit0_wrong_{cell}"] = wide[cell].reindex(out.index)
    return out.reset_index()


def escaped_mismatches(df: pd.DataFrame, subject_col: str = "model") -> pd.DataFrame:
    """Executions whose escaped-transport reward differs from the raw-transport one (should be empty).

    Pairs are matched on subject, contract, task and, when present, seed and attempt.
    """
    keys = [subject_col, "contract", "task_id", *[c for c in ("seed", "attempt") if c in df.columns]]
    raw = df.loc[df["transport"] == "raw", [*keys, "reward"]]
    esc = df.loc[df["transport"] == "escaped", [*keys, "reward"]]
    both = raw.merge(esc, on=keys, suffixes=("_raw", "_escaped"))
    return both.loc[both["reward_raw"] != both["reward_escaped"]].reset_index(drop=True)
