"""`matchmeter optimize`: rewrite → gate → source-side select → freeze, one resumable (task, source) unit at a time.

Inputs are a finished source run (Original descriptions) and the models; the output directory holds

    optimize.json            the request this directory is bound to (resuming with other flags is refused)
    state/<task>/<src>.json  one finished unit (records.UnitState), written atomically
    source-runs/             a run directory of the candidates' source-side executions (runner store)
    descriptions.json        the frozen set (freeze.py), written last

Source-side executions use the source configuration, the source run's backend (unless overridden)
and the exact (seed, attempt) pairs of its Original executions; task budgets come from the tasks,
whose digests must match the source run's. `sim/*` models get an OptimizerStub for the duration.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.gate.judge import Judge, same_family_warning
from matchmeter.gate.rules import ReferenceKnowledge
from matchmeter.llm.spend import SpendLedger
from matchmeter.optimizer.freeze import build_frozen, write_frozen
from matchmeter.optimizer.gate_eval import check_judge, judge_note
from matchmeter.optimizer.generic import generic_unit
from matchmeter.optimizer.records import GENERIC, UnitState, source_slug
from matchmeter.optimizer.report import OptimizeSummary, summarize
from matchmeter.optimizer.sourceside import SourceRun, SourceSide, bind_source_side, source_spec, source_unit
from matchmeter.runner.context import executor_session, progress_bar
from matchmeter.runner.oracle_outputs import oracle_outputs
from matchmeter.runner.store import check_out_dir
from matchmeter.schema import TaskSpec, canonical_json

if TYPE_CHECKING:
    from matchmeter.llm.client import LMClient
    from matchmeter.llm.protocols import LMClientLike


class OptimizeRequest(BaseModel):
    runs: list[str] = Field(min_length=1, description="Source run directories (Original descriptions).")
    sources: list[str] = Field(default_factory=list, description="Source configuration ids ([] = every one in the run).")
    rewriter_model: str
    judge_model: str
    judge_votes: int = Field(1, ge=1)
    candidates: int = Field(3, ge=1)
    out: str
    backend: str | None = Field(None, description="Sandbox backend for source-side runs (default: the source run's).")
    api_base: str | None = Field(None, description="Endpoint for the rewriter and judge (sim/* use the built-in stub).")
    api_key_env: str | None = Field(None, description="Key variable for the rewriter and judge.")
    rewriter_api_base: str | None = Field(None, description="Rewriter endpoint (overrides api_base).")
    rewriter_api_key_env: str | None = Field(None, description="Rewriter key variable (overrides api_key_env).")
    judge_api_base: str | None = Field(None, description="Judge endpoint (overrides api_base).")
    judge_api_key_env: str | None = Field(None, description="Judge key variable (overrides api_key_env).")
    prices: str | None = Field(None, description="A price file merged over the shipped table.")
    use_cache: bool = True
    generic: bool = True
    concurrency: int = Field(1, ge=1, description="Trials at once: units run side by side, sharing this many trial slots.")
    spend_cap_usd: float | None = Field(None, gt=0, allow_inf_nan=False, description="One cap on the rewriter's and the judge's new spend, "
                                        "shared by every unit running side by side.")
    executor: str = Field("local", description="Where source-side trials run: local (thread pool) or ray.")
    ray_address: str | None = None
    judge_min_catch: float | None = Field(None, ge=0, le=1, description="Refuse a judge that caught less of the held-out "
                                          "unfaithful rewrites (gate eval --split heldout).")
    judge_max_false_rejection: float | None = Field(None, ge=0, le=1, description="Refuse a judge that rejected more of "
                                                    "the held-out faithful rewrites.")
    allow_unmeasured_judge: bool = Field(False, description="Use a judge whose rates are unknown or out of bounds.")

    def binding(self) -> dict[str, Any]:
        """What the output directory is bound to (not endpoints, keys, prices, cache or concurrency: they do
        not change results)."""
        return self.model_dump(mode="json", exclude=REACH_FIELDS)

    def endpoint(self, role: str) -> tuple[str | None, str | None]:
        """(api_base, api_key_env) of the rewriter or the judge: the per-role flag, else the shared one."""
        return (getattr(self, f"{role}_api_base") or self.api_base,
                getattr(self, f"{role}_api_key_env") or self.api_key_env)


REACH_FIELDS = {"api_base", "api_key_env", "rewriter_api_base", "rewriter_api_key_env", "judge_api_base",
                "judge_api_key_env", "prices", "use_cache", "concurrency", "spend_cap_usd", "executor", "ray_address",
                "judge_min_catch", "judge_max_false_rejection", "allow_unmeasured_judge"}


def _bind_out(request: OptimizeRequest) -> Path:
    out = Path(request.out)
    bound = out / "optimize.json"
    if bound.exists():
        old = json.loads(bound.read_text(encoding="utf-8"))
        if canonical_json(old) != canonical_json(request.binding()):
            raise UserError("this description set was built with different flags", str(bound),
                            "repeat the original flags, or choose another --out")
    else:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(bound, json.dumps(request.binding(), indent=2, sort_keys=True) + "\n")
    return out


@contextlib.contextmanager
def _stub(request: OptimizeRequest, source: SourceRun) -> Iterator[Any]:
    """One loopback stub for sim/rewriter, sim/judge and sim/<persona> agents, when any of them is used."""
    sim_lm = any(m.startswith("sim/") for m in (request.rewriter_model, request.judge_model))
    if not sim_lm and not any(c.simulated for c in source.configurations):
        yield None
        return
    from matchmeter.optimizer.sim_replies import OptimizerStub

    with OptimizerStub(None, suite_dirs=source.task_dirs, tasks={t.id: t for t in source.tasks}) as stub:
        yield stub


def _client(role: str, request: OptimizeRequest, stub_url: str | None, spend: SpendLedger | None = None) -> LMClient:
    from matchmeter.llm.client import LMClient
    from matchmeter.llm.pricing import PriceTable

    model = getattr(request, f"{role}_model")
    base, key_env = request.endpoint(role)
    if not base and stub_url and model.startswith("sim/"):
        base = f"{stub_url}/v1"  # the built-in stub serves sim/rewriter and sim/judge
    return LMClient(model, api_base=base, api_key_env=key_env, spend=spend,
                    price_table=PriceTable.load(overrides=request.prices), use_cache=request.use_cache)


def _spend_ledger(request: OptimizeRequest) -> Any:
    """The rewriter's and the judge's one spend ledger: every unit's clients charge it, so units running side
    by side share one cap (None: each client keeps its own uncapped count)."""
    if request.spend_cap_usd is None:
        return None
    return SpendLedger(cap_usd=request.spend_cap_usd)


def _preflight_lms(request: OptimizeRequest) -> None:
    """One cheap call to the rewriter's and the judge's endpoints (sim/ models are served by the stub)."""
    from matchmeter.llm.preflight import Endpoint, preflight_endpoints

    preflight_endpoints([Endpoint(getattr(request, f"{role}_model"), *request.endpoint(role))
                         for role in ("rewriter", "judge")], use_cache=request.use_cache)


def state_path(out: Path, task_id: str, source: str) -> Path:
    return out / "state" / task_id / f"{source_slug(source)}.json"


def optimize(request: OptimizeRequest, progress: bool = True) -> OptimizeSummary:
    """Run every unfinished unit, then freeze `descriptions.json` and audit it. Returns the summary."""
    check_out_dir(Path(request.out), ("optimize.json",))
    check_judge(request.judge_model, min_catch=request.judge_min_catch, max_false_rejection=request.judge_max_false_rejection,
                allow_unmeasured=request.allow_unmeasured_judge)
    source = SourceRun.open([Path(r) for r in request.runs], request.sources)
    units = [(t, s) for t in source.tasks for s in [*source.source_ids, *([GENERIC] if request.generic else [])]]
    todo = [(t, s) for t, s in units if not state_path(Path(request.out), t.id, s).exists()]
    # Units side by side, sharing `concurrency` trial slots: at most that many trials at once either way.
    side_by_side = max(1, min(request.concurrency, len(todo)))
    # a bad backend, agent, executor or endpoint fails before --out is written
    checked = source_spec(Path(request.out) / "source-runs", source, request.backend,
                          max(1, request.concurrency // side_by_side), request.executor, request.ray_address).preflight()
    _preflight_lms(request)
    out = _bind_out(request)
    warnings = [w for w in [same_family_warning(request.rewriter_model, request.judge_model)] if w]
    done_before = len(units) - len(todo)
    ledger = _spend_ledger(request)
    clients: list[Any] = []
    with _stub(request, source) as stub, executor_session(request.executor, request.ray_address):
        stub_url = stub.url if stub is not None else None
        with checked.open(lambda store: bind_source_side(store, source, checked.backend.name), stub_url) as ctx, \
                progress_bar("optimize", progress, len(units), done_before) as advance:
            side = SourceSide(ctx)

            def unit(task: TaskSpec, src: str) -> None:
                # Each unit its own clients (their counters are not shared between threads); one spend ledger.
                rewriter, judge_client = (_client(role, request, stub_url, ledger) for role in ("rewriter", "judge"))
                clients.extend([rewriter, judge_client])
                try:
                    state = _run_unit(task, src, source, side, rewriter, Judge(judge_client), request)
                finally:
                    rewriter.close()
                    judge_client.close()
                atomic_write_text(state_path(out, task.id, src), state.model_dump_json(indent=2))

            _run_side_by_side(todo, unit, side_by_side, advance)
            if side.executed:
                side.store.rebuild_table()
    states = [UnitState.model_validate_json(state_path(out, t.id, s).read_text()) for t, s in units]
    frozen = build_frozen(states, sources=source.source_ids, source_run=source.identity(),
                          settings={"rewriter_model": request.rewriter_model, "judge_model": request.judge_model,
                                    "judge_votes": request.judge_votes, "candidates": request.candidates},
                          simulated=source.simulated or "sim/" in request.rewriter_model + request.judge_model)
    path = write_frozen(out, frozen)
    summary = summarize(states, frozen, path, source.tasks, units_run=len(units) - done_before,
                        units_skipped=done_before, clients=tuple(clients), source_side=side,
                        warnings=warnings)
    summary.stub_calls = stub.stats.http_calls if stub is not None else None
    summary.judge_note = judge_note(request.judge_model)
    return summary


def _run_side_by_side(todo: list[tuple[TaskSpec, str]], unit: Callable[[TaskSpec, str], object], width: int,
                      advance: Callable[[str], None]) -> None:
    """Run the units `width` at a time; each finished unit is stored at once (resumable). The first failure
    (spend cap, bad input, Ctrl-C) stops scheduling; units already running finish, then it is raised."""
    if width == 1:
        for task, src in todo:
            unit(task, src)
            advance(f"{task.id} / {src}")
        return
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="unit")
    futures = {pool.submit(unit, task, src): (task, src) for task, src in todo}
    try:
        for fut in as_completed(futures):
            fut.result()
            task, src = futures[fut]
            advance(f"{task.id} / {src}")
    finally:
        for fut in futures:
            fut.cancel()
        pool.shutdown(wait=True)


def _run_unit(task: TaskSpec, src: str, source: SourceRun, side: SourceSide, rewriter: LMClientLike, judge: Judge,
              request: OptimizeRequest) -> UnitState:
    knowledge = ReferenceKnowledge.of_task(task, oracle=oracle_outputs)
    if src == GENERIC:
        return generic_unit(task, rewriter, judge, n=request.candidates, votes=request.judge_votes, knowledge=knowledge)
    return source_unit(task, src, source, side, rewriter, judge, n=request.candidates, votes=request.judge_votes,
                       knowledge=knowledge)
