"""Statistics (SPEC §8): cluster bootstrap CIs, pass@k / pass^k, rank agreement, frontier, cost-of-pass.

The bootstrap resamples tasks (clusters) with replacement, then executions within each drawn task,
with one seeded generator whose draws are shared by every configuration, so intervals of two
configurations come from the same resampled task sets (paired). Draws are vectorised over resamples;
the only Python loop is over configurations. `task_strata` keeps each stratum's size fixed
(stratified resampling), which AMS needs so no stratum ever empties.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.errors import UserError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


class RankAgreement(NamedTuple):
    spearman: float
    kendall: float
    largest_shift: int
    shifted_item: str | None


def ranks(values: pd.Series) -> pd.Series:
    """Competition ranks, 1 = highest value (ties share the better rank)."""
    return values.rank(method="min", ascending=False).astype(int)


def rank_shifts(a: pd.Series, b: pd.Series) -> pd.Series:
    """rank_b − rank_a per item present in both (positive = fell in b)."""
    common = a.index.intersection(b.index)
    return (ranks(b[common]) - ranks(a[common])).sort_index()


def rank_agreement(a: pd.Series, b: pd.Series) -> RankAgreement:
    """Spearman ρ and Kendall τ (scipy, tie-corrected) plus the largest absolute rank shift."""
    from scipy import stats

    common = a.index.intersection(b.index).sort_values()
    if len(common) < 2:
        return RankAgreement(float("nan"), float("nan"), 0, None)
    x, y = a[common].to_numpy(float), b[common].to_numpy(float)
    rho = float(stats.spearmanr(x, y).statistic) if len(set(x)) > 1 and len(set(y)) > 1 else float("nan")
    tau = float(stats.kendalltau(x, y).statistic) if len(set(x)) > 1 and len(set(y)) > 1 else float("nan")
    shifts = rank_shifts(a[common], b[common]).abs()
    item = str(shifts.idxmax()) if shifts.max() > 0 else None
    return RankAgreement(rho, tau, int(shifts.max()), item)


# ------------------------------------------------------------------ pass@k


def _attempt_counts(n: np.ndarray, c: np.ndarray, k: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(attempts, passes) as int arrays; a UserError when a task has fewer than k attempts."""
    import numpy as np

    n, c = np.asarray(n, int), np.asarray(c, int)
    if (n < k).any():
        raise UserError(f"{what}{k} needs at least {k} attempts per task; some have {int(n.min())}", f"{what}k",
                        "run more attempts or lower k")
    return n, c


def pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Unbiased pass@k = 1 − C(n−c, k)/C(n, k), as a stable product (Chen et al. 2021)."""
    import numpy as np

    n, c = _attempt_counts(n, c, k, "pass@")
    out = np.ones(n.shape)
    for j in range(k):  # loop over k (small), vectorised over tasks
        out *= np.where(n - c - j > 0, (n - c - j) / (n - j), 0.0)
    return 1.0 - out


def pass_hat_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """pass^k = C(c, k)/C(n, k): the chance that k attempts drawn without replacement all pass."""
    import numpy as np

    n, c = _attempt_counts(n, c, k, "pass^")
    out = np.ones(n.shape)
    for j in range(k):
        out *= np.where(c - j > 0, (c - j) / (n - j), 0.0)
    return out


def pass_k_table(df: pd.DataFrame, k: int) -> pd.DataFrame:
    """Per configuration: pass@k and pass^k averaged over tasks (columns pass_at_k, pass_hat_k)."""
    per = df.assign(p=df["reward"] >= 1).groupby(["configuration_id", "task_id"])["p"].agg(["size", "sum"])
    per["pass_at_k"] = pass_at_k(per["size"].to_numpy(), per["sum"].to_numpy(), k)
    per["pass_hat_k"] = pass_hat_k(per["size"].to_numpy(), per["sum"].to_numpy(), k)
    return per.groupby(level="configuration_id")[["pass_at_k", "pass_hat_k"]].mean()


# ------------------------------------------------------------------ frontier and cost-of-pass


def quality_cost_frontier(points: pd.DataFrame, cost_col: str = "cost", reward_col: str = "reward") -> pd.DataFrame:
    """Points on the upper convex hull from (0, 0) in (cost, reward), up to the best reward.

    Points with null cost are left out. Collinear points on a hull edge count as on the frontier;
    points after the highest-reward one (cheapest among equals) are dominated and never on it.
    """
    pts = points.dropna(subset=[cost_col]).sort_values([cost_col, reward_col], ascending=[True, False])
    hull: list[tuple[float, float, object]] = [(0.0, 0.0, None)]
    best = -1.0
    for idx, row in pts.iterrows():
        x, y = float(row[cost_col]), float(row[reward_col])
        if y <= best:
            continue  # dominated: costs at least as much as a point with at least this reward
        best = y
        while len(hull) >= 2:
            (x0, y0, _), (x1, y1, _) = hull[-2], hull[-1]
            # hull[-1] lies strictly below the chord (tolerance: float noise must not drop collinear points)
            if (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) > 1e-12:
                hull.pop()
            else:
                break
        hull.append((x, y, idx))
    return pts.loc[[idx for _, _, idx in hull[1:]]]


def cost_of_pass(df: pd.DataFrame) -> pd.Series:
    """Mean cost per execution / pass rate per configuration; ∞ with no pass, NaN with unknown costs."""
    import numpy as np

    grouped = df.assign(p=(df["reward"] >= 1).astype(float)).groupby("configuration_id")
    mean_cost = grouped["cost_usd"].mean()
    has_null = grouped["cost_usd"].apply(lambda s: s.isna().any())
    rate = grouped["p"].mean()
    out = mean_cost / rate.replace(0, np.nan)
    out[rate == 0] = np.inf
    out[has_null] = np.nan
    return out.rename("cost_of_pass")


# ------------------------------------------------------------------ cluster bootstrap


class Resampled(NamedTuple):
    """Per configuration, resampled per-task means of some value columns: arrays (B, T, k)."""

    configurations: list[str]
    tasks: list[str]
    task_means: dict[str, np.ndarray]


def resample_task_means(df: pd.DataFrame, value_cols: list[str], n_resamples: int = 1000, seed: int = 0,
                        task_strata: Mapping[str, str] | None = None) -> Resampled:
    """Two-stage cluster bootstrap: tasks with replacement (within strata), then executions within task.

    Every configuration must have run every task. Returns, per configuration, an array
    (B, T, k) of resampled per-task means in the order of `tasks` (slot t holds the task drawn there).
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    tasks = sorted(df["task_id"].unique())
    configs = sorted(df["configuration_id"].unique())
    t_index = {t: i for i, t in enumerate(tasks)}
    task_draw = _draw_tasks(rng, tasks, task_strata, n_resamples)  # (B, T) task indices
    n_max = int(df.groupby(["configuration_id", "task_id"]).size().max())
    uniform = rng.random((n_resamples, len(tasks), n_max))  # shared by all configurations
    out = {}
    for cfg in configs:
        rows = df.loc[df["configuration_id"] == cfg]
        ti = rows["task_id"].map(t_index).to_numpy()
        if len(set(ti)) < len(tasks):
            raise UserError(f"configuration {cfg!r} did not run every task", "bootstrap", "bootstrap a common task set")
        order = np.argsort(ti, kind="stable")
        counts = np.bincount(ti, minlength=len(tasks))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        values = rows[value_cols].to_numpy(float)[order]
        n_t = counts[task_draw]  # (B, T)
        pick = np.minimum((uniform * n_t[:, :, None]).astype(int), n_t[:, :, None] - 1)
        valid = np.arange(n_max)[None, None, :] < n_t[:, :, None]
        flat = np.where(valid, starts[task_draw][:, :, None] + pick, 0)
        drawn = values[flat] * valid[..., None]  # (B, T, n_max, k)
        out[cfg] = drawn.sum(axis=2) / n_t[:, :, None]
    return Resampled(configs, tasks, out)


def _draw_tasks(rng: np.random.Generator, tasks: list[str], strata: Mapping[str, str] | None, b: int) -> np.ndarray:
    import numpy as np

    labels = np.array([strata[t] if strata else "" for t in tasks])
    draw = np.empty((b, len(tasks)), dtype=int)
    for label in sorted(set(labels)):
        members = np.flatnonzero(labels == label)
        draw[:, members] = members[rng.integers(0, len(members), size=(b, len(members)))]
    return draw


def percentile_ci(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap samples."""
    import numpy as np

    lo, hi = np.percentile(samples, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def bootstrap_ci(df: pd.DataFrame, statistic: Callable[[np.ndarray, list[str]], np.ndarray], value_cols: list[str],
                 n_resamples: int = 1000, seed: int = 0, level: float = 0.95,
                 task_strata: Mapping[str, str] | None = None) -> pd.DataFrame:
    """CI per configuration of `statistic(task_means (B, T, k), slot_task_ids) -> (B,)`.

    `slot_task_ids` names the stratum/task order of the T slots (draws stay inside strata, so slot t
    always belongs to the stratum of tasks[t]).
    """
    import pandas as pd

    res = resample_task_means(df, value_cols, n_resamples, seed, task_strata)
    rows = []
    for cfg in res.configurations:
        lo, hi = percentile_ci(statistic(res.task_means[cfg], res.tasks), level)
        rows.append({"configuration_id": cfg, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def bootstrap_mean_ci(df: pd.DataFrame, value_col: str = "reward", n_resamples: int = 1000, seed: int = 0,
                      level: float = 0.95) -> pd.DataFrame:
    """CI of the task-macro mean of one column per configuration (e.g. reward, cost_usd)."""
    return bootstrap_ci(df, lambda m, _t: m[:, :, 0].mean(axis=1), [value_col], n_resamples, seed, level)
