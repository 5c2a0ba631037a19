"""Command-line interface: parse, build one request, call one library function, render.

Heavy modules (litellm, docker, pandas) are imported inside the commands so `matchmeter --help`
starts fast. Errors are rendered in one place, `main()`: a UserError is one line and exit 2,
Ctrl-C exits 130, anything else keeps its traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from matchmeter.optimizer.pipeline import OptimizeRequest
    from matchmeter.optimizer.report import OptimizeSummary
    from matchmeter.runner.run import RunSummary
    from matchmeter.schema import ModelEndpoint

app = typer.Typer(
    name="matchmeter",
    help="Fair, cost-aware benchmarks of command-line agents (AMS scoring, adapted descriptions).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
tasks_app = typer.Typer(help="List and check tasks.", no_args_is_help=True)
env_app = typer.Typer(help="Sandbox environments: the local Docker base image and leftovers.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
app.add_typer(env_app, name="env")


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr)


def _version(value: bool) -> None:
    if value:
        from matchmeter import __version__

        typer.echo(f"matchmeter {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Fair, cost-aware benchmarks of command-line agents (AMS scoring, adapted descriptions)."""


BASE_ALIAS_HELP = ("NAME=IMAGE: build task Dockerfiles that start FROM NAME on the local image IMAGE instead "
                   "(e.g. ubuntu:24.04=matchmeter-base:latest; nothing is pulled). Repeatable.")
API_BASE_HELP = "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: the provider's)."
KEY_ENV_HELP = "Name of the environment variable holding the key (read at call time, never stored)."
# Options that mean the same in every command taking them, declared once (typer copies each where used).
BACKEND_OPTION = typer.Option("bwrap", help="Sandbox backend: bwrap, docker or local.")
CONCURRENCY_OPTION = typer.Option(1, min=1, help="Trials run at once.")
PRICES_OPTION = typer.Option(
    None, help="TOML price file ([[price]] entries) merged over the shipped table; its entries win.")
NO_CACHE_OPTION = typer.Option(
    False, "--no-cache", help="Do not read or write the LM response cache (every call goes to the endpoint).")
EXECUTOR_OPTION = typer.Option(
    "local", help="Where trials run: local (this process's threads) or ray (a Ray cluster, docs/ray.md).")
RAY_ADDRESS_OPTION = typer.Option(
    None, "--ray-address", help="With --executor ray: the cluster's HOST:PORT, run from a node of it (not a ray:// "
                                "client address; default: $RAY_ADDRESS, else this node's cluster).")


def _endpoint(api_base: str | None, api_key_env: str | None, prices: Path | None, no_cache: bool) -> ModelEndpoint:
    """The model endpoint the flags describe, made here once and carried in the configuration to the gateway."""
    from matchmeter.errors import UserError
    from matchmeter.schema import ModelEndpoint

    if prices is not None and not prices.is_file():
        raise UserError("price file not found", str(prices), "pass a TOML file with [[price]] entries")
    return ModelEndpoint(api_base=api_base or None, api_key_env=api_key_env or None,
                         prices=str(prices.resolve()) if prices else None, use_cache=not no_cache)


def _check_spend_cap(value: float | None, flag: str = "--spend-cap") -> float | None:
    """A spend cap is a positive, finite number of USD (-1, 0, nan and inf would cap nothing or everything)."""
    import math

    from matchmeter.errors import UserError

    if value is not None and not (math.isfinite(value) and value > 0):
        raise UserError(f"{flag} must be a positive number of USD, not {value:g}", flag, "e.g. --spend-cap 5")
    return value


def _io_error(exc: OSError, out: Path, hint: str) -> Exception:
    """A file-system error during a command that stores as it goes (a full disk, a directory made read-only):
    one line with the path and the command that resumes; what was stored stays (every write is atomic)."""
    from matchmeter.errors import UserError

    where = exc.filename if exc.filename is not None else out
    return UserError(f"cannot write: {exc.strerror or type(exc).__name__}", str(where),
                     f"free space or fix permissions there, then resume with: {hint}")


def _resume_hint(extra: str = "") -> str:
    """The command line that continues an interrupted command (printed on Ctrl-C, also with --quiet)."""
    import shlex

    args = sys.argv[1:]
    return "matchmeter " + " ".join(shlex.quote(a) for a in args) + (f" {extra}" if extra and extra not in args else "")


def _warn(lines: list[str]) -> None:
    from rich.markup import escape

    for line in lines:  # escaped: a message's own brackets ([[price]]) are text, not markup
        _console(stderr=True).print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


# ------------------------------------------------------------------ tasks


@tasks_app.command("list")
def tasks_list(
    path: list[Path] = typer.Argument(None, help="Task directories or suites (default: the built-in suite)."),
    core: bool = typer.Option(False, help="Only the Core subset."),
    as_json: bool = typer.Option(False, "--json", help="Print the tasks as a JSON list (full ids, for scripts)."),
) -> None:
    """List tasks with family, difficulty and subgoals."""
    from matchmeter.tasks.commands import list_tasks, task_rows

    if as_json:
        import json

        from matchmeter.tasks.loader import load_tasks

        typer.echo(json.dumps(task_rows(load_tasks(path or [], core=core)), indent=2))
        return
    list_tasks(path or [], core=core, console=_console())


@tasks_app.command("import")
def tasks_import(
    src: Path = typer.Argument(..., help="A Terminal-Bench 1 task directory (task.yaml, solution.sh, run-tests.sh)."),
    dest: Path = typer.Argument(..., help="Suite directory to write <task-id>/ into."),
) -> None:
    """Convert a Terminal-Bench 1 task into matchmeter's task format."""
    from matchmeter.tasks.commands import import_task

    import_task(src, dest, console=_console())


@tasks_app.command("export")
def tasks_export(
    out: Path = typer.Argument(..., help="Directory to write one <task-id>/ per task into."),
    path: list[Path] = typer.Option(None, "--path", help="Task directories or suites (default: the built-in suite)."),
    fmt: str = typer.Option("harbor", "--format", help="Output format: harbor."),
    seed: int = typer.Option(0, help="Seed baked into each exported image (MM_SEED)."),
    core: bool = typer.Option(False, help="Only the Core subset."),
    task: list[str] = typer.Option(None, "--task", help="Only these task ids."),
    base_image: str = typer.Option("matchmeter-base:latest", help="FROM image of the exported Dockerfiles."),
) -> None:
    """Write self-contained Harbor tasks (state baked into the image for one seed)."""
    from matchmeter.tasks.commands import export_tasks

    export_tasks(path or [], out, fmt, seed, core, task or [], base_image, console=_console())


@tasks_app.command("check")
def tasks_check(
    path: list[Path] = typer.Argument(None, help="Task directories or suites (default: the built-in suite)."),
    backend: str = BACKEND_OPTION,
    seeds: int = typer.Option(3, min=1, help="Seeds 0..N-1 to check."),
    concurrency: int = typer.Option(2, min=1, help="Checks run at once."),
    task: list[str] = typer.Option(None, "--task", help="Only these task ids."),
    base_alias: list[str] = typer.Option(None, "--base-alias", help=BASE_ALIAS_HELP),
    executor: str = EXECUTOR_OPTION,
    ray_address: str = RAY_ADDRESS_OPTION,
) -> None:
    """Run oracle and nop on every task and seed: oracle must score 1.0, nop below it."""
    from matchmeter.runner.check import check_tasks
    from matchmeter.runner.sandbox.baseimage import parse_aliases

    ok = check_tasks(path or [], backend=backend, seeds=seeds, concurrency=concurrency, only=task or [],
                     console=_console(), base_aliases=parse_aliases(base_alias or []),
                     executor=executor, ray_address=ray_address)
    raise typer.Exit(0 if ok else 1)


# ------------------------------------------------------------------ run


@app.command("run")
def run(
    out: Path = typer.Option(..., "--out", help="Run directory (runs/<name>)."),
    tasks: list[Path] = typer.Option(None, "--tasks", help="Task or suite directories (default: built-in suite)."),
    task: list[str] = typer.Option(None, "--task", help="Only these task ids."),
    core: bool = typer.Option(False, help="Only the Core subset."),
    agent: str = typer.Option("bash", help="Agent: bash, oracle, nop, replay, or a CLI adapter."),
    model: str = typer.Option(None, help="litellm model string (sim/expert … for offline SIMULATED runs)."),
    backend: str = BACKEND_OPTION,
    seeds: int = typer.Option(1, min=1, help="Seeds 0..N-1 per task."),
    attempts: int = typer.Option(1, min=1, help="Attempts per task × seed."),
    concurrency: int = CONCURRENCY_OPTION,
    executor: str = EXECUTOR_OPTION,
    ray_address: str = RAY_ADDRESS_OPTION,
    transport: str = typer.Option("raw", help="How commands reach the sandbox: raw, nested or escaped."),
    contract: str = typer.Option("raw", help="Generation contract: raw or disclosed."),
    replay: Path = typer.Option(None, help="Trajectory (or JSON list of commands) for --agent replay."),
    api_base: str = typer.Option(None, help=API_BASE_HELP),
    api_key_env: str = typer.Option(None, help=KEY_ENV_HELP),
    prices: Path = PRICES_OPTION,
    no_cache: bool = NO_CACHE_OPTION,
    resume: bool = typer.Option(False, help="Continue a stored run: skip finished executions, rerun partial ones."),
    retry_failed: str = typer.Option("", "--retry-failed", help="With --resume: rerun stored executions with these "
                                     "failure modes (comma-separated, e.g. infra_error,agent_error)."),
    allow_incompatible: bool = typer.Option(False, help="Keep executions whose CLI reports another model."),
    spend_cap: float = typer.Option(None, help="Stop new model calls once the run has spent this many USD."),
    with_probes: bool = typer.Option(False, help="Add the anti-gaming probe tasks (a failed probe = untrusted)."),
    quiet: bool = typer.Option(False, help="No progress bar (errors and the resume hint are still printed)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
    base_alias: list[str] = typer.Option(None, "--base-alias", help=BASE_ALIAS_HELP),
) -> None:
    """Execute configurations × tasks × seeds × attempts into a resumable run directory."""
    from matchmeter.runner.endpoints import start_warnings
    from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run
    from matchmeter.runner.sandbox.baseimage import parse_aliases

    endpoint = _endpoint(api_base, api_key_env, prices, no_cache)
    config = configuration_from_flags(agent, model, transport=transport, contract=contract, endpoint=endpoint,
                                      options={"trajectory": str(replay)} if replay else None)
    request = RunRequest(tasks=[str(p) for p in tasks or []], only=task or [], core=core, configurations=[config],
                         backend=backend, seeds=seeds, attempts=attempts, concurrency=concurrency, out=str(out),
                         resume=resume, allow_incompatible=allow_incompatible, spend_cap_usd=_check_spend_cap(spend_cap),
                         with_probes=with_probes, retry_failed=[m for m in retry_failed.split(",") if m],
                         prices=endpoint.prices, base_aliases=parse_aliases(base_alias or []),
                         executor=executor, ray_address=ray_address)
    _warn(start_warnings([config], request.prices, spend_cap))
    try:
        summary = execute_run(request, progress=not quiet)
    except KeyboardInterrupt:
        _console(stderr=True).print(f"interrupted; resume with: {_resume_hint('--resume')}", highlight=False,
                                    markup=False, soft_wrap=True)
        raise
    except OSError as exc:
        raise _io_error(exc, out, _resume_hint("--resume")) from None
    _render_run_summary(summary, as_json)
    if summary.executed and summary.infra_failures == summary.executed:
        _console(stderr=True).print(
            f"[bold red]error:[/] every one of the {summary.executed} new executions failed for infrastructure "
            f"reasons ({summary.run_dir}): fix the cause printed above, then resume with --resume --retry-failed "
            "infra_error,sandbox_error", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


def _render_run_summary(summary: RunSummary, as_json: bool = False) -> None:
    data = summary.to_json()
    if as_json:
        import json

        typer.echo(json.dumps(data, indent=2))
        return
    mean = "n/a" if data["mean_reward"] is None else f"{data['mean_reward']:.3f}"
    retried = f"; moved {summary.retried} stored failures aside to rerun" if summary.retried else ""
    _console().print(f"{'[bold yellow]SIMULATED[/] ' if data['simulated'] else ''}run {summary.run_dir}: planned "
                     f"{summary.planned}, executed {summary.executed}, skipped (already stored) {summary.skipped}"
                     f"{retried}; mean reward of new executions {mean}; failure modes {data['failure_modes'] or '{}'}; "
                     f"infrastructure failures {data['infra_failures']}; model calls {summary.lm_calls} "
                     f"({summary.lm_cache_hits} from the response cache)", highlight=False, soft_wrap=True)


# ------------------------------------------------------------------ env


@env_app.command("build-base")
def env_build_base(
    force: bool = typer.Option(False, help="Rebuild even if the image exists."),
) -> None:
    """Build the local Docker base image (debootstrap + docker import; no registry needed)."""
    from matchmeter.runner.sandbox.baseimage import build_base_image

    tag = build_base_image(force=force, console=_console())
    _console().print(f"base image ready: {tag}")


@env_app.command("prune")
def env_prune() -> None:
    """Remove every container (and temp workspace) matchmeter left behind."""
    from matchmeter.runner.sandbox.baseimage import prune

    removed = prune()
    _console().print(f"removed {removed} leftover container(s)")


# ------------------------------------------------------------------ ray

ray_app = typer.Typer(help="Ray clusters: what a node must declare to run trials (docs/ray.md).", no_args_is_help=True)
app.add_typer(ray_app, name="ray")


@ray_app.command("node-args")
def ray_node_args(
    backend: list[str] = typer.Option(None, "--backend", help="Backends to offer (default: every isolated one "
                                      "that passes its preflight here)."),
    address: str = typer.Option("HEAD:6379", "--address", help="The head's GCS address to print."),
) -> None:
    """Print the `ray start` line that makes this machine a worker for the backends it can run.

    Each backend is checked as a run checks it (its preflight: bwrap's namespaces, the Docker engine and its
    base image, which is built here when missing); a backend that fails is named on stderr with the reason."""
    import json as _json

    from matchmeter.errors import UserError
    from matchmeter.runner import ray_executor
    from matchmeter.runner.sandbox import BACKENDS, get_backend

    names = backend or list(BACKENDS)
    resources: dict[str, float] = {}
    for name in names:
        candidate = get_backend(name)
        if not backend and not candidate.capabilities.isolated:
            continue  # never offered unasked: it isolates nothing
        try:
            candidate.preflight()
        except UserError as exc:
            _console(stderr=True).print(f"not offered: {name}: {exc.line()}", highlight=False, markup=False,
                                        soft_wrap=True)
            continue
        resources.update(ray_executor.node_resources(candidate))
    if not resources:
        raise UserError("no sandbox backend can run here", "this machine",
                        "install bubblewrap or start a Docker engine (matchmeter env build-base), then retry")
    declared = {key: int(value) for key, value in sorted(resources.items())}
    print(f"ray start --address {address} --resources '{_json.dumps(declared)}'")


# ------------------------------------------------------------------ import (other harnesses' results)

import_app = typer.Typer(help="Bring in what other harnesses wrote: Harbor jobs, ATIF trajectories.",
                         no_args_is_help=True)
app.add_typer(import_app, name="import")


@import_app.command("harbor")
def import_harbor(
    job_dir: Path = typer.Argument(..., help="A Harbor job directory (jobs/<job name>, written by `harbor run`)."),
    out: Path = typer.Option(..., "--out", help="New run directory to write (then calibrate/score/report/view it)."),
) -> None:
    """A Harbor job's finished trials as a matchmeter run (rewards per key, tokens/cost where recorded)."""
    from matchmeter.runner.harbor_import import import_harbor_job

    summary = import_harbor_job(job_dir, out)
    skipped = f"; {summary.skipped_unfinished} unfinished trial(s) skipped" if summary.skipped_unfinished else ""
    _console().print(f"imported {summary.imported} trial(s) into {summary.run_dir}: "
                     f"{len(summary.configurations)} configuration(s) ({', '.join(summary.configurations)}), "
                     f"{len(summary.tasks)} task(s){skipped}", highlight=False, soft_wrap=True)


@import_app.command("atif")
def import_atif(
    files: list[Path] = typer.Argument(..., help="ATIF v1.x trajectory files (from any harness)."),
    out: Path = typer.Option(..., "--out", help="Directory to write <name>.trajectory.json (our schema) into."),
) -> None:
    """ATIF trajectories as matchmeter trajectories (actions, model calls, tokens and cost where recorded)."""
    from matchmeter.runner.atif_files import import_atif_files

    for line in import_atif_files(files, out):
        _console().print(line, highlight=False, soft_wrap=True, markup=False)


# ------------------------------------------------------------------ calibrate / score (metrics)


@app.command("calibrate")
def calibrate(
    runs: list[Path] = typer.Argument(..., help="Reference run directories (runs/<run-id>) on Original descriptions."),
    out: Path = typer.Option(..., "--out", help="Calibration file to write (JSON)."),
    alpha: float = typer.Option(0.5, min=0.0, max=1.0, help="AMS weight of TQ against AUBQC."),
    reference_config: list[str] = typer.Option(None, "--reference-config", help="Reference configuration ids (default: all)."),
    prices: Path = typer.Option(None, help="Re-price the stored token counts with the shipped table + this file "
                                "(then score and report with the same file)."),
) -> None:
    """Freeze effort strata, budget grids and expensive-failure thresholds from reference runs."""
    from matchmeter.metrics.calibration import calibrate_runs

    cal = calibrate_runs(runs, out, alpha=alpha, reference_config_ids=reference_config or [], prices=prices)
    sizes = ", ".join(f"{s} {c.n_tasks}" for s, c in cal.strata.items())
    _console().print(f"calibration written: {out} ({len(cal.tasks)} tasks: {sizes}; "
                     f"{len(cal.reference_configuration_ids)} reference configurations; digest {cal.reference_digest[:12]})",
                     highlight=False, soft_wrap=True)


@app.command("score")
def score(
    runs: list[Path] = typer.Argument(..., help="Run or evaluation directories (runs/<run-id>) to score."),
    calibration: Path = typer.Option(..., "--calibration", help="Calibration file from `matchmeter calibrate`."),
    out_dir: Path = typer.Option(Path("scores"), "--out-dir", help="Where scores.csv and scores.json go."),
    alpha: float = typer.Option(None, min=0.0, max=1.0, help="Override the calibration's α (an ablation)."),
    condition: list[str] = typer.Option(None, "--condition", help="Description condition of an evaluation directory: "
                                        "original (default), self, cross_only, pooled, generic; repeat for one table each."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Score configurations that miss calibrated tasks "
                                       "over what they ran, marked PARTIAL (refused by default)."),
    prices: Path = typer.Option(None, help="Re-price the stored token counts with the shipped table + this file "
                                "(the output says so)."),
    as_json: bool = typer.Option(False, "--json", help="Print scores.json to stdout instead of the table (one JSON "
                                 "object per condition)."),
) -> None:
    """AMS per configuration against a frozen calibration (never recalibrates), one table per condition."""
    import json

    from matchmeter.metrics.scoring import score_payload, score_runs, write_score_outputs
    from matchmeter.report.terminal import render_scores

    conditions = list(dict.fromkeys(condition or ["original"]))
    reports = [score_runs(runs, calibration, alpha=alpha, condition=cond, allow_partial=allow_partial, prices=prices)
               for cond in conditions]
    written = [write_score_outputs(r, out_dir, "scores" if len(conditions) == 1 else f"scores-{r.condition}")
               for r in reports]
    if as_json:
        for report in reports:
            typer.echo(json.dumps(score_payload(report), indent=2))
        return
    console = _console()
    for report, paths in zip(reports, written, strict=True):
        render_scores(report, console)
        console.print("written: " + ", ".join(map(str, paths)), highlight=False, soft_wrap=True)


# ------------------------------------------------------------------ agents (CLI adapter profiles)

agents_app = typer.Typer(help="Agents and CLI adapters: machine-readable profiles.", no_args_is_help=True)
app.add_typer(agents_app, name="agents")


@agents_app.command("profiles")
def agents_profiles(
    as_json: bool = typer.Option(False, "--json", help="Print the profiles as a JSON list."),
) -> None:
    """Every CLI adapter's profile: version, verified, approval mode, prompt mode, log, install kind, and
    whether its install can happen on this machine now (a short request to its registry, or the cache)."""
    from matchmeter.runner.agents.adapters import profiles
    from matchmeter.runner.agents.adapters.readiness import readiness

    found = [(p, readiness(p)) for p in profiles()]
    if as_json:
        import json

        typer.echo(json.dumps([{**p.model_dump(mode="json"), "runs_here": {"ready": r.ready, "reason": r.reason}}
                               for p, r in found], indent=2))
        return
    from rich.table import Table

    table = Table("name", "version", "verified", "approval mode", "prompt", "model flag", "log", "install",
                  "runs here now")
    for p, r in found:
        install = f"{p.install.kind}:{p.install.package}" + (f"=={p.install.version}" if p.install.version else "")
        table.add_row(p.name, p.version, "yes" if p.verified else "no", p.approval_mode.split(" (")[0], p.prompt_mode,
                      p.model_flag or "-", p.log_location, install,
                      f"{'yes' if r.ready else 'no'}: {r.reason.split(' (')[0].split(';')[0]}")  # --json: in full
    _console().print(table)


# ------------------------------------------------------------------ optimize / audit (description optimizer)


@app.command("optimize")
def optimize(
    run: list[Path] = typer.Option(..., "--run", help="Source run directory (Original descriptions); repeatable."),
    out: Path = typer.Option(..., "--out", help="Description-set directory to write (resumable)."),
    rewriter_model: str = typer.Option(..., "--rewriter-model", help="Rewriter model (sim/rewriter offline)."),
    judge_model: str = typer.Option(..., "--judge-model", help="Judge model (sim/judge offline); ideally another family."),
    sources: str = typer.Option("", "--sources", help="Comma-separated source configuration ids (default: all in the run)."),
    judge_votes: int = typer.Option(1, "--judge-votes", min=1, help="Judge votes per candidate; a strict majority must pass."),
    candidates: int = typer.Option(3, "--candidates", min=1, help="Candidates per (task, source)."),
    backend: str = typer.Option(None, "--backend", help="Sandbox backend for source-side runs (default: the source run's)."),
    api_base: str = typer.Option(None, "--api-base", help="OpenAI-compatible endpoint for the rewriter and judge."),
    api_key_env: str = typer.Option(None, "--api-key-env", help="Key variable for the rewriter and judge. " + KEY_ENV_HELP),
    rewriter_api_base: str = typer.Option(None, "--rewriter-api-base", help="Rewriter endpoint (overrides --api-base)."),
    rewriter_api_key_env: str = typer.Option(None, "--rewriter-api-key-env", help="Rewriter key variable (overrides --api-key-env)."),
    judge_api_base: str = typer.Option(None, "--judge-api-base", help="Judge endpoint (overrides --api-base)."),
    judge_api_key_env: str = typer.Option(None, "--judge-api-key-env", help="Judge key variable (overrides --api-key-env)."),
    prices: Path = PRICES_OPTION,
    no_cache: bool = NO_CACHE_OPTION,
    spend_cap: float = typer.Option(None, help="Stop new rewriter/judge calls once they have spent this many USD."),
    generic: bool = typer.Option(True, "--generic/--no-generic", help="Also build the public-only Generic rewrites."),
    concurrency: int = typer.Option(1, min=1, help="Trials at once; (task, source) units run side by side to fill them."),
    executor: str = EXECUTOR_OPTION,
    ray_address: str = RAY_ADDRESS_OPTION,
    judge_min_catch: float = typer.Option(None, "--judge-min-catch", min=0, max=1,
                                          help="Refuse a judge that caught less of the held-out unfaithful rewrites."),
    judge_max_false_rejection: float = typer.Option(None, "--judge-max-false-rejection", min=0, max=1,
                                                    help="Refuse a judge that rejected more of the held-out faithful ones."),
    allow_unmeasured_judge: bool = typer.Option(False, "--allow-unmeasured-judge",
                                                help="Use a judge `gate eval` has not measured (or out of the bounds)."),
    quiet: bool = typer.Option(False, help="No progress bar."),
) -> None:
    """Rewrite → gate → source-side select → freeze a description set (descriptions.json)."""
    from matchmeter.optimizer.pipeline import OptimizeRequest
    from matchmeter.optimizer.pipeline import optimize as run_optimize

    request = OptimizeRequest(runs=[str(r) for r in run], sources=[s for s in sources.split(",") if s],
                              rewriter_model=rewriter_model, judge_model=judge_model, judge_votes=judge_votes,
                              candidates=candidates, out=str(out), backend=backend, api_base=api_base, generic=generic,
                              concurrency=concurrency, api_key_env=api_key_env, rewriter_api_base=rewriter_api_base,
                              rewriter_api_key_env=rewriter_api_key_env, judge_api_base=judge_api_base,
                              judge_api_key_env=judge_api_key_env, use_cache=not no_cache, spend_cap_usd=_check_spend_cap(spend_cap),
                              prices=_endpoint(None, None, prices, False).prices, executor=executor,
                              ray_address=ray_address, judge_min_catch=judge_min_catch,
                              judge_max_false_rejection=judge_max_false_rejection,
                              allow_unmeasured_judge=allow_unmeasured_judge)
    _warn(_optimize_warnings(request))
    try:
        summary = run_optimize(request, progress=not quiet)
    except KeyboardInterrupt:
        _console(stderr=True).print(f"interrupted; resume by running the same command again: {_resume_hint()}",
                                    highlight=False, markup=False, soft_wrap=True)
        raise
    except OSError as exc:
        raise _io_error(exc, out, _resume_hint()) from None
    _render_optimize_summary(summary)


def _optimize_warnings(request: OptimizeRequest) -> list[str]:
    from matchmeter.llm.pricing import PriceTable

    table = PriceTable.load(overrides=request.prices)
    unpriced = [m for role in ("rewriter", "judge") for m in [getattr(request, f"{role}_model")]
                if table.lookup(m, strip_prefix=not request.endpoint(role)[0]) is None]
    if request.spend_cap_usd is not None and unpriced:
        return [f"--spend-cap cannot stop spend on unpriced model(s) {', '.join(unpriced)}: their cost is unknown; "
                "price them with --prices FILE"]
    return []


def _spend_text(usd: float, unpriced_calls: int) -> str:
    """Never $0 for calls nobody priced: unknown, with how many."""
    if unpriced_calls:
        priced = f" (+ ${usd:.6f} priced)" if usd else ""
        return f"unknown ({unpriced_calls} unpriced calls){priced}"
    return f"${usd:.6f}"


def _cost_text(usd: float | None, unpriced: int, reason: str | None) -> str:
    """A total that is unknown says so, with how many executions had no price and why."""
    if usd is None:
        return f"cost unknown ({unpriced} unpriced executions: {reason or 'no price'})"
    return f"${usd:.6f}"


def _render_optimize_summary(s: OptimizeSummary) -> None:
    console = _console()
    for warning in s.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    stub = "" if s.stub_calls is None else f"; SIMULATED stub answered {s.stub_calls} chat requests"
    drifted = "".join(f"\n  drifted {d}" for d in s.audit_drifted)
    console.print(
        f"{'[bold yellow]SIMULATED[/] ' if s.simulated else ''}optimize {s.descset}: units run {s.units_run}, "
        f"skipped {s.units_skipped}; candidates generated {s.generated}, rejected by rule {s.rejected_by_rule}, "
        f"rejected by judge {s.rejected_by_judge}, eligible {s.eligible}; selected {s.selected}, fell back "
        f"{s.fell_back}; generic selected {s.generic_selected}, fell back {s.generic_fell_back}; unparsable "
        f"rewrites {s.unparsable_rewrites}\nLM: {s.lm_calls} calls, {s.lm_cache_hits} cache hits, spend "
        f"{_spend_text(s.lm_spend_usd, s.lm_unpriced_calls)}; source-side: {s.source_side_executions} executions, "
        f"{_cost_text(s.source_side_cost_usd, s.source_side_unpriced, s.source_side_cost_null_reason)}{stub}\npreservation audit: {s.audit_passed}/{s.audit_selected} selected "
        f"descriptions passed the gate; re-running the rules on the frozen set: {len(s.audit_drifted)} drifted"
        f"{drifted}\n{s.judge_note}\nfrozen: {s.descriptions_json} (digest {s.digest[:16]})", highlight=False)


@app.command("audit")
def audit(
    descset: Path = typer.Argument(..., help="Description-set directory written by `matchmeter optimize`."),
    reason: str = typer.Option(None, "--reason", help="Only reasons starting with this (e.g. drops_literal, judge)."),
    task: str = typer.Option(None, "--task", help="Only this task id."),
    source: str = typer.Option(None, "--source", help="Only this source configuration id (or 'generic')."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable JSON list."),
) -> None:
    """List rejected candidates with their reasons, judge votes and a diff against Original."""
    import json

    from matchmeter.optimizer.report import audit_descset

    entries = audit_descset(descset, reason=reason, task=task, source=source)
    if as_json:
        print(json.dumps([e.model_dump(mode="json") for e in entries], indent=2))
        return
    console = _console()
    shown: set[str] = set()
    for e in entries:
        if e.task_id not in shown and e.contract:  # the contract once per task: what every rule checked
            shown.add(e.task_id)
            console.print(f"contract of {e.task_id}:\n  " + "\n  ".join(e.contract), markup=False, highlight=False)
        console.print(f"[bold]{e.task_id}[/] / {e.source} / {e.candidate_id}: rejected by {e.rejected_by}: "
                      f"{', '.join(e.reasons)}", highlight=False)
        if e.broken:
            from rich.table import Table

            table = Table(show_lines=True, expand=True)
            for col in ("obligation broken", "original", "rewrite"):
                table.add_column(col, ratio=1, overflow="fold")
            for b in e.broken:
                table.add_row(b["obligation"], b["original"], b["rewrite"])
            console.print(table)
        console.print(e.diff, markup=False, highlight=False)
    console.print(f"{len(entries)} rejected candidate(s)", highlight=False)


# ------------------------------------------------------------------ gate (qualify the preservation gate)

gate_app = typer.Typer(help="The preservation gate: measure its rules and judge on a labelled corpus.", no_args_is_help=True)
app.add_typer(gate_app, name="gate")


@gate_app.command("eval")
def gate_eval(
    judge_model: str = typer.Option(None, "--judge-model", help="Judge to qualify (e.g. sim/judge, openai/gpt-4o-mini)."),
    corpus: Path = typer.Option(None, "--corpus", help="Labelled gate corpus (.jsonl; default: the built-in one)."),
    split: str = typer.Option("test", "--split", help="heldout (the v3 held-out split; qualifies the judge), "
                              "test (the generated corpus's held-out fifth), dev or all."),
    judge_replies: Path = typer.Option(None, "--judge-replies", help="Recorded judge replies (.jsonl of {id, reply}) "
                                       "to measure instead of calling a model."),
    votes: int = typer.Option(1, "--votes", min=1, help="Judge votes per case (strict majority passes)."),
    api_base: str = typer.Option(None, "--api-base", help="Endpoint of the judge (sim/* use the built-in stub)."),
) -> None:
    """Caught/total per unfaithful kind and false rejections per faithful kind: rules, judge, both."""
    from matchmeter.optimizer.gate_eval import render_gate_eval, run_gate_eval

    render_gate_eval(run_gate_eval(corpus, judge_model, split=split, votes=votes, api_base=api_base,
                                   judge_replies=judge_replies), _console())


# ------------------------------------------------------------------ evaluate / demo (pipeline)


@app.command("evaluate")
def evaluate_cmd(
    descriptions: Path = typer.Option(..., help="Frozen description set (matchmeter optimize --out)."),
    target: list[str] = typer.Option(..., "--target", help="AGENT[:MODEL], e.g. bash:sim/sloppy (repeatable)."),
    out: Path = typer.Option(..., help="Evaluation directory (a run directory; more targets may be added later)."),
    conditions: str = typer.Option("original,self,cross,pooled,adapted1,generic", help="Comma-separated conditions."),
    calibration: Path = typer.Option(None, help="Calibration file: print the condition tables when given."),
    tasks: list[Path] = typer.Option(None, "--tasks", help="Where the tasks live (default: built-in suite)."),
    backend: str = BACKEND_OPTION,
    seeds: int = typer.Option(1, min=1, help="Seeds 0..N-1 per task and description."),
    attempts: int = typer.Option(1, min=1, help="Attempts per task × description × seed."),
    concurrency: int = CONCURRENCY_OPTION,
    executor: str = EXECUTOR_OPTION,
    ray_address: str = RAY_ADDRESS_OPTION,
    reuse: list[Path] = typer.Option(None, "--reuse", help="Run directories whose executions with the same key "
                                     "(same configuration, task, description, seed, attempt; any endpoint) are adopted."),
    api_base: str = typer.Option(None, help="Endpoint of every non-sim target. " + API_BASE_HELP),
    api_key_env: str = typer.Option(None, help="Key variable of every non-sim target. " + KEY_ENV_HELP),
    prices: Path = PRICES_OPTION,
    no_cache: bool = NO_CACHE_OPTION,
    quiet: bool = typer.Option(False, help="No progress bar (errors and the resume hint are still printed)."),
    base_alias: list[str] = typer.Option(None, "--base-alias", help=BASE_ALIAS_HELP),
) -> None:
    """Evaluate targets under Original / Self / Cross-only / Pooled / Adapted-1 / Generic descriptions."""
    from matchmeter.pipeline.evaluate import EvaluateRequest, evaluate, parse_target, render_evaluation
    from matchmeter.runner.endpoints import start_warnings
    from matchmeter.runner.sandbox.baseimage import parse_aliases

    endpoint = _endpoint(api_base, api_key_env, prices, no_cache)
    request = EvaluateRequest(descriptions=str(descriptions), targets=[parse_target(t, endpoint) for t in target],
                              conditions=[c.strip() for c in conditions.split(",") if c.strip()], out=str(out),
                              tasks=[str(p) for p in tasks or []], backend=backend, seeds=seeds, attempts=attempts,
                              concurrency=concurrency, reuse=[str(p) for p in reuse or []], prices=endpoint.prices,
                              base_aliases=parse_aliases(base_alias or []),
                              executor=executor, ray_address=ray_address)
    _warn(start_warnings(request.targets, request.prices, None))
    try:
        summary = evaluate(request, progress=not quiet)
    except KeyboardInterrupt:
        _console(stderr=True).print(f"interrupted; resume by running the same command again: {_resume_hint()}",
                                    highlight=False, markup=False, soft_wrap=True)
        raise
    except OSError as exc:
        raise _io_error(exc, out, _resume_hint()) from None
    render_evaluation(summary, calibration, _console())
    if summary.executed and summary.infra_failures == summary.executed:
        _console(stderr=True).print(f"[bold red]error:[/] every one of the {summary.executed} new executions failed "
                                    "for infrastructure reasons: fix the cause printed above and run again",
                                    highlight=False, soft_wrap=True)
        raise typer.Exit(1)


@app.command("demo")
def demo(
    out: Path = typer.Option(Path("demo-out"), help="Where every stage writes (resumable)."),
    backend: str = typer.Option(None, help="Sandbox backend (default: bwrap, or local when bwrap is missing)."),
    concurrency: int = typer.Option(2, min=1, help="Trials run at once."),
    scope: str = typer.Option("demo", help="demo (12 Core tasks, a few minutes), core (30 tasks) or full (all)."),
) -> None:
    """The whole pipeline offline on the embedded defaults (SIMULATED sim/ models through the stub)."""
    from matchmeter.pipeline.demo import DemoRequest, run_demo

    run_demo(DemoRequest(out=str(out), backend=backend, concurrency=concurrency, scope=scope), _console())


# ------------------------------------------------------------------ report (tables + HTML)


@app.command("report")
def report(
    runs: list[Path] = typer.Argument(..., help="Run directories (runs/<run-id>): Original runs and/or evaluate runs."),
    calibration: Path = typer.Option(..., "--calibration", help="Calibration file from `matchmeter calibrate`."),
    out: Path = typer.Option(Path("report.html"), "--out", help="HTML file to write (self-contained)."),
    tables_dir: Path = typer.Option(None, "--tables-dir", help="Where <table>.csv/.json go (default: <out stem>-tables/)."),
    tasks: list[Path] = typer.Option(None, "--tasks", help="Task or suite directories (default: those in the run manifests)."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=10, help="Bootstrap resamples for AMS intervals."),
    draws: int = typer.Option(10_000, "--draws", min=1, help="Adapted-1 draws."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and the Adapted-1 draws."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Score configurations that miss calibrated tasks, "
                                       "marked PARTIAL (refused by default)."),
    prices: Path = typer.Option(None, help="Re-price the stored token counts with the shipped table + this file "
                                "(the output says so)."),
    quiet: bool = typer.Option(False, help="Do not print the tables."),
) -> None:
    """Tables (terminal, CSV, JSON) and one self-contained HTML report with plots."""
    from matchmeter.report.html import summary_line, write_report
    from matchmeter.report.render import render_tables

    summary = write_report(runs, calibration, out, tables_dir=tables_dir, task_paths=tasks or [],
                           n_resamples=bootstrap, seed=seed, n_draws=draws, allow_partial=allow_partial,
                           prices=prices)
    console = _console()
    if not quiet:
        render_tables(summary.tables, console)
    console.print(summary_line(summary), highlight=False, soft_wrap=True)


# ------------------------------------------------------------------ view (local web UI)


@app.command("view")
def view(
    paths: list[Path] = typer.Argument(..., help="Run directories, description sets (optimize --out), calibration "
                                       "files, or directories holding them (e.g. a demo output)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0 picks a free one)."),
) -> None:
    """Local read-only web UI on 127.0.0.1: runs, task grid, executions side by side, optimizer audit."""
    from matchmeter.report.view import serve

    serve(paths, port, lambda url: _console().print(f"matchmeter view on {url} (read-only; Ctrl-C stops)",
                                                    highlight=False))


# ------------------------------------------------------------------ entry point


def main() -> None:
    """Console-script entry: run the app and render errors in one place."""
    import faulthandler
    import signal

    from matchmeter.errors import MatchmeterError, UserError

    # A run that seems stuck can be asked where it is: `kill -USR1 <pid>` prints every thread's stack to stderr.
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (OSError, ValueError, AttributeError):  # a stderr with no file descriptor: the CLI called in-process
        pass
    try:
        rc = app(standalone_mode=False)
    except UserError as exc:
        from rich.markup import escape

        # escaped: a message's own brackets ([[price]], a list of names) are text, not rich markup
        _console(stderr=True).print(f"[bold red]error:[/] {escape(exc.line())}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        _console(stderr=True).print("interrupted")
        sys.exit(130)
    except MatchmeterError as exc:
        # Not the user's input but what a command met on its way (a model endpoint that failed the rewriter or
        # the judge): one line, exit 1; what was stored is kept and the same command continues from it.
        _console(stderr=True).print(f"error: {exc}; fix that, then resume by running the same command again: "
                                    f"{_resume_hint()}", highlight=False, markup=False, soft_wrap=True)
        sys.exit(1)
    except Exception as exc:
        # typer vendors click, so its exceptions are matched by shape: usage errors show themselves.
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(exc.exit_code)
        if type(exc).__name__ == "Abort":
            sys.exit(130)
        raise
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
