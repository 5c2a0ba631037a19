"""`matchmeter view` as a reader sees it (issue 31, item 10), through Flask's test client: one grid per
description condition, numbers formatted (never a raw `None` or 0.0061519999999999995), no empty thought
column, and a directory holding runs (a demo output) accepted as it is."""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import pandas as pd
import pytest

from matchmeter.errors import UserError
from matchmeter.report.view import create_app
from matchmeter.report.viewdata import open_library

LONG = 0.0061519999999999995  # what 0.006152 sums to in binary: the page must not print it raw


def execution(run, key, cfg, task, origin, source, reward):
    exe = run / "executions" / key
    exe.mkdir(parents=True)
    (exe / "result.json").write_text(json.dumps({
        "execution_key": key, "configuration_id": cfg, "task_id": task, "seed": 0, "attempt": 0, "reward": reward,
        "raw_verifier_reward": None, "cost": {"usd": LONG, "null_reason": None}, "failure_mode": "none",
        "tokens": {"input": 1200, "cached_input": 0, "output": 80, "reasoning": 0}, "trust_flags": {},
        "description_origin": origin, "description_source": source, "description_sha256": f"{origin}-{source or '-'}",
        "error": None, "simulated": True}))
    (exe / "trajectory.json").write_text(json.dumps({"steps": [
        {"index": 0, "command": "cp data/input.txt out.txt", "output": "", "exit_code": 0,
         "started_at": "2026-12-01T10:00:00+00:00", "ended_at": "2026-12-01T10:00:01.5+00:00",
         "tokens": {"input": 1200, "cached_input": 0, "output": 80, "reasoning": 0},
         "cost": {"usd": LONG, "null_reason": None}}], "final_message": ""}))
    return {"execution_key": key, "configuration_id": cfg, "task_id": task, "reward": reward, "cost_usd": LONG,
            "tokens_total": 1280, "n_steps": 1, "failure_mode": "none", "trusted": True, "simulated": True,
            "description_origin": origin, "description_source": source, "seed": 0, "attempt": 0, "wall_s": 1.5}


@pytest.fixture
def demo_out(tmp_path):
    """Laid out as `matchmeter demo` writes: runs/<name>/, calibration.json, descset/, eval/, report-tables/."""
    root = tmp_path / "demo-out"
    run = root / "runs" / "original-expert"
    rows = [execution(run, "a" * 24, "sim/expert+bash", "copy-a", "original", None, 1.0)]
    pd.DataFrame(rows).to_parquet(run / "results.parquet")
    ev = root / "eval"
    rows = [execution(ev, "b" * 24, "sim/expert+bash", "copy-a", "original", None, 1.0),
            execution(ev, "c" * 24, "sim/expert+bash", "copy-a", "optimized", "sim/sloppy+bash", 0.5),
            execution(ev, "d" * 24, "sim/expert+bash", "copy-a", "generic", None, 0.0)]
    pd.DataFrame(rows).to_parquet(ev / "results.parquet")
    (root / "descset" / "state" / "copy-a").mkdir(parents=True)
    (root / "calibration.json").write_text(json.dumps({
        "reference_digest": "f" * 64, "alpha": 0.5, "price_table_id": "2026-11-01", "reference_configuration_ids": [],
        "strata": {"easy": {"n_tasks": 1, "budget_grid": [LONG, 0.25], "eta": LONG, "n_rewarded": 1, "n_zero": 0}},
        "tasks": [{"task_id": "copy-a", "stratum": "easy", "effort": 0.5, "m_tok": 1280.0, "m_step": 1.0, "z": 0.0}]}))
    (root / "report-tables").mkdir()
    (root / "report-tables" / "table1_configurations.json").write_text(json.dumps({"name": "t", "rows": []}))
    return root


def test_view_accepts_a_directory_holding_runs(demo_out):
    """Fails on the old code: `view demo-out` was refused ("not a run directory, description set or calibration
    file")."""
    lib = open_library([demo_out])
    assert sorted(lib.runs) == ["eval", "original-expert"]
    assert list(lib.descsets) == ["descset"]
    assert list(lib.calibrations) == ["calibration"]
    empty = demo_out / "report-tables"
    with pytest.raises(UserError, match="and holds none"):
        open_library([empty])


def test_grid_per_condition_formatted_numbers_and_no_empty_thought_column(demo_out):
    """Fails on the old code: the eval run's grid averaged Original (1.0), optimized (0.5) and Generic (0.0)
    into one cell 0.50; the calibration page printed 0.0061519999999999995; an execution page printed
    `None` and a 'thought' column no step fills."""
    paths = [demo_out / "eval", demo_out / "runs" / "original-expert", demo_out / "calibration.json"]
    c = create_app(open_library(paths)).test_client()
    grid = c.get("/run/eval").get_data(as_text=True)
    conditions = re.findall(r'<table class="grid" data-condition="([^"]+)">', grid)
    assert conditions == ["original", "generic", "optimized by sim/sloppy+bash"]
    cells = re.findall(r'title="sim/expert\+bash / copy-a / ([^"]+)">([0-9.]+)</a>', grid)
    assert cells == [("original", "1.00"), ("generic", "0.00"), ("optimized by sim/sloppy+bash", "0.50")]
    rows = c.get("/run/eval/executions?cfg=sim/expert%2Bbash&task=copy-a&condition=generic").get_data(as_text=True)
    assert rows.count('name="a"') == 1
    assert "d" * 24 in rows

    pages = {"calibration": c.get("/calibration/calibration").get_data(as_text=True),
             "execution": c.get(f"/run/eval/x/{'c' * 24}").get_data(as_text=True),
             "executions": c.get("/run/eval/executions").get_data(as_text=True),
             "index": c.get("/").get_data(as_text=True)}
    for name, html in pages.items():
        assert "None" not in html, name
        assert "0.00615199" not in html, name
    assert "0.006152, 0.2500" in pages["calibration"]
    assert "<td>0.006152</td>" in pages["execution"].replace('<td class="n">', "<td>")
    assert "thought" not in pages["execution"]
    assert "<th>command / output</th>" in pages["execution"]
    assert "optimized by sim/sloppy+bash" in pages["executions"]


CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.skipif(not (Path(CHROMEDRIVER).is_file() and Path(CHROMIUM).is_file()),
                    reason="needs Debian's chromium and chromium-driver (.ci/run installs both)")
def test_the_demo_output_in_headless_chromium(demo_out):
    """The same pages as a browser renders them, served from `view demo-out`: the overview lists both runs, the
    eval run shows three condition grids, and no rendered text holds `None` or an unformatted float."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    from matchmeter.report.view import make_server

    server = make_server([demo_out], 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    base = f"http://127.0.0.1:{server.port}"
    try:
        driver.get(base + "/")
        assert [h.text for h in driver.find_elements(By.CSS_SELECTOR, "h2[id^=run-]")] == ["eval", "original-expert"]
        driver.get(base + "/run/eval")
        assert [h.text for h in driver.find_elements(By.CSS_SELECTOR, "h2.condition")] == [
            "condition: original", "condition: generic", "condition: optimized by sim/sloppy+bash"]
        assert [t.find_element(By.CSS_SELECTOR, "td a").text for t in driver.find_elements(By.CSS_SELECTOR, "table.grid")] \
            == ["1.00", "0.00", "0.50"]
        for page in ("/", "/run/eval", "/run/eval/executions", f"/run/eval/x/{'c' * 24}", "/calibration/calibration",
                     f"/compare?a=eval/{'b' * 24}&b=eval/{'d' * 24}"):
            driver.get(base + page)
            text = driver.find_element(By.TAG_NAME, "body").text
            assert "None" not in text, page
            assert "0.00615199" not in text, page
            if "/x/" in page or "compare" in page:
                headers = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "table.steps th")]
                assert headers[:2] == ["#", "command / output"], page
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()
