"""`matchmeter view` pages through Flask's test client: pagination on a large results table, and the
optimizer audit showing a gate's contract items only when the stored verdict carries them."""

from __future__ import annotations

import json
import re

import pytest

from matchmeter.errors import UserError
from matchmeter.metrics.synthetic import synthetic_results
from matchmeter.report.view import GRID_TASKS_PER_PAGE, ROWS_PER_PAGE, create_app
from matchmeter.report.viewdata import open_library


def client(*paths):
    return create_app(open_library(paths)).test_client()


def test_grid_and_executions_are_paginated(tmp_path):
    run = tmp_path / "big"
    run.mkdir()
    synthetic_results(n_configs=3, n_tasks=100, n_attempts=2, seed=1).to_parquet(run / "results.parquet")
    c = client(run)
    first = c.get("/run/big").get_data(as_text=True)
    assert "page 1 of 3 (100 in all)" in first
    assert first.count('<th class="t">') == GRID_TASKS_PER_PAGE
    assert 'rel="next"' in first
    last = c.get("/run/big?page=3").get_data(as_text=True)
    assert last.count('<th class="t">') == 100 - 2 * GRID_TASKS_PER_PAGE
    assert 'rel="next"' not in last
    assert ">task099<" in last
    assert c.get("/run/big?page=99").get_data(as_text=True).count('<th class="t">') == 20  # clamped to the last page
    rows = c.get("/run/big/executions?cfg=cfg01&page=2").get_data(as_text=True)
    assert "page 2 of 2 (200 in all)" in rows
    assert len(re.findall(r'<input type="radio" name="a"', rows)) == 200 - ROWS_PER_PAGE
    assert c.get("/run/nope").status_code == 404


def _state(verdict_extra: dict) -> dict:
    verdict = {"candidate_id": "c1", "task_id": "t1", "source": "s", "rules": [{"rule": "length", "passed": True,
               "reasons": []}], "votes": [{"index": 0, "passed": False, "verdict": "material", "reason": "drops a path"}],
               "decision": "reject", "rejected_by": "judge", "reasons": ["judge:material"], **verdict_extra}
    return {"task_id": "t1", "source": "s", "original_text": "Copy a to b.\n",
            "rewrite": {"candidates": [{"candidate_id": "c1", "text": "Copy a to b quickly.\n"}]},
            "verdicts": [verdict], "selection": {"chosen_candidate_id": None, "fallback": True, "reason": "none passed"}}


@pytest.mark.parametrize("contract", [None, {"keeps_paths": "a, b", "output_format": "unchanged"}])
def test_audit_shows_contract_items_only_when_stored(tmp_path, contract):
    descset = tmp_path / "set"
    (descset / "state" / "t1").mkdir(parents=True)
    state = _state({"contract": contract} if contract else {})
    (descset / "state" / "t1" / "s.json").write_text(json.dumps(state))
    html = client(descset).get("/set/set").get_data(as_text=True)
    assert "rejected by judge" in html
    assert "judge:material" in html
    assert "drops a path" in html
    assert '<span class="minus">-Copy a to b.</span>' in html
    assert '<span class="plus">+Copy a to b quickly.</span>' in html
    assert ("<h3>contract</h3>" in html) == bool(contract)
    if contract:
        assert "<tr><th>output_format</th><td>unchanged</td></tr>" in html


def test_broken_state_file_is_an_error_entry(tmp_path):
    descset = tmp_path / "set"
    (descset / "state" / "t1").mkdir(parents=True)
    (descset / "state" / "t1" / "s.json").write_text("{")
    (descset / "state" / "t1" / "ok.json").write_text(json.dumps(_state({})))
    html = client(descset).get("/set/set").get_data(as_text=True)
    assert "s.json is unreadable" in html
    assert "judge:material" in html


def test_unknown_path_is_a_user_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="not a run directory, description set or calibration file"):
        open_library([tmp_path / "empty"])
