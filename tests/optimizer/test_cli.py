"""`matchmeter optimize` and `matchmeter audit` through the console script (flags, summary, filters, --json)."""

from __future__ import annotations

import json
import subprocess

import pytest

from matchmeter.optimizer.freeze import load_frozen
from tests.helpers.warm_cli import run_matchmeter
from tests.optimizer.conftest import SOURCE


def mm(*args: str) -> subprocess.CompletedProcess[str]:
    return run_matchmeter(*args, timeout=300)


def _optimize(source_run, out, *extra: str) -> subprocess.CompletedProcess[str]:
    return mm("optimize", "--run", str(source_run), "--sources", SOURCE, "--rewriter-model", "sim/rewriter",
              "--judge-model", "sim/judge", "--judge-votes", "3", "--candidates", "3", "--out", str(out), "--quiet",
              *extra)


def test_optimize_then_audit(source_run, tmp_path):
    proc = _optimize(source_run, tmp_path / "ds")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "SIMULATED optimize" in text
    assert "candidates generated 6, rejected by rule 2, rejected by judge 0, eligible 4" in text
    assert "preservation audit: 2/2 selected descriptions passed the gate" in text
    assert "0 drifted" in text
    assert "same family" in text
    frozen = load_frozen(tmp_path / "ds")
    assert frozen.settings["judge_votes"] == 3

    listed = mm("audit", str(tmp_path / "ds"), "--json")
    entries = json.loads(listed.stdout)
    assert len(entries) == 2
    assert {e["source"] for e in entries} == {SOURCE, "generic"}
    assert all(e["reasons"][0].startswith("drops_literal:path:data/input.txt") for e in entries)
    assert all("-Copy the input file data/input.txt" in e["diff"] for e in entries)
    assert "1. path: data/input.txt" in entries[0]["contract"]
    assert any(line.startswith("prohibition: Do not change anything else under data/") for line in
               (item.split(". ", 1)[1] for item in entries[0]["contract"]))
    only_source = json.loads(mm("audit", str(tmp_path / "ds"), "--json", "--source", SOURCE).stdout)
    assert [e["source"] for e in only_source] == [SOURCE]
    assert json.loads(mm("audit", str(tmp_path / "ds"), "--json", "--reason", "judge").stdout) == []
    assert json.loads(mm("audit", str(tmp_path / "ds"), "--json", "--task", "other").stdout) == []
    human = mm("audit", str(tmp_path / "ds"), "--reason", "drops_literal")
    assert "+++ " in human.stdout
    assert human.stdout.count("contract of copy-two:") == 1
    assert "2 rejected candidate(s)" in human.stdout


def test_bad_input_is_one_line_exit_2(source_run, tmp_path):
    proc = _optimize(source_run, tmp_path / "ds", "--backend", "nosuch")
    assert proc.returncode == 2
    assert "unknown sandbox backend" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    missing = mm("audit", str(tmp_path / "nothing"))
    assert missing.returncode == 2
    assert "not a description set" in missing.stderr


@pytest.mark.bwrap
def test_source_side_on_bwrap_gives_the_same_frozen_set(source_run, tmp_path):
    """The source run used `local`; candidates executed under bwrap must select and freeze the same texts."""
    local = _optimize(source_run, tmp_path / "local")
    sandboxed = _optimize(source_run, tmp_path / "bwrap", "--backend", "bwrap")
    assert local.returncode == 0, local.stderr
    assert sandboxed.returncode == 0, sandboxed.stderr
    a, b = load_frozen(tmp_path / "local"), load_frozen(tmp_path / "bwrap")
    assert a.tasks == b.tasks
    backends = {json.loads(p.read_text())["backend"] for p in (tmp_path / "bwrap").glob("source-runs/executions/*/result.json")}
    assert backends == {"bwrap"}


def test_optimize_spend_is_unknown_never_zero_when_calls_were_unpriced():
    from matchmeter.cli import _spend_text

    assert _spend_text(0.0, 26) == "unknown (26 unpriced calls)"
    assert _spend_text(0.25, 2) == "unknown (2 unpriced calls) (+ $0.250000 priced)"
    assert _spend_text(0.25, 0) == "$0.250000"
