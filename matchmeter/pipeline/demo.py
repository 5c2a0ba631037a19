"""`matchmeter demo`: the whole pipeline offline, on the embedded defaults. Everything it shows is SIMULATED.

Original runs → calibrate → optimize → evaluate → report, on a 12-task slice of the Core subset,
with the four `sim/` personas driven by the built-in bash agent, plus two real agent CLIs driving
`sim/expert` (targets, not sources): mini-swe-agent, and Claude Code — the seed CLI, its real binary speaking
Anthropic Messages with tool calls through the model gateway — all through the loopback stub server (real
HTTP, real sandboxes). The CLIs are fetched from PyPI into the CLI cache on first use (Claude Code's wheel
is about 165 MB). Every step is resumable: running the demo again reuses what a previous (possibly
interrupted) demo stored under the same output directory.

    demo-out/
      runs/original-<persona>[-<cli>]/   Original runs, one per configuration (the calibration reference)
      calibration.json           strata, budget grids, thresholds
      descset/                   the optimized, gated, frozen description set (+ its source-side runs)
      eval/                      every target under every condition (Original executions adopted)
      report.html                the self-contained report; report-tables/ holds CSV and JSON
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from matchmeter.errors import UserError
from matchmeter.metrics.calibration import calibrate_runs
from matchmeter.optimizer.pipeline import OptimizeRequest, optimize
from matchmeter.pipeline.evaluate import EvaluateRequest, evaluate, render_evaluation
from matchmeter.report.html import summary_line, write_report
from matchmeter.report.render import render_tables
from matchmeter.runner.agents.adapters import adapter_class
from matchmeter.runner.agents.adapters.install import ensure_installed, installed_executable, wheelhouse_dir
from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run

if TYPE_CHECKING:
    from rich.console import Console

    from matchmeter.schema import Configuration

PERSONAS = ("expert", "explorer", "sloppy", "quitter")
SOURCES = ("sloppy", "explorer")
SCOPES = ("demo", "core", "full")
# A slice of the Core subset that keeps every family and difficulty and the demo within a few minutes on
# two cores (the whole Core makes it about 2.5x longer): 4 terminal, 3 skills, 3 data-analysis, 2 quoting.
DEMO_TASKS = (
    "cleanup-old-tmp", "env-merge", "git-revert-bad-commit", "status-service",
    "ini-to-json", "json-config-edit", "sha256-manifest-verify",
    "iqr-clean-mean", "latency-percentile", "signup-duplicates",
    "profile-literal-line", "q-env-line-h1",
)
# (agent, persona): the real CLIs among the targets; Claude Code is the seed CLI (about 4 s a trial on bwrap,
# against Codex CLI's 13 s: benchmarks/live_clis.py).
CLI_TARGETS = (("mini-swe-agent", "expert"), ("claude-code", "expert"))


class DemoRequest(BaseModel):
    out: str = "demo-out"
    backend: str | None = Field(None, description="bwrap when bubblewrap is installed, else local (announced).")
    seeds: int = Field(1, ge=1)
    concurrency: int = Field(2, ge=1)
    candidates: int = Field(3, ge=1, description="3, so the sim rewriter also writes an unfaithful candidate the gate must reject.")
    scope: str = Field("demo", description="demo (a 12-task slice of Core), core (30 tasks) or full (the suite).")
    tasks: list[str] = Field(default_factory=list, description="Explicit task ids (overrides scope; tests use 3).")

    def run_filter(self) -> dict[str, Any]:
        """RunRequest fields that select the demo's tasks."""
        if self.scope not in SCOPES:
            raise UserError(f"unknown demo scope {self.scope!r}", "--scope", f"choose one of {', '.join(SCOPES)}")
        if self.tasks:
            return {"only": list(self.tasks), "core": False}
        return {"only": list(DEMO_TASKS) if self.scope == "demo" else [], "core": self.scope == "core"}


def choose_backend(asked: str | None, console: Console) -> str:
    if asked:
        return asked
    if shutil.which("bwrap"):
        return "bwrap"
    console.print("[yellow]bubblewrap (bwrap) is not installed: the demo uses the UNISOLATED local backend "
                  "(apt-get install bubblewrap for real sandboxes)[/]")
    return "local"


def _step(console: Console, n: int, text: str) -> float:
    console.rule(f"[bold]{n}/5 {text}")
    return time.monotonic()


def _run_name(config: Configuration) -> str:
    """`original-<persona>` for the bash agent (as before), `original-<persona>-<agent>` for a CLI."""
    persona = (config.model or "").split("/")[-1]  # every demo configuration names a sim model
    return f"original-{persona}" if config.agent.name == "bash" else f"original-{persona}-{config.agent.name}"


def ensure_cli(agent: str, console: Console) -> None:
    """Install the CLI into the cache venv before any trial needs it, saying so (about a minute, once); a
    CLI shipped as a binary wheel is fetched by the run's preflight, announced here the first time."""
    cls = adapter_class(agent)
    if cls is None:  # not a CLI adapter: nothing to install
        return
    spec = cls.profile().install
    if spec.kind == "pypi-binary" and not wheelhouse_dir(spec.package, spec.version).is_dir():
        console.print(f"fetching {spec.package}=={spec.version} (the {spec.executable} binary) from PyPI into the "
                      "CLI cache (once)…")
    if spec.kind != "pypi" or installed_executable(spec.package, spec.version, spec.executable):
        return
    console.print(f"installing {spec.package}=={spec.version} from PyPI into the CLI cache (about a minute, once)…")
    started = time.monotonic()
    ensure_installed(spec.package, spec.version, spec.executable)
    console.print(f"installed {spec.executable} in {time.monotonic() - started:.0f}s")


def run_demo(request: DemoRequest, console: Console) -> Path:
    """Run every stage; return the report path."""
    out = Path(request.out)
    backend = choose_backend(request.backend, console)
    console.print("[bold yellow]SIMULATED[/]: every model here is a sim/ persona served by the loopback stub; "
                  "no real model is called and no number below describes a real model.")
    configs = [configuration_from_flags("bash", f"sim/{p}") for p in PERSONAS]
    configs += [configuration_from_flags(agent, f"sim/{persona}") for agent, persona in CLI_TARGETS]
    started = _step(console, 1, f"Original runs: {len(configs)} configurations on {backend}")
    for agent, _ in CLI_TARGETS:
        ensure_cli(agent, console)
    runs = []
    for config in configs:
        run_dir = out / "runs" / _run_name(config)
        summary = execute_run(RunRequest(configurations=[config], **request.run_filter(), backend=backend,
                                         seeds=request.seeds, concurrency=request.concurrency, out=str(run_dir),
                                         resume=(run_dir / "manifest.json").exists()))
        console.print(f"{config.id}: {summary.executed} executed, {summary.skipped} reused")
        runs.append(run_dir)
    _step(console, 2, "calibrate: strata, budget grids, thresholds from the Original runs")
    calibration = out / "calibration.json"
    calibrate_runs(runs, calibration)
    console.print(f"calibration written: {calibration}")
    _step(console, 3, f"optimize: rewrite → gate → source-side select → freeze (sources: {', '.join(SOURCES)})")
    descset = out / "descset"
    sources = [f"sim/{s}+bash" for s in SOURCES]
    opt = optimize(OptimizeRequest(runs=[str(r) for r in runs], sources=sources, rewriter_model="sim/rewriter",
                                   judge_model="sim/judge", candidates=request.candidates, out=str(descset),
                                   backend=backend, concurrency=request.concurrency))
    console.print(f"candidates generated {opt.generated}, rejected by rule {opt.rejected_by_rule}, rejected by "
                  f"judge {opt.rejected_by_judge}, selected {opt.selected}, fell back {opt.fell_back}; "
                  f"LM spend ${opt.lm_spend_usd:.4f} (SIMULATED); preservation audit: {opt.audit_passed}/"
                  f"{opt.audit_selected} selected descriptions pass, {len(opt.audit_drifted)} drifted; {opt.judge_note}")
    _step(console, 4, "evaluate: every target under every condition")
    evaluation = evaluate(EvaluateRequest(descriptions=str(descset), targets=configs, out=str(out / "eval"),
                                          backend=backend, seeds=request.seeds, concurrency=request.concurrency,
                                          reuse=[str(r) for r in runs]))
    render_evaluation(evaluation, None, console)
    _step(console, 5, "report")
    report_path = out / "report.html"
    report = write_report([out / "eval"], calibration, report_path)
    render_tables(report.tables, console)
    console.print(summary_line(report), highlight=False, soft_wrap=True)
    console.rule(f"[bold]demo finished in {time.monotonic() - started:.0f}s · report: {report_path.resolve()}")
    return report_path
