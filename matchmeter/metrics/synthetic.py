"""Seeded synthetic results tables for tests and benchmarks (never for reported numbers).

Rows carry the columns of `ExecutionResult.to_row()` that metrics read, with plausible structure:
each configuration has a skill and a price level, each task a difficulty, so rewards and costs are
correlated the way real runs are and strata, grids and thresholds come out non-trivial.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def synthetic_results(n_configs: int = 4, n_tasks: int = 12, n_attempts: int = 3, seed: int = 0,
                      null_cost_configs: int = 0) -> pd.DataFrame:
    """configurations × tasks × attempts executions on Original descriptions."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    cfg = np.repeat(np.arange(n_configs), n_tasks * n_attempts)
    task = np.tile(np.repeat(np.arange(n_tasks), n_attempts), n_configs)
    attempt = np.tile(np.arange(n_attempts), n_configs * n_tasks)
    skill = rng.uniform(0.2, 0.9, n_configs)[cfg]
    price = rng.uniform(0.002, 0.05, n_configs)[cfg]
    hard = rng.uniform(0, 1, n_tasks)[task]
    p = np.clip(skill - 0.6 * hard + rng.normal(0, 0.1, cfg.size), 0.02, 0.98)
    reward = np.where(rng.random(cfg.size) < p, 1.0, np.round(rng.choice([0.0, 0.0, 0.5], cfg.size), 2))
    steps = rng.poisson(4 + 20 * hard) + 1
    tokens = (steps * rng.uniform(800, 3000, cfg.size)).astype(int)
    cost = np.round(tokens / 1000 * price, 6)
    frame = pd.DataFrame({
        "run_id": "synthetic", "configuration_id": [f"cfg{i:02d}" for i in cfg],
        "model": [f"sim/model-{i:02d}" for i in cfg], "agent": "bash", "contract": "raw", "transport": "raw",
        "task_id": [f"task{i:03d}" for i in task], "source_family": np.array(["terminal", "skills", "data-analysis", "quoting"])[task % 4],
        "description_sha256": [f"d{i:03d}" for i in task], "description_origin": "original", "seed": 0,
        "attempt": attempt, "reward": reward, "passed": reward >= 1, "cost_usd": cost, "cost_null_reason": None,
        "tokens_total": tokens, "n_steps": steps, "wall_s": steps * 2.0, "agent_s": steps * 1.8,
        "failure_mode": "none", "trusted": True, "simulated": True,
    })
    if null_cost_configs:
        nulls = frame["configuration_id"].isin([f"cfg{i:02d}" for i in range(n_configs - null_cost_configs, n_configs)])
        frame.loc[nulls, "cost_usd"] = np.nan
        frame.loc[nulls, "cost_null_reason"] = "model not in price table"
    frame["execution_key"] = [f"s{seed}k{i:06d}" for i in range(len(frame))]  # seeds draw different executions
    return frame


def synthetic_conditions(n_targets: int = 4, n_tasks: int = 16, n_sources: int = 4, n_attempts: int = 1,
                         seed: int = 0) -> pd.DataFrame:
    """Original, Pooled (one unit per source) and Generic executions; sources are the first targets."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.3, 0.9, n_targets)
    hard = rng.uniform(0, 1, n_tasks)
    boost = rng.normal(0.05, 0.1, (n_targets, n_tasks, n_sources))
    rows = []
    for g in range(n_targets):
        for t in range(n_tasks):
            units: list[tuple[str, str | None, float]] = [("original", None, 0.0), ("generic", None, 0.02)]
            units += [("pooled", f"cfg{k:02d}", boost[g, t, k]) for k in range(n_sources)]
            for cond, source, lift in units:
                for a in range(n_attempts):
                    p = np.clip(skill[g] - 0.6 * hard[t] + lift, 0.02, 0.98)
                    reward = 1.0 if rng.random() < p else float(rng.choice([0.0, 0.5]))
                    cost = round(float(rng.uniform(0.01, 0.2) * (1 + 2 * hard[t])), 6)
                    rows.append({"configuration_id": f"cfg{g:02d}", "task_id": f"task{t:03d}", "condition": cond,
                                 "source": source, "attempt": a, "reward": reward, "cost_usd": cost,
                                 "tokens_total": int(cost * 1e5), "n_steps": int(3 + 10 * hard[t])})
    return pd.DataFrame(rows)
