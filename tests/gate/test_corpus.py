"""The labelled gate corpus: its shape, its fixed split, the rules' numbers on the held-out fifth, and
`matchmeter gate eval` through the console script with the SIMULATED judge over real loopback HTTP."""

from __future__ import annotations

import json
import os
import random
from collections import Counter

from matchmeter.gate.corpus.make_corpus import SEED, TEST_FRACTION
from matchmeter.gate.evaluate import CORPUS, RULE_KINDS, evaluate, frozen_originals, load_corpus, tabulate
from matchmeter.schema import sha256_text
from matchmeter.tasks.loader import builtin_suite_dir
from tests.helpers.warm_cli import run_matchmeter

ISSUE_KINDS = {*RULE_KINDS, "length", "widened_criteria", "inverted_precedence", "first_last", "case_insensitive",
               "added_requirement"}


def test_corpus_shape_and_fixed_split():
    meta, cases = load_corpus()
    labels = Counter(c["label"] for c in cases)
    assert len(cases) >= 200
    assert labels["faithful"] * 10 >= 4 * labels["unfaithful"]
    assert {c["kind"] for c in cases if c["label"] == "unfaithful"} >= ISSUE_KINDS
    assert meta["seed"] == SEED
    test = [c for c in cases if c["split"] == "test"]
    assert len(test) == round(0.2 * len(cases))
    # the split is the seeded shuffle of the case indices the generator applied: nobody moved a case between
    # splits. (The cases themselves are frozen data: written against the descriptions kept in originals.json
    # and the reference paths of that day, so a rebuild today would draw different ones.)
    order = list(range(len(cases)))
    random.Random(SEED).shuffle(order)
    held_out = {f"c{i:03d}" for i in order[: round(TEST_FRACTION * len(cases))]}
    assert {c["id"] for c in test} == held_out
    assert all(c["original_sha256"] == sha256_text(frozen_originals()[c["task"]]) for c in cases)


def test_rules_on_the_held_out_fifth():
    _, cases = load_corpus()
    test = [c for c in cases if c["split"] == "test"]
    report = tabulate(evaluate(test, suite=builtin_suite_dir()), corpus="built-in", split="test", judge_model=None,
                      simulated=False)
    caught, total = report.rate("rules", RULE_KINDS)
    assert total >= 20  # 24 since gate v3 (length is the judge's: a warning, no longer a rule kind)
    assert caught / total >= 0.95
    assert report.rate("rules", label="faithful")[0] == 0


def test_gate_eval_cli_with_the_simulated_judge(tmp_path):
    _, cases = load_corpus()
    picked = [next(c for c in cases if c["kind"] == k) for k in ("literal", "command_leak", "first_last")]
    picked.append(next(c for c in cases if c["label"] == "faithful"))
    corpus = tmp_path / "mini.jsonl"
    corpus.write_text("\n".join(json.dumps(c) for c in picked) + "\n")
    env = {**os.environ, "MATCHMETER_CACHE_DIR": str(tmp_path / "cache")}
    done = run_matchmeter("gate", "eval", "--judge-model", "sim/judge",
                           "--corpus", str(corpus), "--split", "all", timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "rules: caught 2/2 [" in out
    assert "false rejections 0/1 [0%–79%] faithful" in out
    assert "SIMULATED judge (string checks, no semantic check)" in out
    assert "first_last" in out
    assert "judge cost $" in out


def test_bad_corpus_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "task": "du-top-dirs"}\n')
    done = run_matchmeter("gate", "eval", "--corpus", str(bad), timeout=120)
    assert done.returncode == 2
    assert "gate corpus line 1 lacks" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert CORPUS.is_file()


def test_an_unmeasured_real_judge_is_stated_as_not_qualified(tmp_path, monkeypatch):
    from matchmeter.optimizer.gate_eval import judge_note

    monkeypatch.setenv("MATCHMETER_CACHE_DIR", str(tmp_path))
    note = judge_note("openai/gpt-4o-mini")
    assert note.startswith("judge openai/gpt-4o-mini: not qualified")
    assert "matchmeter gate eval --judge-model openai/gpt-4o-mini" in note
