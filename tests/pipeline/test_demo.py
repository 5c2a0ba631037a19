"""The demo pipeline end to end on three tasks: every stage runs and leaves its artefact, labelled SIMULATED."""

from __future__ import annotations

import pandas as pd
import pytest
from rich.console import Console

from matchmeter.optimizer.freeze import load_frozen
from matchmeter.pipeline.demo import DEMO_TASKS, DemoRequest, run_demo
from matchmeter.tasks.loader import load_tasks
from tests.helpers.clis import machine_clis_dir

TASKS = ["env-merge", "json-config-edit", "iqr-clean-mean"]


def test_demo_slice_is_in_core_and_covers_every_family():
    core = {t.id: t for t in load_tasks([], core=True)}
    assert set(DEMO_TASKS) <= set(core)
    assert {core[t].source_family for t in DEMO_TASKS} == {"terminal", "skills", "data-analysis", "quoting"}


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.live_cli
def test_demo_runs_every_stage_on_three_tasks(tmp_path, monkeypatch):
    # The machine's CLI cache, as the live-CLI tests use: mini-swe-agent's venv and wheelhouse are installed
    # once per machine, not again into this test's tmp_path (about 85 s of the test on a fresh cache).
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(machine_clis_dir()))
    out = tmp_path / "demo"
    console = Console(record=True, width=120)
    report = run_demo(DemoRequest(out=str(out), backend="bwrap", tasks=TASKS), console)
    text = console.export_text()
    assert "SIMULATED" in text
    assert report.is_file()
    html = report.read_text()
    assert "SIMULATED" in html
    assert "sim/expert+mini-swe-agent" in html
    assert "sim/expert+claude-code" in html
    frozen = load_frozen(out / "descset")
    assert sorted(frozen.tasks) == sorted(TASKS)
    assert frozen.sources == ["sim/sloppy+bash", "sim/explorer+bash"]
    conditions = pd.read_parquet(out / "eval" / "conditions.parquet")
    assert set(conditions["condition"]) == {"original", "pooled", "generic"}
    # 6 targets × 3 tasks × (Original + 2 sources + Generic) condition units
    assert len(conditions) == 6 * 3 * 4
    # The seed CLI solves what sim/expert solves through the bash agent: its Original runs score alike.
    original = conditions[conditions["condition"] == "original"].set_index(["configuration_id", "task_id"])["reward"]
    for task in TASKS:
        assert original[("sim/expert+claude-code", task)] == original[("sim/expert+bash", task)]
    assert conditions["simulated"].all()
    assert (out / "calibration.json").is_file()
