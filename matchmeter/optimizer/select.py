"""Source-side selection (SPEC §4): run eligible candidates on the source configuration only, pick, or keep Original.

`score` turns a description's source-side executions (every seed × attempt of the source run's
request) into a mean reward and a mean cost. `select` is a pure function of the Original's score and
the candidates' scores: the best candidate is the highest reward, then the lowest cost, then the
lowest index; it replaces Original only when its reward is higher, or equal at a strictly lower cost.
Its inputs are source executions only, so no target-side result can reach it.
"""

from __future__ import annotations

from collections.abc import Sequence

from matchmeter.optimizer.records import DescriptionScore, Selection
from matchmeter.schema import ExecutionResult

EPS = 1e-9  # rewards are means of floats: treat differences below this as equal


def score(results: Sequence[ExecutionResult]) -> DescriptionScore:
    """Mean reward and mean cost; the cost is unknown (None) when any execution's cost is."""
    if not results:
        raise ValueError("no source-side executions to score")
    costs = [r.cost.usd for r in results]
    known = [c for c in costs if c is not None]
    cost = sum(known) / len(known) if len(known) == len(costs) else None
    return DescriptionScore(reward=sum(r.reward for r in results) / len(results), cost_usd=cost, n=len(results),
                            execution_keys=sorted(r.execution_key for r in results))


def _cheaper(a: float | None, b: float | None) -> bool:
    """a strictly cheaper than b; an unknown cost is never cheaper than anything."""
    return a is not None and (b is None or a < b - EPS)


def select(original: DescriptionScore, candidates: Sequence[tuple[str, DescriptionScore]]) -> Selection:
    """candidates: (candidate_id, score) in index order. Returns the choice or the fallback with its reason."""
    if not candidates:
        return Selection(fallback=True, reason="no eligible candidate")
    best_id, best = candidates[0]
    for cid, sc in candidates[1:]:
        if sc.reward > best.reward + EPS or (abs(sc.reward - best.reward) <= EPS and _cheaper(sc.cost_usd, best.cost_usd)):
            best_id, best = cid, sc
    if best.reward > original.reward + EPS:
        return Selection(chosen_candidate_id=best_id, fallback=False,
                         reason=f"higher source reward {best.reward:.3f} > {original.reward:.3f}")
    if abs(best.reward - original.reward) <= EPS and _cheaper(best.cost_usd, original.cost_usd):
        return Selection(chosen_candidate_id=best_id, fallback=False,
                         reason=f"equal source reward {best.reward:.3f} at lower cost "
                                f"{best.cost_usd:.6f} < {original.cost_usd}")
    return Selection(fallback=True, reason=f"no candidate beats Original (best reward {best.reward:.3f} vs "
                                           f"{original.reward:.3f}, cost {best.cost_usd} vs {original.cost_usd})")
