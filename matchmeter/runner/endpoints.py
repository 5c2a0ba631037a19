"""What a run does around its model endpoints: preflight them, say the first error of each kind, retry
stored failures on request, and count model calls and cache hits into the summary and the manifest.

    runs/<id>/
      executions/<key>/       the stored executions (the truth)
      retried/<key>-<n>/      executions moved aside by `run --resume --retry-failed MODES`
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, get_args

from matchmeter.errors import UserError
from matchmeter.llm.preflight import Endpoint, preflight_endpoints
from matchmeter.llm.sim import PERSONAS
from matchmeter.runner.store import RunStore
from matchmeter.schema import Configuration, ExecutionResult, FailureMode

# Failures of the machinery or of the user's setup, not of the agent: a run made only of these measured nothing.
INFRA_FAILURES = frozenset({"infra_error", "sandbox_error"})
# Agents whose endpoint preflight pings once before a run; the CLI adapters' endpoints are not pinged.
CLIENT_AGENTS = frozenset({"bash"})


def model_endpoints(configurations: list[Configuration]) -> list[Endpoint]:
    """The distinct endpoints the configurations' agents call through the LM client (sim/ excluded)."""
    found = [Endpoint(c.model, c.endpoint.api_base, c.endpoint.api_key_env)
             for c in configurations if c.model and not c.simulated and c.agent.name in CLIENT_AGENTS]
    return list(dict.fromkeys(found))


def check_sim_personas(configurations: list[Configuration]) -> None:
    """A `sim/` model must name a persona the built-in stub serves: one line before anything is stored (the
    stub would answer every call of the run with an error)."""
    for c in configurations:
        persona = (c.model or "").split("/", 1)[1] if c.simulated else None
        if persona is not None and persona not in PERSONAS:
            raise UserError(f"unknown sim persona {persona!r}", f"--model {c.model}",
                            f"choose one of: {', '.join('sim/' + p for p in PERSONAS)}")


def preflight_models(endpoints: list[Endpoint]) -> None:
    """One cheap uncached call per endpoint; raises UserError naming the first unusable one."""
    if endpoints:
        preflight_endpoints(endpoints)


def unpriced_models(configurations: list[Configuration], prices: str | None) -> list[str]:
    """Models of these configurations that the (merged) price table cannot price."""
    from matchmeter.llm.pricing import PriceTable

    table = PriceTable.load(overrides=prices)
    custom = {c.model: bool(c.endpoint.api_base) for c in configurations if c.model}
    return [m for m, on_custom in custom.items() if table.lookup(m, strip_prefix=not on_custom) is None]


def start_warnings(configurations: list[Configuration], prices: str | None, spend_cap_usd: float | None) -> list[str]:
    """Warnings worth reading before a long run starts."""
    unpriced = unpriced_models(configurations, prices)
    if spend_cap_usd is not None and unpriced:
        return [f"--spend-cap ${spend_cap_usd:g} cannot stop spend on unpriced model(s) {', '.join(unpriced)}: "
                "their cost is unknown; price them with --prices FILE"]
    return []


def announce_first_errors(inner: Callable[[ExecutionResult], None] | None,
                          write: Callable[[str], object] | None = None) -> Callable[[ExecutionResult], None]:
    """Wrap a result callback: print the first error of each failure mode as it happens (also with --quiet), to
    `write`, else to the sys.stderr of the moment (not the one at import: an in-process CLI runner swaps and
    closes it)."""
    seen: set[str] = set()

    def on_result(result: ExecutionResult) -> None:
        if result.failure_mode != "none" and result.failure_mode not in seen:
            seen.add(result.failure_mode)
            first_line = (result.error or "no error text").strip().splitlines()[0][:300]
            (write or sys.stderr.write)(f"first {result.failure_mode}: {result.task_id} seed {result.seed} "
                  f"({result.configuration_id}): {first_line}\n")
        if inner is not None:
            inner(result)

    return on_result


def check_retry_failed(modes: list[str], resume: bool) -> None:
    """--retry-failed names known failure modes and goes with --resume: checked before any endpoint is called."""
    if not modes:
        return
    valid = set(get_args(FailureMode)) - {"none"}
    unknown = sorted(set(modes) - valid)
    if unknown:
        raise UserError(f"unknown failure mode {unknown[0]!r}", "--retry-failed", f"choose from {', '.join(sorted(valid))}")
    if not resume:
        raise UserError("--retry-failed only applies to a stored run", "--retry-failed", "add --resume")


def retire_failures(store: RunStore, keys: set[str], modes: list[str]) -> int:
    """Move stored executions with one of `modes` (already checked by check_retry_failed) to retried/, so this run
    executes them again."""
    if not modes:
        return 0
    moved = 0
    for key in sorted(keys & store.finished_keys()):
        mode = json.loads((store.executions / key / "result.json").read_text()).get("failure_mode")
        if mode in modes:
            target = _free_slot(store.root / "retried", key)
            target.parent.mkdir(parents=True, exist_ok=True)
            (store.executions / key).replace(target)
            moved += 1
    return moved


def _free_slot(parent: Path, key: str) -> Path:
    n = 1
    while (parent / f"{key}-{n}").exists():
        n += 1
    return parent / f"{key}-{n}"


class CallCounts(NamedTuple):
    calls: int
    hits: int


def lm_call_counts(store: RunStore, keys: list[str]) -> CallCounts:
    """Model calls and cache hits of these stored executions, read from their trajectories."""
    calls = hits = 0
    for key in keys:
        path = store.executions / key / "trajectory.json"
        if path.exists():
            model_calls = json.loads(path.read_text()).get("model_calls") or []
            calls += len(model_calls)
            hits += sum(bool(c.get("cache_hit")) for c in model_calls)
    return CallCounts(calls, hits)


def record_lm_counts(store: RunStore, new_keys: list[str]) -> CallCounts:
    """Store the totals over every stored execution in the manifest; return the counts of the new ones."""
    total = lm_call_counts(store, sorted(store.finished_keys()))
    manifest = store.read_manifest()
    store.write_manifest(manifest.model_copy(update={"lm_calls": total.calls, "lm_cache_hits": total.hits}))
    return lm_call_counts(store, new_keys)
