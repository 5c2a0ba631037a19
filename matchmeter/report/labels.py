"""What every report table carries besides its numbers: a title, the `flags` column and the labels in `attrs`.

Below `report.tables` and `report.condition_tables`, which both build their tables through `finish`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from matchmeter.report.inputs import ReportContext

TITLES = {
    "table1_configurations": "Table 1 — configurations on Original descriptions",
    "table1_leaders": "Table 1 — leaders",
    "pass_k": "pass@k and pass^k per configuration (unbiased estimators over attempts, task means)",
    "table2_ablations": "Table 2 — AMS component ablation",
    "spearman_ams_pass_rate": "Rank agreement of AMS with pass rate",
    "budget_quality": "Budget–quality curves (reward share within budget b, per stratum)",
    "frontier": "Reward vs cost (upper convex hull from (0, 0))",
    "per_task_reward": "Mean reward per configuration and task",
    "efficiency": "Efficiency card per configuration (task-macro means)",
    "fairness": "Harness-fairness scores per configuration",
    "transport": "Transport damage (RR / RN / NN pass rates)",
    "core_fidelity": "Core vs Full: AMS ranking fidelity",
    "table3_conditions": "Table 3 — macro AMS and leader per description condition",
    "table3_adapted1": "Table 3 — Adapted-1: per target mean reward, cost and AMS over the draws (95% draw "
                       "intervals) and share of draws ranking first",
    "conditions_per_pair": "Per condition and configuration: mean reward, mean cost, AMS",
    "rank_shifts": "AMS rank per condition (shift against Original)",
    "table4_original_generic_self": "Table 4 — Original vs Generic vs Self per configuration",
    "cross_only_improvements": "Cross-only evaluations improving on Original",
}


def finish(df: pd.DataFrame, ctx: ReportContext, name: str, config_cols: Sequence[str] = ("configuration_id",),
           notes: Sequence[str] = (), all_configs: bool = False,
           row_configs: Sequence[Sequence[str]] | None = None) -> pd.DataFrame:
    """Append the `flags` column and set attrs. Each row's configurations are its `config_cols` cells,
    or `row_configs[i]`, or (`all_configs`, for summary rows computed over all of them) every one."""
    every = sorted(ctx.original["configuration_id"].unique())
    if row_configs is None:
        row_configs = [list(every) if all_configs else [row[c] for c in config_cols if isinstance(row.get(c), str)]
                       for row in df.to_dict("records")]
    out = df.reset_index(drop=True)
    out["flags"] = [ctx.flags(c) for c in row_configs]
    involved = {c for cfgs in row_configs for c in cfgs}
    out.attrs = {"title": TITLES.get(name, name), "simulated": bool(involved & ctx.simulated),
                 "simulated_all": bool(involved) and involved <= ctx.simulated,
                 "untrusted": sorted(involved & ctx.untrusted), "partial": sorted(involved & ctx.partial),
                 "trust": {c: ctx.trust_of(c) for c in sorted(involved)}, "notes": list(notes)}
    return out
