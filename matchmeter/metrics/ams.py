"""AgentMeter Score (SPEC §1–2): effort index, strata, budget grids, thresholds, TQ, AUBQC, EFR, AMS.

Everything here is a pure function over a validated results table (see `metrics.table`). Calibration
(`effort_index`, `assign_strata`, `budget_grid`, `expensive_failure_threshold`) reads reference
executions once; scoring (`score`) applies the frozen cuts to any table and never recalibrates.

Choices the SPEC leaves open, made here:
- Quantiles use numpy's default `method="linear"` (Hyndman–Fan type 7), for grids and for η_s.
- A task's quantity is the mean over its executions of the *per-execution* term: R_e for TQ,
  R_e·1[C_e ≤ b] for AUBQC, 1[R_e = 0 ∧ C_e > η_s] for EFR. With a `unit` column (pooled
  descriptions) executions are averaged within a unit first, then units within the task.
- z(i) counts a reference configuration as failing a task when its attempt-mean reward is 0.
- A configuration with any null cost cannot be placed on the budget grid: it is excluded from the
  score table with the reason, never scored as if the cost were 0.
- Coverage (`metrics.coverage`): every configuration must have run every calibrated task, or
  scoring refuses it; with `allow_partial` it is scored over what it ran (a stratum with no task gets
  NaN columns and the macro averages the strata that have tasks) and its row says PARTIAL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, NamedTuple, cast

from matchmeter.errors import UserError
from matchmeter.metrics.coverage import FULL, PARTIAL, require_full_coverage
from matchmeter.metrics.coverage import STRATA as STRATA  # re-exported: callers read ams.STRATA
from matchmeter.metrics.stats import bootstrap_ci, rank_agreement

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

QUANTILE_LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
EFR_QUANTILE = 0.75
QUANTILE_METHOD: Final = "linear"
DEFAULT_ALPHA = 0.5


class StrataCuts(NamedTuple):
    """The frozen part of a calibration that scoring needs."""

    task_strata: Mapping[str, str]
    grids: Mapping[str, Sequence[float]]
    etas: Mapping[str, float]


class Scores(NamedTuple):
    """Wide score table (one row per configuration) and configurations left out, with the reason."""

    table: pd.DataFrame
    excluded: dict[str, str]


# ------------------------------------------------------------------ calibration pieces


def midrank_percentile(x: np.ndarray) -> np.ndarray:
    """q(x_i) = (#{j: x_j < x_i} + 0.5·#{j: x_j = x_i}) / n, vectorised with two binary searches."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    s = np.sort(x)
    less = np.searchsorted(s, x, side="left")
    equal = np.searchsorted(s, x, side="right") - less
    return (less + 0.5 * equal) / len(x)


def effort_index(ref: pd.DataFrame) -> pd.DataFrame:
    """Per-task observed effort from reference executions (attempts averaged per configuration first).

    Returns a frame indexed by task_id with m_tok, m_step, z, their mid-rank percentiles and `effort`.
    """
    per_cfg = ref.groupby(["task_id", "configuration_id"], sort=False).agg(
        tok=("tokens_total", "mean"), step=("n_steps", "mean"), reward=("reward", "mean"))
    per_cfg["fails"] = (per_cfg["reward"] == 0).astype(float)
    per_task = per_cfg.groupby(level="task_id").agg(
        m_tok=("tok", "median"), m_step=("step", "median"), z=("fails", "mean")).sort_index()
    for col, name in (("m_tok", "q_tok"), ("m_step", "q_step"), ("z", "q_z")):
        per_task[name] = midrank_percentile(per_task[col].to_numpy())
    per_task["effort"] = (per_task["q_tok"] + per_task["q_step"] + per_task["q_z"]) / 3
    return per_task


def assign_strata(effort: pd.Series) -> dict[str, str]:
    """Cut tasks sorted by (effort, task id) into three contiguous strata; earlier strata take extras."""
    n = len(effort)
    if n < len(STRATA):
        raise UserError(f"only {n} reference task(s)", "calibration", "calibrate on at least 3 tasks (the Full suite)")
    order = sorted(effort.items(), key=lambda kv: (kv[1], kv[0]))
    base, extra = divmod(n, len(STRATA))
    out: dict[str, str] = {}
    start = 0
    for k, stratum in enumerate(STRATA):
        size = base + (1 if k < extra else 0)
        out.update({str(task): stratum for task, _ in order[start:start + size]})
        start += size
    return out


def budget_grid(rewarded_costs: np.ndarray, levels: Sequence[float] = QUANTILE_LEVELS) -> list[float]:
    """Deduplicated empirical quantiles of C⁺_s; an empty C⁺_s gives the single budget ∞."""
    import numpy as np

    costs = np.asarray(rewarded_costs, dtype=float)
    if costs.size == 0:
        return [float("inf")]
    return [float(v) for v in np.unique(np.quantile(costs, list(levels), method=QUANTILE_METHOD))]


def expensive_failure_threshold(zero_costs: np.ndarray, all_costs: np.ndarray, q: float = EFR_QUANTILE) -> float:
    """η_s: the q-quantile of C⁰_s, or the largest reference cost of the stratum when C⁰_s is empty."""
    import numpy as np

    zero = np.asarray(zero_costs, dtype=float)
    if zero.size:
        return float(np.quantile(zero, q, method=QUANTILE_METHOD))
    every = np.asarray(all_costs, dtype=float)
    return float(every.max()) if every.size else float("inf")


# ------------------------------------------------------------------ scoring


class Coded(NamedTuple):
    """Integer codes of a table's configurations, tasks and strata (row-aligned)."""

    cfg_names: np.ndarray
    cfg: np.ndarray
    task_names: np.ndarray
    task: np.ndarray
    stratum: np.ndarray  # index into STRATA per row


def encode(df: pd.DataFrame, cuts: StrataCuts, require_all: bool = True) -> Coded:
    """Factorise once; check coverage (see `check_coverage`) on the way."""
    import numpy as np
    import pandas as pd

    cfg, cfg_names = pd.factorize(df["configuration_id"], sort=True)
    task, task_names = pd.factorize(df["task_id"], sort=True)
    check_coverage(df, cuts.task_strata, (cfg, np.asarray(cfg_names), task, np.asarray(task_names)), require_all)
    of_task = np.array([STRATA.index(cuts.task_strata[t]) for t in task_names], dtype=int)
    return Coded(np.asarray(cfg_names), cfg, np.asarray(task_names), task, of_task[task])


def execution_weights(df: pd.DataFrame, unit_col: str | None = None) -> np.ndarray:
    """Weight of each execution inside its (configuration, task) mean: 1/n, or 1/(U·n_unit) with units."""
    import numpy as np
    import pandas as pd

    cfg, task = pd.factorize(df["configuration_id"])[0], pd.factorize(df["task_id"])[0]
    key = cfg * (task.max() + 1) + task
    weights: np.ndarray
    if unit_col is None:
        weights = 1.0 / np.bincount(key)[key]
        return weights
    unit = pd.factorize(df[unit_col].fillna("").astype(str))[0]
    cell = key * (unit.max() + 1) + unit
    n_in_unit = np.bincount(cell)[cell]
    n_units = np.bincount(key[np.unique(cell, return_index=True)[1]], minlength=key.max() + 1)[key]
    weights = 1.0 / (n_units * n_in_unit)
    return weights


def stratum_codes(task_ids: pd.Series, cuts: StrataCuts) -> np.ndarray:
    """Index into STRATA of each row's task (tasks must be calibrated)."""
    return task_ids.map({t: STRATA.index(s) for t, s in cuts.task_strata.items()}).to_numpy(int)


def execution_terms(reward: np.ndarray, cost: np.ndarray, stratum: np.ndarray, cuts: StrataCuts) -> np.ndarray:
    """Per-execution (R, R·mean_b 1[C ≤ b], 1[R = 0 ∧ C > η]) as an (n, 3) array; `stratum` as codes.

    Averaging over budgets per execution first is exact because AUBQC is a double mean.
    """
    import numpy as np

    terms = np.empty((len(reward), 3))
    terms[:, 0] = reward
    for k, s in enumerate(STRATA):
        mask = stratum == k
        if not mask.any():
            continue
        grid = np.sort(np.asarray(cuts.grids[s], dtype=float))
        # share of budgets b with C <= b, by binary search instead of an (n x |B|) comparison
        within = (len(grid) - np.searchsorted(grid, cost[mask], side="left")) / len(grid)
        terms[mask, 1] = reward[mask] * within
        terms[mask, 2] = ((reward[mask] == 0) & (cost[mask] > cuts.etas[s])).astype(float)
    return terms


def components(df: pd.DataFrame, cuts: StrataCuts, unit_col: str | None = None, require_all: bool = True) -> pd.DataFrame:
    """TQ_s, AUBQC_s, EFR_s per (configuration_id, stratum), with task and execution counts.

    Vectorised with integer codes and `np.bincount` (pandas groupby costs ~5x more at 10^4 rows).

    Raises:
        UserError: a task outside the calibration, or a configuration missing some scored task.
    """
    import numpy as np
    import pandas as pd

    c = encode(df, cuts, require_all)
    terms = execution_terms(df["reward"].to_numpy(float), df["cost_usd"].to_numpy(float), c.stratum, cuts)
    weighted = terms * execution_weights(df, unit_col)[:, None]
    n_s, n_t = len(STRATA), len(c.task_names)
    pair = c.cfg * n_t + c.task
    per_task = np.stack([np.bincount(pair, weighted[:, j], minlength=len(c.cfg_names) * n_t) for j in range(3)], 1)
    ran = np.bincount(pair, minlength=len(c.cfg_names) * n_t) > 0  # pairs that ran (all, unless partial)
    pair_group = (np.arange(len(ran)) // n_t) * n_s + np.array([STRATA.index(cuts.task_strata[t]) for t in c.task_names])[
        np.arange(len(ran)) % n_t]
    n_groups = len(c.cfg_names) * n_s
    n_tasks = np.bincount(pair_group[ran], minlength=n_groups)
    sums = np.stack([np.bincount(pair_group[ran], per_task[ran, j], minlength=n_groups) for j in range(3)], 1)
    n_exec = np.bincount(c.cfg * n_s + c.stratum, minlength=n_groups)
    keep = n_tasks > 0
    means = sums[keep] / n_tasks[keep, None]
    return pd.DataFrame({
        "configuration_id": np.repeat(c.cfg_names, n_s)[keep], "stratum": np.tile(np.array(STRATA), len(c.cfg_names))[keep],
        "tq": means[:, 0], "aubqc": means[:, 1], "efr": means[:, 2],
        "n_tasks": n_tasks[keep], "n_executions": n_exec[keep],
    })


def check_coverage(df: pd.DataFrame, task_strata: Mapping[str, str],
                   codes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None, require_all: bool = True) -> None:
    """Every scored task must be calibrated, and (`require_all`) every configuration must have run every scored task."""
    import numpy as np
    import pandas as pd

    if codes is None:
        cfg, cfg_index = pd.factorize(df["configuration_id"], sort=True)
        task, task_index = pd.factorize(df["task_id"], sort=True)
        cfg_names, task_names = np.asarray(cfg_index), np.asarray(task_index)
    else:
        cfg, cfg_names, task, task_names = codes
    unknown = sorted(set(task_names) - set(task_strata))
    if unknown:
        raise UserError(
            f"{len(unknown)} scored task(s) are not in the calibration (e.g. {', '.join(unknown[:3])})",
            "calibration task set",
            "score against a calibration built on a task set that contains them (matchmeter calibrate); "
            "scoring never recalibrates",
        )
    ran = np.zeros((len(cfg_names), len(task_names)), dtype=bool)
    ran[cfg, task] = True
    if require_all and not ran.all():
        g = int(np.flatnonzero(~ran.all(axis=1))[0])
        missing = [str(t) for t in np.asarray(task_names)[~ran[g]]]
        raise UserError(
            f"configuration {cfg_names[g]!r} has no execution on {len(missing)} scored task(s) (e.g. {', '.join(missing[:3])})",
            "results table", "run the missing executions or score a task set every configuration ran",
        )


def stratum_ams(comp: pd.DataFrame, alpha: float, use_efr: bool = True) -> pd.Series:
    """AMS_s = (α·TQ_s + (1−α)·AUBQC_s)·(1 − EFR_s); `use_efr=False` is the "no EFR" ablation."""
    quality = alpha * comp["tq"] + (1 - alpha) * comp["aubqc"]
    return quality * (1 - comp["efr"]) if use_efr else quality


def macro_ams(comp: pd.DataFrame, alpha: float, use_efr: bool = True) -> pd.Series:
    """AMS per configuration: the mean of its stratum scores over the strata that have tasks."""
    per = comp.assign(ams_s=stratum_ams(comp, alpha, use_efr))
    return per.groupby("configuration_id")["ams_s"].mean().rename("ams")


def score(df: pd.DataFrame, cuts: StrataCuts, alpha: float = DEFAULT_ALPHA, unit_col: str | None = None,
          allow_partial: bool = False) -> Scores:
    """Wide AMS table: configuration_id, rank, ams, n_tasks, n_executions, coverage, {tq,aubqc,efr,ams}_{stratum}.

    Configurations with a null cost are excluded (listed in `Scores.excluded`); rows are sorted by AMS
    descending, ties by configuration id, and `rank` is the competition rank (1 = best). A configuration
    that misses a calibrated task is refused (UserError) unless `allow_partial`; then `coverage` is PARTIAL.
    """
    import pandas as pd

    if not 0 <= alpha <= 1:
        raise UserError(f"alpha {alpha:g} outside [0, 1]", "--alpha", "pick a weight between 0 and 1 (default 0.5)")
    null = df.loc[df["cost_usd"].isna()]
    excluded = {
        str(cfg): f"{len(rows)} execution(s) with unknown cost ({_first_reason(rows)}); AUBQC and EFR need costs"
        for cfg, rows in null.groupby("configuration_id")
    }
    kept = df.loc[~df["configuration_id"].isin(list(excluded))]
    if kept.empty:
        return Scores(pd.DataFrame(columns=score_columns()), excluded)
    check_coverage(kept, cuts.task_strata, require_all=False)  # an uncalibrated task is an error either way
    gaps = require_full_coverage(kept, cuts.task_strata, allow_partial)
    comp = components(kept, cuts, unit_col, require_all=not allow_partial)
    comp["ams_s"] = stratum_ams(comp, alpha)
    wide = comp.pivot(index="configuration_id", columns="stratum", values=["tq", "aubqc", "efr", "ams_s"])
    pairs = cast("list[tuple[str, str]]", list(wide.columns))  # (metric, stratum) after the pivot
    wide.columns = [f"{'ams' if m == 'ams_s' else m}_{s}" for m, s in pairs]
    wide = wide.reindex(columns=[c for c in score_columns() if "_" in c and c.split("_")[-1] in STRATA])
    totals = comp.groupby("configuration_id").agg(n_tasks=("n_tasks", "sum"), n_executions=("n_executions", "sum"))
    table = totals.join(macro_ams(comp, alpha)).join(wide).reset_index()
    table["coverage"] = [PARTIAL if c in gaps else FULL for c in table["configuration_id"]]
    table = table.sort_values(["ams", "configuration_id"], ascending=[False, True], kind="stable")
    table.insert(1, "rank", table["ams"].rank(method="min", ascending=False).astype(int))
    return Scores(table[score_columns()].reset_index(drop=True), excluded)


def score_columns() -> list[str]:
    """Column order of the score table."""
    per = [f"{m}_{s}" for s in STRATA for m in ("tq", "aubqc", "efr", "ams")]
    return ["configuration_id", "rank", "ams", "n_tasks", "n_executions", "coverage", *per]


def _first_reason(rows: pd.DataFrame) -> str:
    if "cost_null_reason" in rows.columns:
        reasons = rows["cost_null_reason"].dropna()
        if not reasons.empty:
            return str(reasons.iloc[0])
    return "no reason recorded"


def ablations(df: pd.DataFrame, cuts: StrataCuts, alpha: float = DEFAULT_ALPHA, unit_col: str | None = None,
              allow_partial: bool = False) -> pd.DataFrame:
    """Full AMS against "no AUBQC" (α=1), "no TQ" (α=0) and "no EFR" (factor dropped).

    One row per variant: winner, Spearman ρ with full AMS over configurations, the largest absolute
    rank shift and the configuration that moved that much. Needs at least two configurations for ρ.
    """
    import pandas as pd

    scored = df.loc[df["cost_usd"].notna().groupby(df["configuration_id"]).transform("all")]
    require_full_coverage(scored, cuts.task_strata, allow_partial)
    comp = components(scored, cuts, unit_col, require_all=not allow_partial)
    full = macro_ams(comp, alpha)
    variants = {"full": full, "no_aubqc": macro_ams(comp, 1.0), "no_tq": macro_ams(comp, 0.0),
                "no_efr": macro_ams(comp, alpha, use_efr=False)}
    rows = []
    for name, values in variants.items():
        agree = rank_agreement(full, values)
        best = str(values.sort_index().idxmax())
        rows.append({"variant": name, "winner": best, "winner_ams": float(values[best]),
                     "spearman": agree.spearman, "largest_rank_shift": agree.largest_shift,
                     "shifted_configuration": agree.shifted_item})
    return pd.DataFrame(rows)


def bootstrap_ams_ci(df: pd.DataFrame, cuts: StrataCuts, alpha: float = DEFAULT_ALPHA, n_resamples: int = 1000,
                     seed: int = 0, level: float = 0.95, allow_partial: bool = False) -> pd.DataFrame:
    """Percentile CI of macro AMS per configuration: tasks resampled within their stratum, then executions.

    Executions inside a task are resampled uniformly (pooled units are not re-weighted here).
    Configurations with a null cost are left out, as in `score`. With `allow_partial`, configurations
    are bootstrapped in groups that ran the same task set (same seed), each over its own tasks.
    """
    import numpy as np
    import pandas as pd

    df = df.loc[df["cost_usd"].notna().groupby(df["configuration_id"]).transform("all")]
    check_coverage(df, cuts.task_strata, require_all=not allow_partial)
    task_sets = df.groupby("configuration_id")["task_id"].agg(  # type: ignore[type-var]  # pandas-stubs: agg may return a tuple
        lambda s: tuple(sorted(set(s))))
    if task_sets.nunique() > 1:
        return pd.concat([bootstrap_ams_ci(df.loc[df["configuration_id"].isin(list(group.index))], cuts, alpha,
                                           n_resamples, seed, level, allow_partial=False)
                          for _, group in task_sets.groupby(task_sets)], ignore_index=True)
    terms = execution_terms(df["reward"].to_numpy(float), df["cost_usd"].to_numpy(float),
                            stratum_codes(df["task_id"], cuts), cuts)
    frame = df[["configuration_id", "task_id"]].assign(tq=terms[:, 0], aubqc=terms[:, 1], efr=terms[:, 2])

    def statistic(means: np.ndarray, tasks: list[str]) -> np.ndarray:
        labels = np.array([cuts.task_strata[t] for t in tasks])
        per_stratum = []
        for s in STRATA:
            mask = labels == s
            if mask.any():
                tq, aubqc, efr = (means[:, mask, j].mean(axis=1) for j in range(3))
                per_stratum.append((alpha * tq + (1 - alpha) * aubqc) * (1 - efr))
        result: np.ndarray = np.mean(per_stratum, axis=0)
        return result

    return bootstrap_ci(frame, statistic, ["tq", "aubqc", "efr"], n_resamples, seed, level, cuts.task_strata)
