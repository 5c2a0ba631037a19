"""`matchmeter view`: a local, read-only web UI over run directories, description sets and calibrations.

Flask (routing, Jinja2 templates with autoescaping) served by Werkzeug's threaded server, bound to
127.0.0.1 only. No build step: templates and one inline stylesheet ship in the package; pages load
nothing from any other host and run no script (long outputs fold with <details>). Every list is
paginated so a run of 10,000 executions opens as fast as one of ten (benchmarks/view.py).

Pages: /                     runs, configurations (trust, coverage of the run's tasks), sets, calibrations
       /run/<run>            configuration × task grid per description condition (tasks paginated)
       /run/<run>/executions executions, filterable by configuration, task and condition, paginated
       /run/<run>/x/<key>    one execution: description, steps, subgoals, safety, trust, diff, logs
       /compare              two executions side by side (?a=<run>/<key>&b=<run>/<key>)
       /set/<name>           optimizer audit: original vs candidate diff, rules, judge votes, contract
       /calibration/<name>   strata, budget grids, thresholds
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from matchmeter.metrics.trust import trust_states
from matchmeter.report.viewdata import Library, Run, audit_records, execution_detail, open_library, read_json

if TYPE_CHECKING:
    import pandas as pd
    from flask import Flask, Response
    from werkzeug.serving import BaseWSGIServer

HOST = "127.0.0.1"
GRID_TASKS_PER_PAGE = 40
ROWS_PER_PAGE = 100
AUDIT_PER_PAGE = 30
OUTPUT_INLINE = 2_000  # characters of a step output shown before the "show all" fold
OUTPUT_LINES = 25  # and at most this many lines of it


def head(text: str, limit: int = OUTPUT_INLINE, lines: int = OUTPUT_LINES) -> str:
    """The inline part of a long text: at most `limit` characters and `lines` lines."""
    return "\n".join(text[:limit].split("\n")[:lines])


def page_of(n: int, page: int, per_page: int) -> dict[str, int]:
    pages = max(1, math.ceil(n / per_page))
    page = min(max(1, page), pages)
    return {"page": page, "pages": pages, "start": (page - 1) * per_page, "stop": min(n, page * per_page), "n": n}


def overview_rows(run: Run) -> list[dict[str, Any]]:
    """Per configuration of a run: executions, tasks, mean reward and cost, failures, trust, simulated."""
    idx = run.index()
    if idx.empty:
        return []
    ok = idx.loc[idx["error"] == ""]
    trust = trust_states(ok.assign(task_id=ok["task_id"].astype(str))) if len(ok) else {}
    n_tasks = ok["task_id"].nunique()
    rows = []
    for cfg, g in ok.groupby("configuration_id"):
        cost = g["cost_usd"].astype(float)
        rows.append({"configuration_id": cfg, "n": len(g), "tasks": g["task_id"].nunique(), "all_tasks": n_tasks,
                     "reward": float(g["reward"].astype(float).mean()),
                     "cost": None if cost.isna().any() else float(cost.mean()),
                     "failures": int((g["failure_mode"].fillna("none") != "none").sum()),
                     "trust": trust.get(str(cfg), "not probed"),
                     "simulated": bool(g["simulated"].fillna(False).astype(bool).any())})
    return rows


def condition_of(frame: pd.DataFrame) -> pd.Series:
    """The description condition of each execution: its description's origin (original | optimized | generic),
    with the source configuration of an optimized one ('optimized by X'): one grid each."""
    origin = frame["description_origin"].fillna("original").astype(str)
    source = frame["description_source"].astype(object)
    named = source.notna() & (source.astype(str) != "")
    return origin.where(~named, origin + " by " + source.astype(str))


def grid_model(run: Run, page: int) -> dict[str, Any]:
    """Configuration × task grids, one per description condition (a run of Original descriptions has one):
    executions under different descriptions are never averaged into one cell."""
    idx = run.index()
    ok = idx.loc[idx["error"] == ""]
    ok = ok.assign(condition=condition_of(ok)) if len(ok) else ok.assign(condition=[])
    tasks = sorted(ok["task_id"].astype(str).unique())
    pg = page_of(len(tasks), page, GRID_TASKS_PER_PAGE)
    shown = tasks[pg["start"]:pg["stop"]]
    part = ok.loc[ok["task_id"].astype(str).isin(shown)]
    order = sorted(ok["condition"].unique(), key=lambda c: (c != "original", c))
    grids = []
    for condition in order:
        rows = part.loc[part["condition"] == condition]
        cells = rows.groupby(["configuration_id", "task_id"]).agg(r=("reward", "mean"), n=("reward", "size"))
        grid = {(str(key[0]), str(key[1])): (float(v.r), int(v.n))
                for key, v in cast("Iterator[tuple[tuple[str, str], Any]]", cells.iterrows())}
        configs = sorted(ok.loc[ok["condition"] == condition, "configuration_id"].astype(str).unique())
        grids.append({"condition": condition, "configs": configs, "grid": grid})
    return {"grids": grids, "tasks": shown, "pg": pg, "errors": idx.loc[idx["error"] != ""]}


def executions_model(run: Run, cfg: str, task: str, page: int, condition: str = "") -> dict[str, Any]:
    idx = run.index()
    sel = idx
    if cfg:
        sel = sel.loc[sel["configuration_id"].astype(str) == cfg]
    if task:
        sel = sel.loc[sel["task_id"].astype(str) == task]
    if condition:
        sel = sel.loc[condition_of(sel) == condition]
    pg = page_of(len(sel), page, ROWS_PER_PAGE)
    return {"rows": _records(sel.iloc[pg["start"]:pg["stop"]]), "pg": pg, "cfg": cfg, "task": task,
            "condition": condition}


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): (None if _isnan(v) else v) for k, v in row.items()} for row in df.to_dict("records")]


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def fmt(value: Any, digits: int = 3) -> str:
    """Display numbers: '-' for missing, ∞, fixed decimals."""
    if value is None or _isnan(value):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "∞" if math.isinf(value) else f"{value:.{digits}f}"
    return str(value)


def usd(value: Any) -> str:
    """A dollar amount as the report prints it: 4 significant digits below a cent, else 4 decimals."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return fmt(value)
    v = float(value)
    return fmt(v) if math.isnan(v) or math.isinf(v) else f"{v:.4g}" if abs(v) < 0.01 else f"{v:.4f}"


def finalize(value: Any) -> Any:
    """Every `{{ … }}` of every page passes here: a missing value is '-', never `None`, and a float that no
    template formatted is shown with 6 significant digits, never as 0.0061519999999999995."""
    if value is None:
        return "-"
    if isinstance(value, float) and not isinstance(value, bool):
        return fmt(value) if math.isnan(value) or math.isinf(value) else f"{value:.6g}"
    return value


def step_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Steps with duration, tokens and cost flattened for the template."""
    from datetime import datetime

    out = []
    for s in steps:
        try:
            dur = (datetime.fromisoformat(s["ended_at"]) - datetime.fromisoformat(s["started_at"])).total_seconds()
        except (KeyError, TypeError, ValueError):
            dur = None
        tokens = s.get("tokens") or {}
        tool = s.get("tool_call") or {}
        out.append({"index": s.get("index"), "thought": s.get("thought") or tool.get("thought") or "",
                    "command": s.get("command") or (str(tool) if tool else ""), "output": s.get("output", ""),
                    "truncated": bool(s.get("output_truncated")), "output_bytes": s.get("output_bytes"),
                    "exit_code": s.get("exit_code"), "timed_out": s.get("timed_out"), "duration": dur,
                    "tokens": sum(v for v in tokens.values() if isinstance(v, int | float)), "tokens_by": tokens,
                    "cost": (s.get("cost") or {}).get("usd")})
    return out


def create_app(lib: Library) -> Flask:
    """The Flask application over one library (no global state: everything hangs off this app)."""
    from flask import Flask, abort, render_template, request

    app = Flask("matchmeter.report", template_folder=str(Path(__file__).parent / "templates" / "view"))
    app.jinja_env.globals.update(fmt=fmt, usd=usd, OUTPUT_INLINE=OUTPUT_INLINE, lib=lib)
    app.jinja_env.filters["head"] = head
    app.jinja_env.filters["usd"] = usd
    app.jinja_env.finalize = finalize

    def run_or_404(name: str) -> Run:
        if name not in lib.runs:
            abort(404)
        return lib.runs[name]

    def page_arg() -> int:
        return request.args.get("page", 1, type=int) or 1

    @app.get("/")
    def index() -> str:
        runs = [{"run": r, "rows": overview_rows(r), "n": len(r.index()), "broken": int((r.index()["error"] != "").sum())}
                for r in lib.runs.values()]
        return render_template("index.html", runs=runs)

    @app.get("/run/<name>")
    def run_grid(name: str) -> str:
        run = run_or_404(name)
        return render_template("grid.html", run=run, m=grid_model(run, page_arg()))

    @app.get("/run/<name>/executions")
    def run_executions(name: str) -> str:
        run = run_or_404(name)
        m = executions_model(run, request.args.get("cfg", ""), request.args.get("task", ""), page_arg(),
                             request.args.get("condition", ""))
        return render_template("executions.html", run=run, m=m)

    @app.get("/run/<name>/x/<key>")
    def execution(name: str, key: str) -> str:
        run = run_or_404(name)
        d = execution_detail(lib, run, key)
        if d.get("missing"):
            abort(404)
        return render_template("execution.html", run=run, d=d, steps=step_rows(d["steps"]))

    @app.get("/compare")
    def compare() -> str:
        sides = []
        for arg in ("a", "b"):
            name, _, key = request.args.get(arg, "").partition("/")
            run = run_or_404(name)
            d = execution_detail(lib, run, key)
            if d.get("missing"):
                abort(404)
            sides.append({"run": run, "d": d, "steps": step_rows(d["steps"])})
        return render_template("compare.html", sides=sides)

    @app.get("/set/<name>")
    def descset(name: str) -> str:
        if name not in lib.descsets:
            abort(404)
        records = audit_records(lib.descsets[name])
        status = request.args.get("status", "")
        if status:
            records = [r for r in records if r.get("decision") == status]
        pg = page_of(len(records), page_arg(), AUDIT_PER_PAGE)
        doc, error = read_json(lib.descsets[name] / "descriptions.json")
        return render_template("audit.html", name=name, records=records[pg["start"]:pg["stop"]], pg=pg, status=status,
                               frozen=doc if isinstance(doc, dict) else None, frozen_error=error)

    @app.get("/calibration/<name>")
    def calibration(name: str) -> str:
        if name not in lib.calibrations:
            abort(404)
        doc, error = read_json(lib.calibrations[name])
        return render_template("calibration.html", name=name, cal=doc if isinstance(doc, dict) else None, error=error)

    @app.after_request
    def no_outside(resp: Response) -> Response:
        # the browser itself refuses anything from another origin, should a stored text ever carry a URL
        resp.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"
        resp.headers["Cache-Control"] = "no-store"
        return resp

    return app


def make_server(paths: Sequence[Path], port: int = 0) -> BaseWSGIServer:
    """A ready (not yet serving) threaded server on 127.0.0.1; port 0 picks a free one (`server.port`)."""
    import logging

    from werkzeug.serving import make_server as werkzeug_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request on the terminal
    return werkzeug_server(HOST, port, create_app(open_library(paths)), threaded=True)


def serve(paths: Sequence[Path], port: int, announce: Callable[[str], None]) -> None:
    """Serve until Ctrl-C; `announce(url)` is called once the socket listens."""
    server = make_server(paths, port)
    announce(f"http://{HOST}:{server.port}/")
    try:
        server.serve_forever()
    finally:
        server.server_close()
