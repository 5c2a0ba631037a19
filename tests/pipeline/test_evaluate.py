"""`matchmeter evaluate`: exactly the executions the conditions need, reuse across calls, refusal of bad sets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

from matchmeter.optimizer.freeze import Entry, FrozenSet, TaskEntry, write_frozen
from matchmeter.schema import sha256_text
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

MM = [sys.executable, "-m", "matchmeter.cli"]
SOURCES = ["src-a", "src-b"]


def _entry(text: str, parent: str) -> Entry:
    return Entry(text=text, sha256=sha256_text(text), parent_sha256=parent, candidate_id=f"c-{sha256_text(text)[:6]}",
                 source_reward=1.0, source_cost_usd=0.01, original_reward=0.5, original_cost_usd=0.02, fallback=False)


def frozen_set(tasks_dir: Path, out: Path, fallback_source: str | None = None) -> Path:
    """A frozen set over every task in tasks_dir: a distinct d*_{i,k} per source and a generic rewrite."""
    tasks = {}
    digests = {}
    for task_dir in sorted(p for p in tasks_dir.iterdir() if p.is_dir()):
        task = load_task(task_dir)
        digests[task.id] = task.digest
        original = {"text": task.instruction, "sha256": sha256_text(task.instruction)}
        sources = {}
        for k in SOURCES:
            if k == fallback_source:
                sources[k] = Entry(text=task.instruction, sha256=original["sha256"], parent_sha256=original["sha256"],
                                   candidate_id=None, source_reward=0.5, source_cost_usd=0.02, original_reward=0.5,
                                   original_cost_usd=0.02, fallback=True)
            else:
                sources[k] = _entry(f"{task.instruction}\nClarified for {k}: keep the file name exactly.", original["sha256"])
        tasks[task.id] = TaskEntry(original=original, sources=sources,
                                   generic=_entry(f"{task.instruction}\nIn plain words: copy it.", original["sha256"]))
    frozen = FrozenSet(sources=SOURCES, tasks=tasks, source_run={"task_digests": digests})
    frozen.digest = frozen.body_digest()
    out.mkdir(parents=True, exist_ok=True)
    write_frozen(out, frozen)
    return out


def _evaluate(descset: Path, tasks: Path, out: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    args = [*MM, "evaluate", "--descriptions", str(descset), "--tasks", str(tasks), "--out", str(out),
            "--backend", "local", "--quiet"]
    for t in targets:
        args += ["--target", t]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def test_all_conditions_plan_exactly_original_sources_generic_and_reuse(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    write_task(tasks, "copy-b")
    descset = frozen_set(tasks, tmp_path / "descset")
    out = tmp_path / "eval"
    first = _evaluate(descset, tasks, out, "oracle", "nop")
    assert first.returncode == 0, first.stderr
    # |targets| × |tasks| × (1 Original + K=2 sources + 1 Generic) × attempts = 2 × 2 × 4 × 1 = 16
    assert "planned 16 executions, executed 16, reused 0" in " ".join(first.stdout.split())
    results = pd.read_parquet(out / "results.parquet")
    assert len(results) == 16
    assert results["execution_key"].is_unique
    conditions = pd.read_parquet(out / "conditions.parquet")
    assert conditions.groupby("condition").size().to_dict() == {"generic": 4, "original": 4, "pooled": 8}
    assert sorted(conditions.loc[conditions["condition"] == "pooled", "source"].unique()) == SOURCES
    # one more target: only its 2 × 4 = 8 executions run; the 16 stored ones are reused
    second = _evaluate(descset, tasks, out, "oracle", "nop", "replay-free:")
    assert second.returncode == 2  # a bad agent is refused before anything runs
    third = _evaluate(descset, tasks, out, "nop", "oracle", "bash:sim/expert")
    assert third.returncode == 0, third.stderr
    assert "planned 24 executions, executed 8, reused 16" in " ".join(third.stdout.split())
    assert len(pd.read_parquet(out / "results.parquet")) == 24
    assert len(pd.read_parquet(out / "conditions.parquet")) == 24


def test_fallback_descriptions_share_the_original_execution(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    descset = frozen_set(tasks, tmp_path / "descset", fallback_source="src-b")
    out = tmp_path / "eval"
    proc = _evaluate(descset, tasks, out, "oracle")
    assert proc.returncode == 0, proc.stderr
    # d*_{i,src-b} == d_i: Original and Pooled/src-b are one execution, so 3 run for 4 units
    assert "4 condition units, planned 3 executions" in " ".join(proc.stdout.split())
    conditions = pd.read_parquet(out / "conditions.parquet")
    assert len(conditions) == 4
    shared = conditions.loc[(conditions["condition"] == "original") | (conditions["source"] == "src-b")]
    assert shared["execution_key"].nunique() == 1


def test_modified_or_unfrozen_sets_are_refused(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    unfrozen = _evaluate(tmp_path / "nowhere", tasks, tmp_path / "e1", "oracle")
    assert unfrozen.returncode == 2
    assert "not frozen" in unfrozen.stderr
    descset = frozen_set(tasks, tmp_path / "descset")
    path = descset / "descriptions.json"
    data = json.loads(path.read_text())
    data["tasks"]["copy-a"]["sources"]["src-a"]["text"] += " Also delete everything."
    path.write_text(json.dumps(data))
    modified = _evaluate(descset, tasks, tmp_path / "e2", "oracle")
    assert modified.returncode == 2
    assert "modified" in modified.stderr
    assert not (tmp_path / "e2").exists()


def test_original_executions_are_adopted_from_a_source_run(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "copy-a")
    write_task(tasks, "copy-b")
    source_run = tmp_path / "runs" / "oracle"
    ran = run_matchmeter("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "local", "--out",
                          str(source_run), "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stderr
    descset = frozen_set(tasks, tmp_path / "descset")
    out = tmp_path / "eval"
    proc = run_matchmeter("evaluate", "--descriptions", str(descset), "--tasks", str(tasks), "--out", str(out),
                           "--backend", "local", "--quiet", "--target", "oracle", "--reuse", str(source_run), timeout=300)
    assert proc.returncode == 0, proc.stderr
    # 2 tasks × 4 units; the 2 Original executions come from the source run, the other 6 run here
    assert "planned 8 executions, executed 6, reused 2 (2 adopted" in " ".join(proc.stdout.split())
    original_keys = set(pd.read_parquet(source_run / "results.parquet")["execution_key"])
    conditions = pd.read_parquet(out / "conditions.parquet")
    assert set(conditions.loc[conditions["condition"] == "original", "execution_key"]) == original_keys
