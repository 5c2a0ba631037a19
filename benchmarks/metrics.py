"""Benchmark: vectorised AMS and Adapted-1 beside straightforward per-row / per-draw loops.

Run: `.venv/bin/python benchmarks/metrics.py [--repeats 5]`. Prints the median time of each
implementation over the repeats and the speed-up, and checks the two agree to 1e-9.
Sizes follow issue 4: AMS on 28 configurations × 80 tasks × 5 attempts; Adapted-1 with 10,000
draws over 4 targets × 16 tasks × 4 sources. The loop versions are also the tests' references.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from matchmeter.metrics import ams, conditions  # noqa: E402
from matchmeter.metrics.calibration import calibrate  # noqa: E402
from matchmeter.metrics.synthetic import synthetic_conditions, synthetic_results  # noqa: E402
from matchmeter.metrics.table import validate_results  # noqa: E402


def ams_loop(df, cuts: ams.StrataCuts, alpha: float = 0.5) -> dict[str, float]:
    """Macro AMS per configuration, one Python loop over rows, tasks and budgets."""
    per_task: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for cfg, task, r, c in zip(df["configuration_id"], df["task_id"], df["reward"], df["cost_usd"], strict=True):
        per_task.setdefault((cfg, task), []).append((r, c))
    out = {}
    for cfg in sorted(set(df["configuration_id"])):
        stratum_scores = []
        for s in ams.STRATA:
            tasks = [t for (g, t) in per_task if g == cfg and cuts.task_strata[t] == s]
            if not tasks:
                continue
            tq = aubqc = efr = 0.0
            for t in tasks:
                execs = per_task[(cfg, t)]
                tq += sum(r for r, _ in execs) / len(execs)
                budgets = cuts.grids[s]
                aubqc += sum(sum(r for r, c in execs if c <= b) / len(execs) for b in budgets) / len(budgets)
                efr += sum(1 for r, c in execs if r == 0 and c > cuts.etas[s]) / len(execs)
            tq, aubqc, efr = tq / len(tasks), aubqc / len(tasks), efr / len(tasks)
            stratum_scores.append((alpha * tq + (1 - alpha) * aubqc) * (1 - efr))
        out[cfg] = sum(stratum_scores) / len(stratum_scores)
    return out


def adapted_one_loop(df, cuts: ams.StrataCuts, alpha: float = 0.5, n_draws: int = 10_000, seed: int = 0):
    """Adapted-1 with one Python iteration per draw (same draws as the vectorised version)."""
    x, targets, tasks, sources = conditions.unit_terms(df, cuts)
    draws = np.random.default_rng(seed).integers(0, len(sources), size=(n_draws, len(tasks)))
    strata = [cuts.task_strata[t] for t in tasks]
    present = [s for s in ams.STRATA if s in strata]

    def macro(task_terms):  # task_terms[g][t] = (tq, aubqc, efr)
        scores = []
        for g in range(len(targets)):
            per = []
            for s in present:
                idx = [t for t in range(len(tasks)) if strata[t] == s]
                tq, au, ef = (sum(task_terms[g][t][j] for t in idx) / len(idx) for j in range(3))
                per.append((alpha * tq + (1 - alpha) * au) * (1 - ef))
            scores.append(sum(per) / len(per))
        return scores

    pooled = macro([[x[g, t].mean(axis=0) for t in range(len(tasks))] for g in range(len(targets))])
    pooled_order = [sum(round(o, 12) > round(p, 12) for o in pooled) for p in pooled]
    first = [0.0] * len(targets)
    exact = 0
    for d in draws:
        scores = macro([[x[g, t, d[t]] for t in range(len(tasks))] for g in range(len(targets))])
        rounded = [round(v, 12) for v in scores]
        best = max(rounded)
        winners = [g for g, v in enumerate(rounded) if v == best]
        for g in winners:
            first[g] += 1 / len(winners)
        exact += [sum(o > p for o in rounded) for p in rounded] == pooled_order
    return dict(zip(targets, (f / n_draws for f in first), strict=True)), exact / n_draws


def _median_time(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats

    df = validate_results(synthetic_results(28, 80, 5, seed=0))
    cuts = calibrate(df).cuts()
    t_vec, scores = _median_time(lambda: ams.score(df, cuts).table.set_index("configuration_id")["ams"], repeats)
    t_loop, looped = _median_time(lambda: ams_loop(df, cuts), repeats)
    assert max(abs(scores[c] - v) for c, v in looped.items()) < 1e-9
    print(f"AMS 28 cfg x 80 tasks x 5 attempts ({len(df)} rows): vectorised {t_vec * 1e3:.1f} ms, "
          f"loop {t_loop * 1e3:.1f} ms, speed-up {t_loop / t_vec:.1f}x")

    cond = validate_results(synthetic_conditions(4, 16, 4, n_attempts=1, seed=0))
    ccuts = calibrate(cond.loc[cond["condition"] == "original"]).cuts()
    t_vec, a1 = _median_time(lambda: conditions.adapted_one(cond, ccuts, n_draws=10_000, seed=0), repeats)
    t_loop, (first, exact) = _median_time(lambda: adapted_one_loop(cond, ccuts, n_draws=10_000, seed=0), repeats)
    assert max(abs(a1.first_share[g] - v) for g, v in first.items()) < 1e-9
    assert abs(a1.exact_order_share - exact) < 1e-9
    print(f"Adapted-1 10,000 draws, 4 targets x 16 tasks x 4 sources: vectorised {t_vec * 1e3:.1f} ms, "
          f"loop {t_loop * 1e3:.1f} ms, speed-up {t_loop / t_vec:.1f}x")
    shares = {g: round(float(v), 4) for g, v in a1.first_share.items()}
    print(f"  first-place shares {shares}, exact-ordering share {a1.exact_order_share:.4f}")


if __name__ == "__main__":
    main()
