"""Description conditions (SPEC §3): Original / Self / Cross-only / Pooled / Adapted-1 / Generic, plus
Core-vs-Full fidelity and the seeded Core-subset picker.

Expected table (one row per execution, validated by `metrics.table.validate_results`):
    configuration_id   the target π_t
    task_id, reward, cost_usd, attempt   as in results.parquet
    condition          "original" | "pooled" | "generic"
    source             the source configuration id k of the frozen description d*_{i,k} for
                       "pooled" rows (null for the others)
Self, Cross-only and Adapted-1 are views of the Pooled executions, never separate runs:
Self = pooled rows with source == target; Cross-only = pooled rows with source != target;
Adapted-1 draws one source per task (the same for every target) from the pooled units.
Inside a task, executions are averaged per source unit first, then over units (SPEC "pooled units").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.stats import rank_agreement
from matchmeter.metrics.table import require_columns

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from matchmeter.metrics.stats import RankAgreement

STORED_CONDITIONS = ("original", "pooled", "generic")
CONDITIONS = ("original", "self", "cross_only", "pooled", "generic")


def condition_view(df: pd.DataFrame, condition: str) -> pd.DataFrame:
    """Executions that make up one condition (Adapted-1 has no view: see `adapted_one`)."""
    require_columns(df, ("condition", "source"), "conditions table")
    unknown = sorted(set(df["condition"].dropna().unique()) - set(STORED_CONDITIONS))
    if unknown:
        raise UserError(f"unknown condition {unknown[0]!r}", "column 'condition'",
                        f"use one of {', '.join(STORED_CONDITIONS)}; self/cross-only/adapted-1 are derived")
    if condition in ("original", "pooled", "generic"):
        return df.loc[df["condition"] == condition]
    pooled = df.loc[df["condition"] == "pooled"]
    if condition == "self":
        return pooled.loc[pooled["source"] == pooled["configuration_id"]]
    if condition == "cross_only":
        return pooled.loc[pooled["source"] != pooled["configuration_id"]]
    raise UserError(f"unknown condition {condition!r}", "condition_view", f"use one of {', '.join(CONDITIONS)}")


def select_condition(df: pd.DataFrame, condition: str) -> pd.DataFrame:
    """The rows of one condition from a table that may mix plain runs and evaluation directories.

    Rows without a condition (plain runs) count as Original when their description is the Original
    one, and belong to no condition otherwise. A table without a `condition` column is all Original.

    Raises:
        UserError: an unknown condition, or a condition other than Original asked of plain runs.
    """
    if condition not in CONDITIONS:
        hint = "; adapted1 is computed from pooled executions by `matchmeter report`" if condition == "adapted1" else ""
        raise UserError(f"unknown condition {condition!r}", "--condition", f"use one of {', '.join(CONDITIONS)}{hint}")
    if "condition" not in df.columns:
        if condition != "original":
            raise UserError(f"condition {condition!r} asked of runs without conditions", "--condition",
                            "pass an evaluation directory (matchmeter evaluate --out) or use --condition original")
        return df
    cond = df["condition"].astype(object)
    is_orig = (df["description_origin"].fillna("original") == "original") if "description_origin" in df.columns else True
    labelled = df.assign(condition=cond.where(cond.notna() | ~is_orig, "original"))
    if "source" not in labelled.columns:
        labelled["source"] = None
    return condition_view(labelled.loc[labelled["condition"].notna()], condition)


def unit_column(condition: str) -> str | None:
    """Pooled and Cross-only tasks hold several source units: average within each unit first."""
    return "source" if condition in ("pooled", "cross_only") else None


class ConditionReport(NamedTuple):
    per_pair: pd.DataFrame  # condition, configuration_id, mean_reward, mean_cost_usd, ams
    per_condition: pd.DataFrame  # condition, n_pairs, macro_ams, leader
    restricted: frozenset[str] = frozenset()  # conditions that lost scorable pairs to the common set
    notes: tuple[str, ...] = ()  # what the common set left out, and why
    pairs: frozenset[tuple[str, str]] | None = None  # the common (target, task) set (None: every pair)


def restrict(df: pd.DataFrame, pairs: frozenset[tuple[str, str]] | None) -> pd.DataFrame:
    """The rows of `df` whose (configuration_id, task_id) is in `pairs` (all rows when None)."""
    import pandas as pd

    if pairs is None:
        return df
    keys = pd.Series(list(zip(df["configuration_id"].astype(str), df["task_id"].astype(str), strict=True)),
                     index=df.index, dtype=object)
    return df.loc[keys.isin(pairs)]


class CommonSet(NamedTuple):
    pairs: frozenset[tuple[str, str]]  # (target, task) every compared condition can score
    restricted: frozenset[str]
    notes: tuple[str, ...]


def common_pairs(views: dict[str, pd.DataFrame]) -> CommonSet:
    """The (target, task) pairs every condition can score, so conditions are compared over one set.

    A target is scorable under a condition when every one of its executions there has a known cost
    (`ams.score` leaves it out otherwise). Without this, an unpriced target left out of Original's
    macro AMS but kept in Generic's makes a change of denominator look like a gain. Self exists only
    for targets that are sources, so it is restricted to the common set but does not narrow it.
    """
    scorable: dict[str, set[tuple[str, str]]] = {}
    why: dict[str, list[str]] = {}
    for cond, view in views.items():
        null = view.loc[view["cost_usd"].isna(), "configuration_id"].astype(str)
        for cfg, n in null.value_counts().sort_index().items():
            why.setdefault(str(cfg), []).append(f"{n} execution(s) with unknown cost under {cond}")
        ok = view.loc[~view["configuration_id"].astype(str).isin(set(null))]
        scorable[cond] = set(zip(ok["configuration_id"].astype(str), ok["task_id"].astype(str), strict=True))
    compared = [c for c in scorable if c != "self"] or list(scorable)
    common = set.intersection(*(scorable[c] for c in compared)) if compared else set()
    every = set().union(*scorable.values()) if scorable else set()
    for cond in compared:
        for cfg in sorted({g for g, _ in every - scorable[cond]} - {g for g, _ in common}):
            if not any(r.endswith(f"under {cond}") for r in why.get(cfg, [])):
                why.setdefault(cfg, []).append(f"not run under {cond}")
    restricted = frozenset(c for c in scorable if scorable[c] - common)
    notes: list[str] = []
    if restricted:
        lost = sorted({g for g, _ in every - common})
        notes.append(f"conditions compared over the same {len(common)} (target, task) pairs "
                     f"({len({g for g, _ in common})} targets); RESTRICTED rows lost pairs to it; left out: "
                     + "; ".join(f"{g} ({', '.join(why.get(g, ['some tasks missing under a condition']))})"
                                 for g in lost))
    return CommonSet(frozenset(common), restricted, tuple(notes))


def condition_report(df: pd.DataFrame, cuts: ams.StrataCuts, alpha: float = ams.DEFAULT_ALPHA,
                     allow_partial: bool = False) -> ConditionReport:
    """Per condition and configuration: task-macro mean reward and cost, AMS and coverage; macro AMS and leader,
    every condition over the same (target, task) set (`common_pairs`).

    Raises:
        UserError: no (target, task) pair is scorable under every condition.
    """
    import pandas as pd

    views = {c: v for c in CONDITIONS if not (v := condition_view(df, c)).empty}
    common = common_pairs(views)
    if views and not common.pairs:
        detail = f" ({'; '.join(common.notes)})" if common.notes else ""
        raise UserError("no (target, task) pair is scorable under every condition" + detail, "conditions table",
                        "price every target's model (--prices FILE) and run every condition")
    pairs, summary = [], []
    for cond, full_view in views.items():
        view = restrict(full_view, common.pairs)
        if view.empty:
            continue
        unit = unit_column(cond)
        w = ams.execution_weights(view, unit)
        per_task = view[["configuration_id", "task_id"]].assign(
            r=view["reward"].to_numpy(float) * w, c=view["cost_usd"].to_numpy(float) * w
        ).groupby(["configuration_id", "task_id"]).agg(r=("r", "sum"), c=("c", lambda s: s.sum(min_count=len(s))))
        means = per_task.groupby(level="configuration_id").agg(mean_reward=("r", "mean"),
                                                               mean_cost_usd=("c", lambda s: s.mean(skipna=False)))
        scored_table = ams.score(view, cuts, alpha, unit_col=unit, allow_partial=allow_partial).table
        scores = scored_table.set_index("configuration_id")["ams"]
        table = means.join(scored_table.set_index("configuration_id")[["ams", "coverage"]]).reset_index().assign(
            condition=cond)
        pairs.append(table)
        scored = scores.dropna()
        summary.append({"condition": cond, "n_pairs": len(table), "macro_ams": float(scored.mean()) if len(scored) else float("nan"),
                        "leader": scored.sort_index().idxmax() if len(scored) else None})
    per_pair = pd.concat(pairs, ignore_index=True)[["condition", "configuration_id", "mean_reward", "mean_cost_usd", "ams",
                                                    "coverage"]]
    return ConditionReport(per_pair, pd.DataFrame(summary), common.restricted, common.notes, common.pairs)


# ------------------------------------------------------------------ Adapted-1


class AdaptedOne(NamedTuple):
    first_share: pd.Series  # per target: share of draws ranking first (ties share the place)
    exact_order_share: float  # share of draws reproducing the Pooled ordering exactly
    pooled_ams: pd.Series  # the Pooled AMS the orderings are compared against
    n_draws: int
    per_target: pd.DataFrame  # per target: mean over draws and 95% draw interval of reward, cost, AMS


DRAW_VALUES = ("mean_reward", "mean_cost_usd", "ams")


def unit_terms(df: pd.DataFrame, cuts: ams.StrataCuts,
               with_cost: bool = False) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """Pooled executions → X[target, task, source, (TQ, AUBQC, EFR[, cost]) terms], attempts averaged per unit.

    Raises:
        UserError: a missing (target, task, source) unit, unknown costs, or an uncalibrated task.
    """
    import pandas as pd

    pooled = condition_view(df, "pooled")
    if pooled.empty:
        raise UserError("no pooled executions", "conditions table", "evaluate the Pooled condition first")
    ams.check_coverage(pooled, cuts.task_strata)
    if pooled["cost_usd"].isna().any():
        bad = pooled.loc[pooled["cost_usd"].isna(), "configuration_id"].iloc[0]
        raise UserError(f"target {bad!r} has pooled executions with unknown cost", "column 'cost_usd'",
                        "price its model, or leave the target out of Adapted-1")
    terms = ams.execution_terms(pooled["reward"].to_numpy(float), pooled["cost_usd"].to_numpy(float),
                                ams.stratum_codes(pooled["task_id"], cuts), cuts)
    cols = ["tq", "aubqc", "efr", *(["cost"] if with_cost else [])]
    frame = pooled[["configuration_id", "task_id", "source"]].assign(tq=terms[:, 0], aubqc=terms[:, 1], efr=terms[:, 2],
                                                                     cost=pooled["cost_usd"].to_numpy(float))
    unit = frame.groupby(["configuration_id", "task_id", "source"])[cols].mean()
    targets, tasks, sources = (sorted(pooled[c].astype(str).unique()) for c in ("configuration_id", "task_id", "source"))
    full = unit.reindex(pd.MultiIndex.from_product([targets, tasks, sources]))
    if full.isna().any().any():
        g, t, k = full.index[full.isna().any(axis=1)][0]
        raise UserError(f"no pooled execution of target {g!r} on task {t!r} with source {k!r}", "conditions table",
                        "every target needs every task under every source's description")
    return full.to_numpy().reshape(len(targets), len(tasks), len(sources), len(cols)), targets, tasks, sources


def _ams_from_task_terms(x: np.ndarray, masks: np.ndarray, alpha: float) -> np.ndarray:
    """x (..., T, 3) per-task terms, masks (S, T) stratum indicators → macro AMS (...)."""
    import numpy as np

    per = np.einsum("...tc,st->...sc", x, masks / masks.sum(axis=1, keepdims=True))
    stratum_ams = (alpha * per[..., 0] + (1 - alpha) * per[..., 1]) * (1 - per[..., 2])
    result: np.ndarray = stratum_ams.mean(axis=-1)
    return result


def min_ranks(values: np.ndarray) -> np.ndarray:
    """Competition ranks along the last axis, 1 = highest; values rounded to 12 decimals so float noise never breaks a tie."""
    import numpy as np

    v = np.round(values, 12)
    ranks: np.ndarray = 1 + (v[..., None, :] > v[..., :, None]).sum(axis=-1)
    return ranks


def draw_values(x: np.ndarray, masks: np.ndarray, alpha: float, draws: np.ndarray) -> np.ndarray:
    """Per draw (rows of `draws`: a source index per task) and target: task-macro mean reward, mean cost
    and AMS, as an array (n_draws, G, 3). `x` is `unit_terms(..., with_cost=True)`."""
    import numpy as np

    picked = x[:, np.arange(x.shape[1])[None, :], draws]  # (G, b, T, 4)
    out = np.empty((len(draws), x.shape[0], 3))
    out[..., 0] = picked[..., 0].mean(axis=-1).T
    out[..., 1] = picked[..., 3].mean(axis=-1).T
    out[..., 2] = _ams_from_task_terms(picked[..., :3], masks, alpha).T
    return out


def draw_intervals(values: np.ndarray, targets: list[str], level: float = 0.95) -> pd.DataFrame:
    """Mean over draws and the central `level` interval of the draw distribution (linear quantiles)."""
    import numpy as np
    import pandas as pd

    lo, hi = np.quantile(values, [(1 - level) / 2, (1 + level) / 2], axis=0, method=ams.QUANTILE_METHOD)
    cols = {}
    for j, name in enumerate(DRAW_VALUES):
        cols[name] = values[:, :, j].mean(axis=0)
        cols[f"{name}_low"], cols[f"{name}_high"] = lo[:, j], hi[:, j]
    return pd.DataFrame(cols, index=pd.Index(targets, name="configuration_id"))


def adapted_one(df: pd.DataFrame, cuts: ams.StrataCuts, alpha: float = ams.DEFAULT_ALPHA, n_draws: int = 10_000,
                seed: int = 0, chunk: int = 2_000, level: float = 0.95) -> AdaptedOne:
    """Adapted-1: per draw, one source per task shared by all targets; no Python loop over draws
    (draws are processed in vectorised chunks only to bound memory)."""
    import numpy as np
    import pandas as pd

    x, targets, tasks, sources = unit_terms(df, cuts, with_cost=True)
    labels = np.array([cuts.task_strata[t] for t in tasks])
    masks = np.array([labels == s for s in ams.STRATA if (labels == s).any()], dtype=float)
    pooled = _ams_from_task_terms(x[..., :3].mean(axis=2), masks, alpha)  # (G,)
    pooled_ranks = min_ranks(pooled)
    draws = np.random.default_rng(seed).integers(0, len(sources), size=(n_draws, len(tasks)))
    values = np.empty((n_draws, len(targets), 3))
    for start in range(0, n_draws, chunk):
        values[start:start + chunk] = draw_values(x, masks, alpha, draws[start:start + chunk])
    ranks = min_ranks(values[..., 2])
    is_first = ranks == 1
    first = (is_first / is_first.sum(axis=1, keepdims=True)).sum(axis=0)
    exact = int((ranks == pooled_ranks).all(axis=1).sum())
    return AdaptedOne(pd.Series(first / n_draws, index=targets, name="first_share"), exact / n_draws,
                      pd.Series(pooled, index=targets, name="ams"), n_draws, draw_intervals(values, targets, level))


# ------------------------------------------------------------------ Cross-only and Self


def _unit_means(view: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return view.groupby(keys).agg(reward=("reward", "mean"), cost=("cost_usd", lambda s: s.mean(skipna=False)))


def cross_only_improvements(df: pd.DataFrame) -> pd.DataFrame:
    """Per target: (task, source ≠ target) evaluations that beat Original on the same (target, task).

    Columns: higher_reward, same_reward_cheaper, improved (their sum), total. Reward and cost are
    attempt means; an unknown cost never counts as cheaper.
    """
    cross = _unit_means(condition_view(df, "cross_only"), ["configuration_id", "task_id", "source"]).reset_index()
    orig = _unit_means(condition_view(df, "original"), ["configuration_id", "task_id"]).reset_index()
    both = cross.merge(orig, on=["configuration_id", "task_id"], suffixes=("", "_orig"))
    higher = both["reward"] > both["reward_orig"]
    cheaper = (both["reward"] == both["reward_orig"]) & (both["cost"] < both["cost_orig"])
    out = both.assign(higher_reward=higher, same_reward_cheaper=cheaper, total=1).groupby("configuration_id")[
        ["higher_reward", "same_reward_cheaper", "total"]].sum().astype(int)
    out.insert(2, "improved", out["higher_reward"] + out["same_reward_cheaper"])
    return out.reset_index()


def self_cost_change(df: pd.DataFrame) -> pd.DataFrame:
    """Per target in P: summed per-task mean cost under Self vs Original on the tasks both cover."""
    selfv = _unit_means(condition_view(df, "self"), ["configuration_id", "task_id"])
    orig = _unit_means(condition_view(df, "original"), ["configuration_id", "task_id"])
    both = selfv.add_suffix("_self").join(orig.add_suffix("_orig"), how="inner")
    out = both.groupby(level="configuration_id").agg(
        self_cost_usd=("cost_self", lambda s: s.sum(min_count=len(s))),
        original_cost_usd=("cost_orig", lambda s: s.sum(min_count=len(s))),
        n_tasks=("cost_self", "size"))
    out["change_usd"] = out["self_cost_usd"] - out["original_cost_usd"]
    out["change_pct"] = 100 * out["change_usd"] / out["original_cost_usd"]
    return out.reset_index()


# ------------------------------------------------------------------ Core subset


def core_fidelity(df: pd.DataFrame, cuts: ams.StrataCuts, core_task_ids: Sequence[str],
                  alpha: float = ams.DEFAULT_ALPHA) -> RankAgreement:
    """Spearman ρ (and Kendall τ, largest shift) of AMS rankings on the Core subset against the full set."""
    full = ams.score(df, cuts, alpha).table.set_index("configuration_id")["ams"]
    # the Core subset is partial by construction: it is compared with Full, never ranked on its own
    core = ams.score(df.loc[df["task_id"].isin(list(core_task_ids))], cuts, alpha,
                     allow_partial=True).table.set_index("configuration_id")["ams"]
    return rank_agreement(full, core)


def pick_core(tasks: pd.DataFrame, n: int = 30, seed: int = 0) -> list[str]:
    """Seeded stratified Core subset of `tasks` (columns task_id, source_family, stratum).

    First one random task per source family, then one per stratum still missing, then the
    (family, stratum) cell furthest below its proportional quota gets a random task, until n.
    """
    import numpy as np

    require_columns(tasks, ("task_id", "source_family", "stratum"), "core task list")
    rng = np.random.default_rng(seed)
    pool = tasks.sort_values("task_id").reset_index(drop=True)
    pool = pool.iloc[rng.permutation(len(pool))].reset_index(drop=True)
    need = max(pool["source_family"].nunique(), pool["stratum"].nunique())
    if n < need:
        raise UserError(f"a Core of {n} tasks cannot represent every family and stratum", "pick_core",
                        f"pick at least {need} tasks")
    if n >= len(pool):
        return sorted(pool["task_id"])
    chosen: list[int] = []
    for col in ("source_family", "stratum"):
        for value in sorted(pool[col].unique()):
            if not pool.loc[chosen, col].eq(value).any():
                chosen.append(int(pool.index[(pool[col] == value) & ~pool.index.isin(chosen)][0]))
    cell = pool["source_family"] + "\0" + pool["stratum"]
    quota = cell.value_counts() * n / len(pool)
    while len(chosen) < n:
        deficit = (quota - cell[chosen].value_counts().reindex(quota.index, fill_value=0)).sort_index()
        open_cells = deficit[[bool((~pool.index.isin(chosen) & (cell == c)).any()) for c in deficit.index]]
        best = open_cells.idxmax()  # ties: first cell in sorted order
        chosen.append(int(pool.index[(cell == best) & ~pool.index.isin(chosen)][0]))
    return sorted(pool.loc[chosen, "task_id"])
