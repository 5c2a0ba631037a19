"""Hand-computed tables shared by the metrics tests (arithmetic in test_ams.py)."""

from __future__ import annotations

import pandas as pd


def row(cfg: str, task: str, reward: float, cost: float | None, tokens: int = 100, steps: int = 2, attempt: int = 0,
        **extra) -> dict:
    return {"configuration_id": cfg, "task_id": task, "reward": reward, "cost_usd": cost, "tokens_total": tokens,
            "n_steps": steps, "attempt": attempt, "description_origin": "original", **extra}


def reference_table() -> pd.DataFrame:
    """Reference configs A (two attempts) and B (one attempt) on five tasks t1..t5."""
    rows = [
        # task, A attempt 0, A attempt 1, B  as (tokens, steps, reward, cost)
        *_task("t1", (100, 2, 1, 0.10), (300, 4, 1, 0.30), (200, 3, 1, 0.20)),
        *_task("t2", (100, 2, 1, 0.10), (100, 2, 1, 0.10), (100, 2, 1, 0.10)),
        *_task("t3", (400, 6, 0, 0.40), (400, 6, 1, 0.40), (600, 8, 0, 0.60)),
        *_task("t4", (400, 6, 0.5, 0.40), (400, 6, 0.5, 0.40), (600, 8, 1, 0.60)),
        *_task("t5", (1000, 10, 0, 1.0), (1000, 10, 0, 1.0), (1000, 10, 0, 2.0)),
    ]
    return pd.DataFrame(rows)


def _task(task: str, a0: tuple, a1: tuple, b: tuple) -> list[dict]:
    return [row("A", task, a0[2], a0[3], a0[0], a0[1], 0), row("A", task, a1[2], a1[3], a1[0], a1[1], 1),
            row("B", task, b[2], b[3], b[0], b[1], 0)]


def scored_table() -> pd.DataFrame:
    """Configuration X (uneven attempts) and Y (perfect and cheap) on t1..t5."""
    rows = [
        row("X", "t1", 1.0, 0.12, attempt=0), row("X", "t1", 0.5, 0.28, attempt=1),
        row("X", "t2", 0.0, 0.35),
        row("X", "t3", 1.0, 0.45),
        row("X", "t4", 0.0, 0.50, attempt=0), row("X", "t4", 0.0, 0.60, attempt=1),
        row("X", "t5", 0.5, 5.0),
        *[row("Y", t, 1.0, 0.05) for t in ("t1", "t2", "t3", "t4", "t5")],
    ]
    return pd.DataFrame(rows)
