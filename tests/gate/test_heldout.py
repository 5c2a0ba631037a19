"""The held-out v3 split of the gate corpus is frozen: its bytes are pinned (corpus/README.md says why)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parents[2] / "matchmeter" / "gate" / "corpus"
PINNED = {
    "gate_heldout.jsonl": "82f0ed70eb7df18b5c3d2d4fb36e2fab608d68d3db2a0d055ebac52a3688f99e",
    "gate_heldout.originals.json": "a8de4f4985fd6006156f7ff471c2c07116238a70edff82e1a6c9cc4d908abe71",
}


def test_the_held_out_split_is_byte_for_byte_the_one_committed_before_the_rule_work():
    for name, digest in PINNED.items():
        assert hashlib.sha256((CORPUS_DIR / name).read_bytes()).hexdigest() == digest, name


def test_the_held_out_split_covers_every_family_and_labels_each_slip():
    import tomllib

    rows = [json.loads(line) for line in (CORPUS_DIR / "gate_heldout.jsonl").read_text().splitlines()[1:]]
    suite = CORPUS_DIR.parents[1] / "tasks" / "suite"
    families = Counter(tomllib.loads((suite / r["task"] / "task.toml").read_text())["metadata"]["matchmeter"]
                       ["source_family"] for r in rows)
    assert set(families) == {"terminal", "skills", "data-analysis", "quoting"}
    unfaithful = [r for r in rows if r["label"] == "unfaithful"]
    assert all(r["obligation"] and r["visibility"] in ("rules", "judge") for r in unfaithful)
    assert len(rows) >= 60
    assert len(unfaithful) >= 30


def test_rules_and_the_sim_judge_on_the_held_out_split():
    """The held-out split at issue 33's bar (>= 95% of the rule-visible slips caught, no faithful paraphrase
    rejected), though its failures were seen during the v3 rule work (corpus/README.md), so this is a regression
    floor, not a blind number; and the sim judge's shipped measurement is what gate eval measures now."""
    from matchmeter.optimizer.gate_eval import SIM_MEASUREMENT, measurement, run_gate_eval

    report = run_gate_eval(None, "sim/judge", split="heldout")
    caught, total = report.rate("rules", rule_visible=True)
    assert total >= 25
    assert caught / total >= 0.95
    assert report.rate("rules", label="faithful") == (0, 33)
    assert measurement(report) == json.loads(SIM_MEASUREMENT.read_text())  # else: write_sim_measurement()
