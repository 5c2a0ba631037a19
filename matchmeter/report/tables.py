"""The paper's tables as pandas DataFrames, built only from metrics functions over stored tables.

Each table has a builder here (`build_*`) that `report.registry` names; `registry.build_tables` returns an
ordered dict name → DataFrame. Every table carries `attrs`: `title` (its registered one),
`simulated` (any contributing row came from a `sim/` model), `simulated_all` (every one did: the table
is labelled SIMULATED; a mixed table says its SIMULATED rows are flagged), `untrusted` (configurations
with a failed anti-gaming check in this table), `trust` (configuration → trusted | UNTRUSTED | not
probed), `partial` (configurations scored over part of the calibrated tasks) and `notes`; every table
also has a last column `flags` ('SIMULATED', 'UNTRUSTED', 'PARTIAL'; Table 1 adds '1-SEED' for one
execution per task, Table 3 'RESTRICTED') per row, so a CSV keeps the labels too.
Table 1 scores the Original view with `ams.score` on the frozen calibration, so its AMS and ranks
equal `matchmeter score` on the same Original runs. Condition tables live in `report.condition_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from matchmeter.metrics import ams
from matchmeter.metrics.conditions import core_fidelity as fidelity
from matchmeter.metrics.fairness import fairness_table
from matchmeter.metrics.reward_keys import per_key_means
from matchmeter.metrics.stats import cost_of_pass, pass_k_table, quality_cost_frontier, rank_agreement
from matchmeter.metrics.transport import escaped_mismatches, transport_table
from matchmeter.report.inputs import execution_cards
from matchmeter.report.labels import finish

if TYPE_CHECKING:
    import pandas as pd

    from matchmeter.report.inputs import ReportContext, TableInputs

def _passed(df: pd.DataFrame) -> pd.Series:
    return (df["reward"].astype(float) >= 1.0).astype(float)


# ------------------------------------------------------------------ Table 1 and leaders


def table1(ctx: ReportContext, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per configuration: executions, passes, pass rate and mean reward (task macro), mean cost, cost
    and tokens per pass, AMS with its bootstrap CI and rank (as `matchmeter score`)."""
    import numpy as np

    f = ctx.original.assign(_p=_passed(ctx.original))
    scores = ams.score(f, ctx.cuts, ctx.alpha, allow_partial=ctx.allow_partial)
    per_task = f.groupby(["configuration_id", "task_id"]).agg(r=("reward", "mean"), p=("_p", "mean"),
                                                             c=("cost_usd", lambda s: s.mean(skipna=False)))
    macro = per_task.groupby(level="configuration_id").agg(mean_reward=("r", "mean"), pass_rate=("p", "mean"),
                                                           mean_cost_usd=("c", lambda s: s.mean(skipna=False)))
    g = f.groupby("configuration_id")
    out = g.size().rename("n_executions").to_frame()
    out["passes"] = g["_p"].sum().astype(int)
    out = out.join(macro[["pass_rate", "mean_reward", "mean_cost_usd"]])
    out["cost_per_pass_usd"] = cost_of_pass(f)
    out["tokens_per_pass"] = (g["tokens_total"].sum() / out["passes"].replace(0, np.nan)).fillna(np.inf)
    table = scores.table.set_index("configuration_id")[["rank", "ams", "coverage"]]
    out = out.join(table, how="left")
    if len(table):
        ci = ams.bootstrap_ams_ci(f, ctx.cuts, ctx.alpha, n_resamples=n_resamples, seed=seed,
                                  allow_partial=ctx.allow_partial)
        out = out.join(ci.set_index("configuration_id"), how="left")
    else:
        out["ci_low"], out["ci_high"] = np.nan, np.nan
    out = out.rename(columns={"ci_low": "ams_ci_low", "ci_high": "ams_ci_high"})
    # One execution per task (one seed, one attempt): the bootstrap resamples tasks only, and with one task per
    # stratum nothing varies at all. Such a row says so (1-SEED); a zero-width interval is not shown as certainty.
    one_seed = sorted(str(c) for c, n in f.groupby(["configuration_id", "task_id"]).size().groupby(level=0).max().items()
                      if n == 1)
    width = (out["ams_ci_high"].astype(float) - out["ams_ci_low"].astype(float)).to_dict()
    blank = [c for c in one_seed if width.get(c) == 0]
    out.loc[blank, ["ams_ci_low", "ams_ci_high"]] = np.nan
    order = list(table.index) + sorted(set(out.index) - set(table.index))
    out = out.loc[order].reset_index()
    out["rank"] = out["rank"].astype("Int64")
    out["trust"] = [ctx.trust_of(c) for c in out["configuration_id"]]
    notes = [f"{cfg}: not scored: {why}" for cfg, why in scores.excluded.items()]
    notes += [f"{cfg}: PARTIAL: scored over the calibrated tasks it ran, not comparable with full rows"
              for cfg in sorted(set(out["configuration_id"]) & ctx.partial)]
    notes.append("trust: trusted = anti-gaming probes ran and passed; UNTRUSTED = a check failed; "
                 "not probed = no probe ran (run with --with-probes)")
    notes.append(f"AMS CI: percentile bootstrap, {n_resamples} resamples (tasks within strata, then executions), seed {seed}")
    if one_seed:
        notes.append(f"1-SEED: {', '.join(one_seed)}: one execution per task (one seed, one attempt), so the AMS "
                     "interval resamples tasks only and says nothing about run-to-run spread (run --seeds N)"
                     + (f"; not shown for {', '.join(blank)}: nothing varied under resampling" if blank else ""))
    cols = ["configuration_id", "rank", "n_executions", "passes", "pass_rate", "mean_reward", "mean_cost_usd",
            "cost_per_pass_usd", "tokens_per_pass", "ams", "ams_ci_low", "ams_ci_high", "coverage", "trust"]
    done = finish(out[cols], ctx, "table1_configurations", notes=notes)
    done["flags"] = [" ".join(x for x in (flags, "1-SEED" if c in one_seed else "") if x)
                     for flags, c in zip(done["flags"], done["configuration_id"], strict=True)]
    return done


def leaders(t1: pd.DataFrame, ctx: ReportContext) -> pd.DataFrame:
    """Leader by completion (pass rate, ties: mean reward, id), by cost (lowest cost per pass), by AMS (rank 1)."""
    import numpy as np
    import pandas as pd

    rows = []
    by_completion = t1.sort_values(["pass_rate", "mean_reward", "configuration_id"], ascending=[False, False, True])
    if len(by_completion):
        r = by_completion.iloc[0]
        rows.append({"criterion": "completion (pass rate)", "leader": r["configuration_id"], "value": float(r["pass_rate"])})
    cheap = t1.loc[np.isfinite(t1["cost_per_pass_usd"].astype(float))].sort_values(["cost_per_pass_usd", "configuration_id"])
    rows.append({"criterion": "cost (USD per pass)", "leader": cheap.iloc[0]["configuration_id"] if len(cheap) else None,
                 "value": float(cheap.iloc[0]["cost_per_pass_usd"]) if len(cheap) else np.nan})
    scored = t1.dropna(subset=["ams"]).sort_values(["rank", "configuration_id"])
    rows.append({"criterion": "AMS", "leader": scored.iloc[0]["configuration_id"] if len(scored) else None,
                 "value": float(scored.iloc[0]["ams"]) if len(scored) else np.nan})
    return finish(pd.DataFrame(rows), ctx, "table1_leaders", config_cols=("leader",))


def ablations(ctx: ReportContext) -> pd.DataFrame:
    """Table 2: full AMS vs no AUBQC (α=1), no TQ (α=0), no EFR: winner, Spearman ρ, largest rank shift."""
    table = ams.ablations(ctx.original, ctx.cuts, ctx.alpha, allow_partial=ctx.allow_partial)
    return finish(table, ctx, "table2_ablations", config_cols=("winner", "shifted_configuration"))


def spearman_vs_pass_rate(t1: pd.DataFrame, ctx: ReportContext) -> pd.DataFrame:
    """Spearman ρ and Kendall τ of AMS against pass rate over the scored configurations."""
    import pandas as pd

    scored = t1.dropna(subset=["ams"]).set_index("configuration_id")
    agree = rank_agreement(scored["ams"].astype(float), scored["pass_rate"].astype(float))
    row = {"n_configurations": len(scored), "spearman": agree.spearman, "kendall": agree.kendall,
           "largest_rank_shift": agree.largest_shift, "shifted_configuration": agree.shifted_item}
    return finish(pd.DataFrame([row]), ctx, "spearman_ams_pass_rate", all_configs=True)


def pass_k(ctx: ReportContext, max_k: int = 5) -> pd.DataFrame | None:
    """pass@k and pass^k for k = 1 .. the fewest attempts any configuration has on a task (at most `max_k`);
    None when that is 0 (no table). Passing = reward 1."""
    f = ctx.original
    k_max = min(max_k, int(f.groupby(["configuration_id", "task_id"]).size().min()))
    if k_max < 1:
        return None
    out = None
    for k in range(1, k_max + 1):
        part = pass_k_table(f, k).rename(columns={"pass_at_k": f"pass_at_{k}", "pass_hat_k": f"pass_hat_{k}"})
        out = part if out is None else out.join(part)
    assert out is not None
    notes = [f"k up to {k_max}: the fewest executions any configuration has on one task"]
    return finish(out.reset_index(), ctx, "pass_k", notes=notes)


# ------------------------------------------------------------------ curves, frontier, heat map


def budget_quality(ctx: ReportContext) -> pd.DataFrame:
    """Long table (configuration_id, stratum, budget_usd, reward_share): mean over the stratum's tasks of
    the task-mean R·1[C ≤ b] for every b of the calibrated grid. Its mean over b is AUBQC_s."""
    import numpy as np
    import pandas as pd

    f = ctx.original.loc[ctx.original["cost_usd"].notna().groupby(ctx.original["configuration_id"]).transform("all")]
    f = f.assign(stratum=f["task_id"].map(ctx.cuts.task_strata))
    rows: list[dict[str, Any]] = []
    for s in ams.STRATA:
        part = f.loc[f["stratum"] == s]
        if part.empty:
            continue
        for b in ctx.cuts.grids[s]:
            value = part["reward"].to_numpy(float) * (part["cost_usd"].to_numpy(float) <= b)
            share = (part.assign(v=value).groupby(["configuration_id", "task_id"])["v"].mean()
                     .groupby(level="configuration_id").mean())
            rows.extend({"configuration_id": cfg, "stratum": s, "budget_usd": float(b), "reward_share": float(v)}
                        for cfg, v in share.items())
    out = pd.DataFrame(rows, columns=["configuration_id", "stratum", "budget_usd", "reward_share"])
    notes = [f"{s}: grid is [∞] (no rewarded reference execution)" for s in ams.STRATA
             if list(ctx.cuts.grids.get(s, [])) == [np.inf]]
    return finish(out, ctx, "budget_quality", notes=notes)


def frontier(t1: pd.DataFrame, ctx: ReportContext) -> pd.DataFrame:
    """Configurations at (task-macro mean cost, mean reward), marked when on the quality–cost frontier."""
    pts = t1[["configuration_id", "mean_cost_usd", "mean_reward"]].copy()
    on = quality_cost_frontier(pts, cost_col="mean_cost_usd", reward_col="mean_reward")
    pts["on_frontier"] = pts.index.isin(on.index)
    return finish(pts.sort_values(["mean_cost_usd", "configuration_id"]), ctx, "frontier")


def per_task_reward(ctx: ReportContext, order: Sequence[str] = ()) -> pd.DataFrame:
    """Wide heat-map table: one row per configuration (in `order`, e.g. Table 1's), one column per task
    (mean reward over executions)."""
    wide = ctx.original.pivot_table(index="configuration_id", columns="task_id", values="reward", aggfunc="mean")
    if order:
        wide = wide.reindex([c for c in order if c in wide.index])
    wide.columns = [str(c) for c in wide.columns]
    return finish(wide.reset_index(), ctx, "per_task_reward")


def reward_keys(ctx: ReportContext) -> pd.DataFrame | None:
    """Per configuration, the mean of every reward key a Harbor-format verifier wrote (metrics.reward_keys)."""
    table = per_key_means(ctx.original)
    return None if table is None else finish(table, ctx, "reward_keys")


# ------------------------------------------------------------------ cards


def efficiency(cards: pd.DataFrame, ctx: ReportContext, note: str = "") -> pd.DataFrame:
    """Per configuration, task-macro means of the efficiency card fields (executions with a stored trajectory)."""
    fields = ["n_agent", "n_ref", "invalid", "redundant", "distance", "explore_share", "efficiency", "quality",
              "composite"]
    per_task = cards.groupby(["configuration_id", "task_id"])[fields].mean()
    out = per_task.groupby(level="configuration_id").mean()
    out.insert(0, "n_executions", cards.groupby("configuration_id").size())
    notes = ["quality Q on 0–100 (safety deductions applied); efficiency E in [0, 1]; composite = Q·E"]
    return finish(out.reset_index(), ctx, "efficiency", notes=[*notes, *([note] if note else [])])


def fairness(ctx: ReportContext) -> pd.DataFrame:
    """HDR, CB-HDR, HDR-C, p50 latency per configuration (the cohort is every configuration shown)."""
    return finish(fairness_table(ctx.original), ctx, "fairness")


def transport(ctx: ReportContext) -> pd.DataFrame | None:
    """RR/RN/NN per model when the runs used more than one (contract, transport) cell; else None."""
    f = ctx.original
    if not {"model", "contract", "transport"} <= set(f.columns) or len(f[["contract", "transport"]].drop_duplicates()) < 2:
        return None
    f = f.assign(model=f["model"].fillna(f["configuration_id"]))  # model-free agents are their own subject
    out = transport_table(f)
    notes = []
    if (f["transport"] == "escaped").any():
        notes.append(f"escaped transport: {len(escaped_mismatches(f))} execution(s) differ from raw (expected 0)")
    subject_cfgs = f.groupby("model")["configuration_id"].apply(lambda s: sorted(set(s)))
    cfgs = [subject_cfgs.get(m, []) for m in out["model"]]
    out["configurations"] = [", ".join(c) for c in cfgs]
    return finish(out, ctx, "transport", notes=notes, row_configs=cfgs)


def core_fidelity(ctx: ReportContext, core_task_ids: Sequence[str]) -> pd.DataFrame | None:
    """Spearman/Kendall of Core-subset AMS ranks against Full, when the runs hold both Core and non-Core tasks."""
    import pandas as pd

    tasks = set(ctx.original["task_id"])
    core = sorted(tasks & set(core_task_ids))
    if len(core) < 1 or len(core) == len(tasks) or ctx.original["configuration_id"].nunique() < 2:
        return None
    agree = fidelity(ctx.original, ctx.cuts, core, ctx.alpha)
    row = {"n_core_tasks": len(core), "n_full_tasks": len(tasks), "spearman": agree.spearman, "kendall": agree.kendall,
           "largest_rank_shift": agree.largest_shift, "shifted_configuration": agree.shifted_item}
    return finish(pd.DataFrame([row]), ctx, "core_fidelity", all_configs=True)


# ------------------------------------------------------------------ builders (report.registry names them)


def _two_scored(inputs: TableInputs, built: Mapping[str, pd.DataFrame]) -> bool:
    t1 = built["table1_configurations"]
    return bool(inputs.ctx.original["configuration_id"].nunique() >= 2 and t1["ams"].notna().sum() >= 2)


def build_table1(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame:
    return table1(inputs.ctx, inputs.n_resamples, inputs.seed)


def build_leaders(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame:
    return leaders(built["table1_configurations"], inputs.ctx)


def build_pass_k(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    return pass_k(inputs.ctx)


def build_budget_quality(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame:
    return budget_quality(inputs.ctx)


def build_frontier(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame:
    return frontier(built["table1_configurations"], inputs.ctx)


def build_per_task_reward(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame:
    return per_task_reward(inputs.ctx, list(built["table1_configurations"]["configuration_id"]))


def build_reward_keys(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    return reward_keys(inputs.ctx)


def build_ablations(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    return ablations(inputs.ctx) if _two_scored(inputs, built) else None


def build_spearman(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    return spearman_vs_pass_rate(built["table1_configurations"], inputs.ctx) if _two_scored(inputs, built) else None


def build_core_fidelity(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    return core_fidelity(inputs.ctx, inputs.core_task_ids)


def build_efficiency(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    """The efficiency card, or (no stored trajectory with reference paths) a note on Table 1 saying why not."""
    cards = (execution_cards(inputs.run_dirs, inputs.ctx.original, inputs.reference_paths)
             if inputs.reference_paths and inputs.run_dirs else None)
    if cards is not None and len(cards):
        return efficiency(cards, inputs.ctx, note=inputs.task_note)
    built["table1_configurations"].attrs["notes"].append("efficiency card left out: " + (
        inputs.task_note or "no stored trajectory with reference paths for these executions"))
    return None


def build_fairness(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame:
    return fairness(inputs.ctx)


def build_transport(inputs: TableInputs, built: Mapping[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    return transport(inputs.ctx)
