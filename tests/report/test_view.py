"""`matchmeter view` driven in a real headless Chromium (Debian's chromium + chromium-driver, via Selenium).

One module fixture makes real SIMULATED runs through the console entry point (local backend): a sim
agent on three tasks, a replay agent whose first command prints ~19,000 characters, a description set
from `matchmeter optimize`, a calibration, and a copy of the sim run with no results.parquet and one
execution's result.json broken. One server and one browser serve every test of the module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlparse

import pytest

from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter
from tests.optimizer.conftest import write_copy_task
from tests.report.conftest import mm

CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not (Path(CHROMEDRIVER).is_file() and Path(CHROMIUM).is_file()),
                                reason="needs Debian's chromium and chromium-driver (.ci/run installs both)")


class Viewed(NamedTuple):
    base: str
    driver: object
    root: Path
    broken_key: str
    replay_key: str


@pytest.fixture(scope="module")
def viewed(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from matchmeter.report.view import make_server

    root = tmp_path_factory.mktemp("view")
    env = {**os.environ, "MATCHMETER_HOME": str(root / "home"), "MATCHMETER_CACHE_DIR": str(root / "cache"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    suite = write_copy_task(root / "tasks")
    for task_id in ("copy-a", "copy-b"):
        write_task(suite, task_id)
    (root / "cmds.json").write_text(json.dumps(["seq 1 4000", "cp data/input.txt out.txt"]))
    mm("run", "--agent", "bash", "--model", "sim/sloppy", "--backend", "local", "--tasks", suite, "--out",
       root / "runs" / "src", "--quiet", env=env)
    mm("run", "--agent", "replay", "--replay", root / "cmds.json", "--backend", "local", "--tasks", suite, "--task",
       "copy-two", "--out", root / "runs" / "replay", "--quiet", env=env)
    mm("optimize", "--run", root / "runs" / "src", "--out", root / "sets" / "opt", "--rewriter-model", "sim/rewriter",
       "--judge-model", "sim/judge", "--backend", "local", "--candidates", "2", "--quiet", env=env)
    mm("calibrate", root / "runs" / "src", "--out", root / "cal.json", env=env)
    broken = root / "runs" / "broken"
    shutil.copytree(root / "runs" / "src", broken)
    (broken / "results.parquet").unlink()
    broken_key = sorted(p.name for p in (broken / "executions").iterdir())[0]
    (broken / "executions" / broken_key / "result.json").write_text('{"execution_key": "trunc')
    replay_key = next((root / "runs" / "replay" / "executions").iterdir()).name

    server = make_server([root / "runs" / "src", root / "runs" / "replay", broken, root / "sets" / "opt",
                          root / "cal.json"], 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield Viewed(f"http://127.0.0.1:{server.port}", driver, root, broken_key, replay_key)
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()


def css(v: Viewed, selector: str):
    from selenium.webdriver.common.by import By

    return v.driver.find_elements(By.CSS_SELECTOR, selector)


def wait_url(v: Viewed, fragment: str) -> str:
    """A click that navigates returns before the next page may be there: wait for it (10 s at most)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(v.driver, 10).until(
        lambda d: fragment in d.current_url and d.execute_script("return document.readyState") == "complete")
    return v.driver.current_url


def link(v: Viewed, text: str):
    from selenium.webdriver.common.by import By

    return v.driver.find_element(By.LINK_TEXT, text)


def test_overview_grid_execution_audit_calibration_by_navigation(viewed):
    v = viewed
    v.driver.get(v.base + "/")
    assert v.driver.title == "matchmeter view"
    rows = [r.text for r in css(v, "#run-src ~ table.configs tbody tr")][:1]
    assert rows[0].startswith("sim/sloppy+bash 3 3 1.000")
    assert "not probed" in rows[0]  # no probe ran: no claim of trust
    assert "SIMULATED" in rows[0]
    link(v, "src").click()
    assert wait_url(v, "/run/src") == v.base + "/run/src"
    cells = css(v, "table.grid td a")
    assert len(cells) == 3
    assert {c.text for c in cells} == {"1.00"}
    cells[0].click()
    wait_url(v, "/run/src/executions?cfg=")
    exe_links = css(v, "table.executions td a")
    assert len(exe_links) == 1
    exe_links[0].click()
    wait_url(v, "/run/src/x/")
    headings = [h.text for h in css(v, "h2")]
    key = v.driver.current_url.rsplit("/", 1)[1]
    stored = json.loads((v.root / "runs" / "src" / "executions" / key / "trajectory.json").read_text())["steps"]
    assert headings[:2] == ["Description used", f"Steps ({len(stored)})"]
    assert [r.find_element("css selector", "pre.cmd").text for r in css(v, "table.steps tbody tr")] == [
        f"$ {s['command']}" for s in stored]
    assert {"Subgoal scores", "Safety findings", "Workspace diff", "Logs"} <= set(headings)
    page = v.driver.find_element("tag name", "body").text
    assert "origin original" in page
    assert "Copy the input file" in page  # the task's Original text, found through the run manifest
    assert "tests_absent_during_agent: passed" in page
    link(v, "set opt").click()
    assert wait_url(v, "/set/opt") == v.base + "/set/opt"
    cands = css(v, "div.cand")
    states = [json.loads(p.read_text()) for p in (v.root / "sets" / "opt" / "state").glob("*/*.json")]
    assert len(cands) == sum(len(st["verdicts"]) for st in states) == 12  # 3 tasks x (source, generic) x 2
    # the judge sees only what the rules passed (gate v2): each candidate shows its votes or its rule reasons
    assert any("judge vote" in c.text for c in cands)
    assert all("judge vote" in c.text or "rule" in c.text.lower() for c in cands)
    assert css(v, "pre.diff span.plus")  # the candidate's added lines are marked in the diff
    link(v, "calibration cal").click()
    wait_url(v, "/calibration/cal")
    assert [r.text.split()[0] for r in css(v, "table tbody tr")][:3] == ["easy", "medium", "hard"]


def test_long_output_is_truncated_with_a_way_to_expand(viewed):
    v = viewed
    v.driver.get(f"{v.base}/run/replay/x/{v.replay_key}")
    head = css(v, "#step-0 pre.head")[0]
    full = css(v, "#step-0 pre.full")[0]
    traj = v.root / "runs" / "replay" / "executions" / v.replay_key / "trajectory.json"
    stored = json.loads(traj.read_text())["steps"][0]["output"]
    assert stored.startswith("1\n2\n3\n")
    assert len(stored) > 10_000
    assert head.text == "\n".join(stored[:2000].split("\n")[:25]).strip()  # 2,000 characters, 25 lines at most
    assert not full.is_displayed()
    summary = css(v, "#step-0 details.more summary")[0]
    assert summary.text == f"show all {len(stored)} characters"
    summary.click()
    assert full.is_displayed()
    assert full.text == stored.strip()
    assert css(v, "#step-1 pre")[0].text == "$ cp data/input.txt out.txt"
    assert not css(v, "#step-1 details")  # a short output is shown whole


def test_nothing_in_any_page_comes_from_outside(viewed):
    v = viewed
    pages = ["/", "/run/src", "/run/src/executions", f"/run/replay/x/{v.replay_key}", "/set/opt", "/calibration/cal",
             f"/compare?a=replay/{v.replay_key}&b=src/{v.broken_key}", "/run/broken"]
    for page in pages:
        v.driver.get(v.base + page)
        resources = v.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert all(r.startswith(v.base + "/") for r in resources), (page, resources)
        urls = v.driver.execute_script(
            "return [...document.querySelectorAll('[src],[href],[action]')]"
            ".map(e => e.src || e.href || e.action)")
        assert urls, page
        assert {urlparse(u).netloc for u in urls} == {urlparse(v.base).netloc}, page
        assert not css(v, "script, iframe, img[src^='http'], link[rel=stylesheet]"), page
    import urllib.request

    with urllib.request.urlopen(v.base + "/") as resp:
        assert resp.headers["Content-Security-Policy"].startswith("default-src 'none'")


def test_broken_result_json_shows_an_error_for_that_execution_only(viewed):
    v = viewed
    v.driver.get(v.base + "/")
    assert "1 unreadable" in css(v, "#run-broken + p")[0].text
    v.driver.get(v.base + "/run/broken")
    errors = css(v, "div.err")
    assert len(errors) == 1
    assert errors[0].text.startswith(f"execution {v.broken_key}: result.json is unreadable:")
    assert len(css(v, "table.grid td a")) == 2  # the two readable executions still make the grid
    v.driver.get(v.base + "/run/broken/executions")
    rows = css(v, "table.executions tbody tr")
    assert len(rows) == 3
    assert sum("result.json is unreadable" in r.text for r in rows) == 1
    v.driver.get(f"{v.base}/run/broken/x/{v.broken_key}")
    assert css(v, "#result-error")[0].text.startswith("this execution's result could not be read: result.json is "
                                                      "unreadable")
    stored = json.loads((v.root / "runs" / "broken" / "executions" / v.broken_key / "trajectory.json").read_text())
    assert len(css(v, "table.steps tbody tr")) == len(stored["steps"]) > 0  # its trajectory is intact and still shown


def test_two_executions_side_by_side_from_the_list(viewed):
    v = viewed
    v.driver.get(v.base + "/run/src/executions")
    tasks = [r.find_elements("css selector", "td")[4].text for r in css(v, "table.executions tbody tr")]
    assert len(set(tasks)) == 3
    radios_b = css(v, "input[name=b]")
    radios_b[2].click()
    css(v, "form button[type=submit]")[0].click()
    wait_url(v, "/compare?")
    panes = css(v, "div.side > div.pane")
    assert len(panes) == 2
    assert all("Steps (" in p.text and "Description used" in p.text for p in panes)
    left, right = (p.find_element("css selector", "table.facts").text for p in panes)
    assert f"task {tasks[0]}" in left
    assert f"task {tasks[2]}" in right


def test_cli_serves_on_loopback_and_refuses_unknown_paths(viewed, tmp_path):
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "matchmeter.cli", "view", str(viewed.root / "runs" / "src"),
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("matchmeter view on http://127.0.0.1:")
        url = line.split()[3]
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.status == 200
            assert b"sim/sloppy+bash" in resp.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    bad = run_matchmeter("view", str(tmp_path), timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert "not a run directory, description set or calibration file" in bad.stderr
