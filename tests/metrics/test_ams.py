"""AMS on hand-computed tables: every number below is worked out in the comments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from matchmeter.errors import UserError
from matchmeter.metrics import ams
from matchmeter.metrics.calibration import calibrate
from matchmeter.metrics.table import validate_results
from tests.metrics.fixtures import reference_table, row, scored_table


@pytest.fixture
def cal():
    return calibrate(validate_results(reference_table()))


def test_midrank_percentile_with_ties():
    # x = [200, 100, 500, 500, 1000], n = 5
    # 100: 0 below, 1 equal -> 0.5/5 = 0.1 ; 200: 1 below -> 1.5/5 = 0.3
    # 500 (twice): 2 below, 2 equal -> (2 + 1)/5 = 0.6 ; 1000: 4 below -> 4.5/5 = 0.9
    q = ams.midrank_percentile(np.array([200, 100, 500, 500, 1000]))
    assert q.tolist() == pytest.approx([0.3, 0.1, 0.6, 0.6, 0.9])


def test_effort_index_averages_attempts_first():
    eff = ams.effort_index(validate_results(reference_table()))
    # attempt means of A: t1 tok (100+300)/2 = 200, steps 3; B t1: 200, 3 -> medians 200 / 3
    # t3: A (400, 6, reward 0.5), B (600, 8, reward 0) -> m_tok 500, m_step 7, z = 1/2 (only B fails)
    assert eff.loc["t1", ["m_tok", "m_step", "z"]].tolist() == [200, 3, 0]
    assert eff.loc["t3", ["m_tok", "m_step", "z"]].tolist() == [500, 7, 0.5]
    # q_z: z = [0, 0, .5, 0, 1] -> zeros 1.5/5 = 0.3, t3 3.5/5 = 0.7, t5 4.5/5 = 0.9
    # e(t1) = (.3 + .3 + .3)/3 = .3 ; e(t2) = (.1 + .1 + .3)/3 ; e(t3) = (.6 + .6 + .7)/3
    # e(t4) = (.6 + .6 + .3)/3 = .5 ; e(t5) = .9
    assert eff["effort"].to_dict() == pytest.approx(
        {"t1": 0.3, "t2": 0.5 / 3, "t3": 1.9 / 3, "t4": 0.5, "t5": 0.9})


def test_uneven_strata_earlier_take_extras(cal):
    # order by effort: t2 .167, t1 .3, t4 .5, t3 .633, t5 .9 ; 5 = 2 + 2 + 1
    assert {t.task_id: t.stratum for t in cal.tasks} == {
        "t2": "easy", "t1": "easy", "t4": "medium", "t3": "medium", "t5": "hard"}
    assert [cal.strata[s].n_tasks for s in ams.STRATA] == [2, 2, 1]


def test_strata_ties_broken_by_task_id():
    # c .1 < a = b .5 < d .9 ; ties sorted a before b ; 4 tasks = 2 + 1 + 1
    out = ams.assign_strata(pd.Series({"b": 0.5, "a": 0.5, "c": 0.1, "d": 0.9}))
    assert out == {"c": "easy", "a": "easy", "b": "medium", "d": "hard"}


def test_too_few_tasks_is_user_error():
    with pytest.raises(UserError, match="only 2 reference task"):
        ams.assign_strata(pd.Series({"a": 0.1, "b": 0.2}))


def test_budget_grids_and_thresholds(cal):
    # easy C+ sorted [.1 .1 .1 .1 .2 .3], n = 6, linear: position h = 5p
    # p .1-.6 -> h <= 3 -> .1 ; p .7 -> h 3.5 -> .1 + .5*(.2-.1) = .15 ; .8 -> .2 ; .9 -> h 4.5 -> .25 ; 1 -> .3
    assert cal.strata["easy"].budget_grid == pytest.approx([0.1, 0.15, 0.2, 0.25, 0.3])
    # easy C0 is empty -> eta = max easy reference cost = .3
    assert cal.strata["easy"].eta == pytest.approx(0.3)
    # medium C+ [.4 .4 .4 .6], h = 3p: p .7 -> 2.1 -> .42 ; .8 -> 2.4 -> .48 ; .9 -> 2.7 -> .54 ; 1 -> .6
    assert cal.strata["medium"].budget_grid == pytest.approx([0.4, 0.42, 0.48, 0.54, 0.6])
    # medium C0 [.4 .6]: 0.75 quantile, h = .75 -> .4 + .75*.2 = .55
    assert cal.strata["medium"].eta == pytest.approx(0.55)
    # hard: nothing rewarded -> grid {inf}; C0 [1 1 2]: h = 1.5 -> 1 + .5*1 = 1.5
    assert cal.strata["hard"].budget_grid == [float("inf")]
    assert cal.strata["hard"].eta == pytest.approx(1.5)
    assert (cal.strata["medium"].n_rewarded, cal.strata["medium"].n_zero) == (4, 2)


def test_score_hand_computed(cal):
    table = ams.score(validate_results(scored_table()), cal.cuts()).table.set_index("configuration_id")
    x = table.loc["X"]
    # easy: t1 attempts (R 1, C .12) and (R .5, C .28); t2 (R 0, C .35)
    #   TQ = ((1 + .5)/2 + 0)/2 = .375
    #   AUBQC: .12 <= 4 of 5 budgets -> 1*.8 ; .28 <= 1 of 5 -> .5*.2 = .1 ; t1 = .45, t2 = 0 -> .225
    #   EFR: t2 failed at .35 > eta .3 -> (0 + 1)/2 = .5
    #   AMS_easy = (.5*.375 + .5*.225) * (1 - .5) = .15
    assert (x.tq_easy, x.aubqc_easy, x.efr_easy, x.ams_easy) == pytest.approx((0.375, 0.225, 0.5, 0.15))
    # medium: t3 (R 1, C .45 <= .48 .54 .6 -> 3/5) ; t4 two zero-reward attempts at .50 and .60, eta .55
    #   TQ = (1 + 0)/2 = .5 ; AUBQC = (.6 + 0)/2 = .3 ; EFR = (0 + (0 + 1)/2)/2 = .25
    #   AMS_medium = (.25 + .15) * .75 = .3
    assert (x.tq_medium, x.aubqc_medium, x.efr_medium, x.ams_medium) == pytest.approx((0.5, 0.3, 0.25, 0.3))
    # hard: t5 (R .5, C 5) under the single budget inf -> AUBQC .5, TQ .5, EFR 0 -> AMS .5
    assert (x.tq_hard, x.aubqc_hard, x.efr_hard, x.ams_hard) == pytest.approx((0.5, 0.5, 0.0, 0.5))
    # macro: (.15 + .3 + .5)/3
    assert x.ams == pytest.approx(0.95 / 3)
    assert (x.n_executions, x.n_tasks, x["rank"]) == (7, 5, 2)
    # Y passes everything at .05 <= every budget -> 1 in every stratum
    assert table.loc["Y", "ams"] == pytest.approx(1.0)
    assert table.loc["Y", "rank"] == 1


def test_alpha_one_is_tq_times_one_minus_efr(cal):
    x = ams.score(validate_results(scored_table()), cal.cuts(), alpha=1.0).table.set_index("configuration_id").loc["X"]
    # (.375*.5 + .5*.75 + .5*1)/3
    assert x.ams == pytest.approx((0.1875 + 0.375 + 0.5) / 3)


def test_pooled_units_average_within_unit_first(cal):
    # t3 for P: source a has attempts R 1, 1, 0 ; source b has one attempt R 0 (all at C .45)
    # unit means 2/3 and 0 -> task TQ 1/3 (a plain mean over four executions would give 2/4)
    rows = [row("P", "t3", r, 0.45, attempt=i, source="a") for i, r in enumerate((1.0, 1.0, 0.0))]
    rows.append(row("P", "t3", 0.0, 0.45, source="b"))
    df = validate_results(pd.DataFrame(rows))
    assert ams.execution_weights(df, "source").tolist() == pytest.approx([1 / 6, 1 / 6, 1 / 6, 1 / 2])
    comp = ams.components(df, cal.cuts(), unit_col="source", require_all=False).set_index("stratum")
    assert comp.loc["medium", "tq"] == pytest.approx(1 / 3)
    # AUBQC: .45 <= 3 of 5 medium budgets -> unit a (2/3)*.6 = .4, unit b 0 -> task .2
    # EFR: the zeros cost .45 <= eta .55 -> 0
    assert comp.loc["medium", "aubqc"] == pytest.approx(0.2)
    assert comp.loc["medium", "efr"] == 0.0
    # only medium has a task: refused by default; with allow_partial the macro is that one stratum, the
    # others are NaN in the table, and the row says PARTIAL
    with pytest.raises(UserError, match="configuration 'P' lacks 4 of 5 calibrated tasks"):
        ams.score(df, cal.cuts(), unit_col="source")
    table = ams.score(df, cal.cuts(), unit_col="source", allow_partial=True).table
    assert table.loc[0, "coverage"] == "PARTIAL"
    assert table.loc[0, "ams"] == pytest.approx((0.5 / 3 + 0.5 * 0.2) * 1.0)
    assert np.isnan(table.loc[0, "ams_easy"])


def test_null_cost_configuration_is_excluded_with_reason(cal):
    df = scored_table()
    df.loc[(df.configuration_id == "X") & (df.task_id == "t2"), "cost_usd"] = None
    df["cost_null_reason"] = None
    df.loc[df.cost_usd.isna(), "cost_null_reason"] = "model not in price table"
    scores = ams.score(validate_results(df), cal.cuts())
    assert scores.table["configuration_id"].tolist() == ["Y"]
    assert scores.excluded == {"X": "1 execution(s) with unknown cost (model not in price table); AUBQC and EFR need costs"}


def test_uncovered_task_is_user_error(cal):
    df = pd.concat([scored_table(), pd.DataFrame([row("X", "t9", 1.0, 0.1), row("Y", "t9", 1.0, 0.1)])])
    with pytest.raises(UserError, match=r"1 scored task\(s\) are not in the calibration \(e.g. t9\)"):
        ams.score(validate_results(df), cal.cuts())


def test_configuration_missing_a_task_is_user_error(cal):
    df = scored_table()
    df = df.loc[~((df.configuration_id == "Y") & (df.task_id == "t4"))]
    with pytest.raises(UserError, match=r"^configuration 'Y' lacks 1 of 5 calibrated tasks: t4 \(medium\) \(results table\): .*--allow-partial"):
        ams.score(validate_results(df), cal.cuts())


def test_ablations_winner_rho_and_shift(cal):
    df = scored_table()
    # Z: every task at C .3; rewarded 1 except t5 (R .5)
    rows = [row("Z", t, 1.0, 0.3) for t in ("t1", "t2", "t3", "t4")] + [row("Z", "t5", 0.5, 0.3)]
    df = pd.concat([df, pd.DataFrame(rows)])
    out = ams.ablations(validate_results(df), cal.cuts()).set_index("variant")
    # Z: easy .3 <= only the last budget -> AUBQC .2 ; medium .3 <= all five -> 1 ; hard R .5 under inf -> .5
    #   full = ((.5+.1) + 1 + .5)/3 = .7 ; X full = .3167 ; Y = 1 -> ranking Y, Z, X
    #   no AUBQC (alpha 1): Z (1 + 1 + .5)/3 = .833 ; X (.1875 + .375 + .5)/3 = .354
    #   no TQ (alpha 0): Z = (.2 + 1 + .5)/3 = .567 ; X = (.225*.5 + .3*.75 + .5)/3 = .279
    #   no EFR: Z .7 ; X (.3 + .4 + .5)/3 = .4 -> the same order everywhere
    assert out.loc["no_tq", "winner"] == "Y"
    assert out.loc["no_tq", "winner_ams"] == pytest.approx(1.0)
    assert out["spearman"].tolist() == pytest.approx([1.0] * 4)
    assert out["largest_rank_shift"].tolist() == [0, 0, 0, 0]


def test_ablation_rank_shift_detected(cal):
    # U: cheap (AUBQC 1 where rewarded) but fails t2 expensively ; V: passes all, easy at .3,
    # medium at .7 (above every medium budget), hard at 5 (inside the single budget inf)
    rows = [row("U", t, 1.0, 0.05) for t in ("t1", "t3", "t4", "t5")] + [row("U", "t2", 0.0, 0.9)]
    rows += [row("V", t, 1.0, c) for t, c in (("t1", 0.3), ("t2", 0.3), ("t3", 0.7), ("t4", 0.7), ("t5", 5.0))]
    out = ams.ablations(validate_results(pd.DataFrame(rows)), cal.cuts()).set_index("variant")
    # U easy: TQ .5, AUBQC .5, EFR .5 -> .25 ; medium 1 ; hard 1 -> full (.25+1+1)/3 = .75
    # V easy: TQ 1, AUBQC .2 -> .6 ; medium: TQ 1, AUBQC 0 -> .5 ; hard 1 -> full 2.1/3 = .7  => U first
    # no EFR: U easy .5 -> (0.5+1+1)/3 = .833 ; no AUBQC: U (.5*.5 + 1 + 1)/3 = .75, V 1 -> V first
    assert out.loc["full", "winner"] == "U"
    assert out.loc["no_aubqc", "winner"] == "V"
    assert out.loc["no_aubqc", "largest_rank_shift"] == 1
    assert out.loc["no_aubqc", "spearman"] == pytest.approx(-1.0)
    assert out.loc["no_efr", "spearman"] == pytest.approx(1.0)
