"""Fairness (HDR, CB-HDR, HDR-C) and transport (RR/RN/NN) on hand-computed tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from matchmeter.metrics.fairness import fairness_table, spend_credit
from matchmeter.metrics.transport import escaped_mismatches, transport_table


def test_spend_credit_braking():
    # m = 100: full up to 500, linear to 0 at 1000
    assert spend_credit([100, 500, 750, 1000, 2000], [100] * 5).tolist() == [1.0, 1.0, 0.5, 0.0, 0.0]
    # m = 0: only a zero spend keeps credit
    assert spend_credit([0, 5], [0, 0]).tolist() == [1.0, 0.0]


def _fair_rows():
    rows = [
        # cfg, task, reward, tokens, cost, agent_s
        ("A", "t1", 1, 100, 0.1, 10), ("B", "t1", 1, 300, 0.3, 20), ("C", "t1", 1, 2000, 0.2, 30),
        ("A", "t2", 0, 50, 0.05, 40), ("B", "t2", 1, 5000, 1.0, 50), ("C", "t2", 1, 100, 0.5, 60),
    ]
    return pd.DataFrame(rows, columns=["configuration_id", "task_id", "reward", "tokens_total", "cost_usd", "agent_s"])


def test_fairness_hand_computed():
    out = fairness_table(_fair_rows()).set_index("configuration_id")
    # t1 passers' median tokens 300 -> C at 2000 is past 5*300 = 1500: (3000 - 2000)/1500 = 2/3
    # t2 passers' median tokens (5000 + 100)/2 = 2550 -> both keep full credit
    assert out["hdr"].to_dict() == pytest.approx({"A": 0.5, "B": 1.0, "C": 1.0})
    assert out["cb_hdr"].to_dict() == pytest.approx({"A": 0.5, "B": 1.0, "C": (2 / 3 + 1) / 2})
    # passer-median cost: t1 median(.1, .3, .2) = .2 ; t2 median(1.0, .5) = .75
    # A: t1 .1 <= .2 -> 1, t2 fail -> .5 ; B: .3 > .2, 1.0 > .75 -> 0 ; C: .2 <= .2, .5 <= .75 -> 1
    assert out["hdr_c"].to_dict() == pytest.approx({"A": 0.5, "B": 0.0, "C": 1.0})
    assert out["p50_latency_s"].to_dict() == {"A": 25.0, "B": 35.0, "C": 45.0}
    assert "p50_lines_touched" not in out.columns


def test_fairness_unknown_cost_pass_and_lines_touched():
    df = _fair_rows().assign(lines_touched=[1, 2, 3, 4, 5, 6])
    df.loc[1, "cost_usd"] = None  # B's pass on t1
    out = fairness_table(df).set_index("configuration_id")
    # t1 passer-median cost over known costs: median(.1, .2) = .15 -> C's .2 no longer counts
    assert math.isnan(out.loc["B", "hdr_c"])
    assert out.loc["C", "hdr_c"] == pytest.approx(0.5)
    assert out["p50_lines_touched"].to_dict() == {"A": 2.5, "B": 3.5, "C": 4.5}


def _transport_rows():
    rows = [
        # contract, transport, task, attempt, reward, exit_code_zero
        ("raw", "raw", "t1", 0, 1.0, True), ("raw", "raw", "t2", 0, 1.0, True),
        ("raw", "nested", "t1", 0, 1.0, True), ("raw", "nested", "t2", 0, 0.0, True),
        ("disclosed", "nested", "t1", 0, 1.0, True), ("disclosed", "nested", "t2", 0, 1.0, True),
        ("disclosed", "nested", "t2", 1, 0.5, False),
        ("raw", "escaped", "t1", 0, 1.0, True), ("raw", "escaped", "t2", 0, 0.0, False),
    ]
    df = pd.DataFrame(rows, columns=["contract", "transport", "task_id", "attempt", "reward", "exit_code_zero"])
    return df.assign(model="m")


def test_transport_hand_computed():
    out = transport_table(_transport_rows()).set_index("model").loc["m"]
    # RR: both pass -> 1 ; RN: t1 pass, t2 fail -> .5 ; NN: t1 1, t2 attempts (1, 0) -> .5 -> (1 + .5)/2 = .75
    assert (out.rr, out.rn, out.nn) == (1.0, 0.5, 0.75)
    # damage RN-RR = -.5 ; compensation NN-RN = .25 ; matched gap NN-RR = -.25
    assert (out.damage, out.compensation, out.matched_gap) == (-0.5, 0.25, -0.25)
    # failures: RN one, exited 0 -> 1 ; NN one (R .5), exited non-zero -> 0 ; RR none -> NaN
    assert (out.exit0_wrong_rn, out.exit0_wrong_nn) == (1.0, 0.0)
    assert math.isnan(out.exit0_wrong_rr)


def test_escaped_must_reproduce_raw():
    mism = escaped_mismatches(_transport_rows())
    # t1 agrees (1 = 1) ; t2 raw passed, escaped failed -> one mismatch
    assert mism[["task_id", "reward_raw", "reward_escaped"]].values.tolist() == [["t2", 1.0, 0.0]]
