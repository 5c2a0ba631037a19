"""Description-condition tables (SPEC §3): Table 3 (macro AMS and leader per condition, Adapted-1
rank-first shares and exact-ordering share), per-pair values, rank shifts against Original, Table 4
(Original vs Generic vs Self per pair) and Cross-only improvement counts.

Input is `ReportContext.conditions`: rows with `condition` (original | pooled | generic) and `source`
as written by `matchmeter evaluate`; Self and Cross-only are views of Pooled (`metrics.conditions`).
A piece the data cannot support (e.g. Adapted-1 with a missing pooled unit) is left out with the
reason in the table notes, never silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

from matchmeter.errors import UserError
from matchmeter.metrics import conditions as cond
from matchmeter.metrics.stats import ranks
from matchmeter.report.labels import finish

if TYPE_CHECKING:

    import pandas as pd

    from matchmeter.report.inputs import ReportContext, TableInputs


def build(ctx: ReportContext, n_draws: int = 10_000, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Every condition table the conditions frame supports."""
    assert ctx.conditions is not None
    report = cond.condition_report(ctx.conditions, ctx.cuts, ctx.alpha, allow_partial=ctx.allow_partial)
    df = cond.restrict(ctx.conditions, report.pairs)  # every condition table over the same (target, task) set
    ctx = ctx._replace(conditions=df)
    out: dict[str, pd.DataFrame] = {}
    adapted, why = _adapted(ctx, n_draws, seed)
    out["table3_conditions"] = table3(report.per_condition, adapted, ctx, why, report.restricted, report.notes)
    if adapted is not None:
        out["table3_adapted1"] = adapted
    out["conditions_per_pair"] = finish(report.per_pair, ctx, "conditions_per_pair")
    out["rank_shifts"] = rank_shifts(report.per_pair, ctx)
    out["table4_original_generic_self"] = table4(report.per_pair, ctx)
    if not cond.condition_view(df, "cross_only").empty and not cond.condition_view(df, "original").empty:
        out["cross_only_improvements"] = finish(cond.cross_only_improvements(df), ctx, "cross_only_improvements",
                                                notes=["improved = higher reward, or the same reward at lower cost, "
                                                       "than Original on the same (target, task)"])
    return out


def registered(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    """The registry's builder of every condition table (report/registry.py): `build` runs once per report
    (the tables share one condition report), each entry takes its own; None without conditions or data for it."""
    if inputs.ctx.conditions is None:
        return None
    if "conditions" not in inputs.memo:
        inputs.memo["conditions"] = build(inputs.ctx, n_draws=inputs.n_draws, seed=inputs.seed)
    table: pd.DataFrame | None = inputs.memo["conditions"].get(key)
    return table


def _adapted(ctx: ReportContext, n_draws: int, seed: int) -> tuple[pd.DataFrame | None, str]:
    assert ctx.conditions is not None
    if cond.condition_view(ctx.conditions, "pooled").empty:
        return None, "Adapted-1: no pooled executions"
    try:
        a = cond.adapted_one(ctx.conditions, ctx.cuts, ctx.alpha, n_draws=n_draws, seed=seed)
    except UserError as exc:
        return None, f"Adapted-1 left out: {exc.line()}"
    table = a.per_target.join(a.first_share).join(a.pooled_ams.rename("pooled_ams")).reset_index(names="configuration_id")
    table = table.sort_values(["first_share", "configuration_id"], ascending=[False, True])
    notes = [f"{a.n_draws} draws (seed {seed}): one source per task, the same for every target; ties share first place",
             "mean_* = mean over the draws of the task-macro value (its expectation is the Pooled value); "
             "_low/_high = 2.5% and 97.5% linear quantiles of the draw distribution",
             f"exact-ordering share (draws reproducing the Pooled ranking): {a.exact_order_share:.4f}"]
    res = finish(table, ctx, "table3_adapted1", notes=notes)
    res.attrs["exact_order_share"] = a.exact_order_share
    return res, ""


def table3(per_condition: pd.DataFrame, adapted: pd.DataFrame | None, ctx: ReportContext, why: str,
           restricted: frozenset[str] = frozenset(), common_notes: Sequence[str] = ()) -> pd.DataFrame:
    """Rows per condition (macro AMS, leader) plus an Adapted-1 row (leader = most often first). Every
    condition is scored over the same (target, task) set; a row that lost pairs to it is flagged RESTRICTED."""
    import numpy as np
    import pandas as pd

    rows = per_condition.assign(leader_first_share=np.nan, exact_order_share=np.nan)
    if adapted is not None and len(adapted):
        top = adapted.iloc[0]
        rows = pd.concat([rows, pd.DataFrame([{
            "condition": "adapted1", "n_pairs": len(adapted), "macro_ams": np.nan, "leader": top["configuration_id"],
            "leader_first_share": float(top["first_share"]),
            "exact_order_share": float(adapted.attrs["exact_order_share"])}])], ignore_index=True)
    notes = ["macro AMS = mean AMS over the condition's (target) pairs; Self covers only targets that are sources",
             *common_notes]
    out = finish(rows, ctx, "table3_conditions", config_cols=("leader",), notes=[*notes, *([why] if why else [])])
    out["flags"] = [" ".join(f for f in (flags, "RESTRICTED" if c in restricted else "") if f)
                    for flags, c in zip(out["flags"], out["condition"], strict=True)]
    return out


def rank_shifts(per_pair: pd.DataFrame, ctx: ReportContext) -> pd.DataFrame:
    """Wide: rank_<condition> per configuration (1 = best AMS) and the largest |shift| against Original."""
    wide = per_pair.dropna(subset=["ams"]).pivot(index="configuration_id", columns="condition", values="ams")
    conds = [c for c in cond.CONDITIONS if c in wide.columns]
    out = wide[conds].apply(lambda col: ranks(col.dropna()).reindex(col.index)).astype("Int64")
    out.columns = [f"rank_{c}" for c in conds]
    if "rank_original" in out.columns:
        shifts = out.drop(columns="rank_original").sub(out["rank_original"], axis=0).abs()
        out["largest_shift_vs_original"] = shifts.max(axis=1).astype("Int64")
    return finish(out.reset_index(), ctx, "rank_shifts", notes=["ranks within each condition; positive shift = fell"])


def cost_change(df: pd.DataFrame, condition: str) -> pd.DataFrame:
    """Per target: summed per-task mean cost under `condition` vs Original on the tasks both cover
    (for Self, the same numbers as `metrics.conditions.self_cost_change`)."""
    view, orig = (cond.condition_view(df, c) for c in (condition, "original"))

    def per_task(v: pd.DataFrame) -> pd.Series:
        return v.groupby(["configuration_id", "task_id"])["cost_usd"].apply(lambda s: s.mean(skipna=False))

    both = per_task(view).rename("cond").to_frame().join(per_task(orig).rename("orig"), how="inner")
    out = both.groupby(level="configuration_id").agg(cost_usd=("cond", lambda s: s.sum(min_count=len(s))),
                                                    original_cost_usd=("orig", lambda s: s.sum(min_count=len(s))))
    out["change_usd"] = out["cost_usd"] - out["original_cost_usd"]
    out["change_pct"] = 100 * out["change_usd"] / out["original_cost_usd"]
    return out


def table4(per_pair: pd.DataFrame, ctx: ReportContext) -> pd.DataFrame:
    """Per configuration: mean reward and AMS under Original, Generic, Self; aggregate cost change of
    Generic and Self against Original (percent)."""
    assert ctx.conditions is not None
    present = [c for c in ("original", "generic", "self") if c in set(per_pair["condition"])]
    wide = per_pair.loc[per_pair["condition"].isin(present)].pivot(index="configuration_id", columns="condition",
                                                                  values=["mean_reward", "ams"])
    pairs = cast("list[tuple[str, str]]", list(wide.columns))  # (measure, condition) after the pivot
    wide.columns = [f"{m}_{c}" for m, c in pairs]
    cols = [f"{m}_{c}" for c in present for m in ("mean_reward", "ams")]
    out = wide.reindex(columns=cols)
    for c in present[1:]:
        out[f"cost_change_pct_{c}"] = cost_change(ctx.conditions, c)["change_pct"].reindex(out.index)
    notes = ["cost change = summed per-task mean cost against Original on the tasks both cover"]
    return finish(out.reset_index(), ctx, "table4_original_generic_self", notes=notes)
