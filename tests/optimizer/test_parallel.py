"""Units side by side (`concurrency` > 1): the same bytes as one at a time, resumable, one spend cap."""

from __future__ import annotations

import pytest

from matchmeter.errors import SpendCapReached
from matchmeter.optimizer.pipeline import OptimizeRequest, optimize, state_path
from tests.optimizer.conftest import SOURCE


def request(run, out, **kw) -> OptimizeRequest:
    return OptimizeRequest(runs=[str(run)], sources=[SOURCE], rewriter_model="sim/rewriter", judge_model="sim/judge",
                           out=str(out), use_cache=False, **kw)


def _states(out) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "state").rglob("*.json"))}


def test_side_by_side_units_write_the_same_bytes_and_resume(source_run, tmp_path):
    one = optimize(request(source_run, tmp_path / "seq"), progress=False)
    two = optimize(request(source_run, tmp_path / "par", concurrency=2), progress=False)
    assert (one.units_run, two.units_run) == (2, 2)
    assert (tmp_path / "par" / "descriptions.json").read_bytes() == (tmp_path / "seq" / "descriptions.json").read_bytes()
    assert _states(tmp_path / "par") == _states(tmp_path / "seq")
    assert two.source_side_executions == one.source_side_executions == 4
    assert (two.lm_calls, two.generated, two.eligible) == (one.lm_calls, one.generated, one.eligible)
    state_path(tmp_path / "par", "copy-two", SOURCE).unlink()
    again = optimize(request(source_run, tmp_path / "par", concurrency=2), progress=False)
    assert (again.units_run, again.units_skipped) == (1, 1)
    assert again.source_side_executions == 0  # its executions are stored: only the rewrite and gate rerun
    assert (tmp_path / "par" / "descriptions.json").read_bytes() == (tmp_path / "seq" / "descriptions.json").read_bytes()


def test_one_spend_cap_for_units_side_by_side(source_run, tmp_path):
    with pytest.raises(SpendCapReached):
        optimize(request(source_run, tmp_path / "capped", concurrency=2, spend_cap_usd=1e-9), progress=False)
    assert not (tmp_path / "capped" / "descriptions.json").exists()
