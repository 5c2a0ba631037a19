"""The trial's side of the model gateway: open an execution's session, and settle it when the agent ends.

The trial calls, in order (runner/trial.py):

    gw_session = open_execution(gateway, req.execution_key, config, task, seed, attempt, api_base)
    sandbox = backend.create(SandboxRequest(..., gateway_socket=gateway.socket_path))
    sandbox_url = start_egress_forwarder(sandbox)            # only when the agent runs inside the sandbox
    session.gateway = GatewayAccess(gw_session, gateway.url, sandbox_url)
    ... agent.run(...) ...
    failure = settle_execution(gateway, session, logs_dir, agent_failure)   # in `finally`, before destroy

`settle_execution` makes the gateway's metering the trajectory's model calls (the source of truth for
tokens, cost and the effective-model check), writes `gateway.jsonl` (every request, refused and failed
ones included) and `agent-output.log` (a CLI's own output, bounded) into the execution directory, and
decides the failure: the run's spend cap raises SpendCapReached (the run stops, the execution reruns
on resume); a budget refusal or crossing is `budget_exceeded`; otherwise the agent's own failure
stands; an agent with a model that ended cleanly without a single call is `agent_error`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.errors import AgentError, EndpointError, MatchmeterError, SpendCapReached
from matchmeter.llm.gateway import ENDPOINT_FAILED, Gateway, GatewaySession, Upstream
from matchmeter.llm.meter import ExecutionBudget

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec

GATEWAY_LOG = "gateway.jsonl"
AGENT_OUTPUT_LOG = "agent-output.log"


def execution_salt(task_id: str, seed: int, attempt: int, cache_salt: str = "") -> str:
    """Cache salt of one execution: identical trials share replies, different seeds/attempts do not."""
    return ":".join([task_id, str(seed), str(attempt), cache_salt])


def upstream_for(configuration: Configuration, task: TaskSpec, seed: int, attempt: int,
                 api_base: str | None = None) -> Upstream:
    """Where this execution's calls go: the configured model; agent options as the bash agent reads them."""
    options = configuration.agent.options
    return Upstream(model=str(configuration.model), api_base=api_base or options.get("api_base"),
                    api_key_env=options.get("api_key_env"),
                    salt=execution_salt(task.id, seed, attempt, options.get("cache_salt", "")),
                    timeout_s=float(options.get("timeout_s", "120")),
                    retry_attempts=int(options.get("retry_attempts", "4")),
                    retry_wait_s=float(options.get("retry_wait_s", "0.5")), use_cache=options.get("cache") != "off",
                    prices=options.get("prices"))


def open_execution(gateway: Gateway, execution_key: str, configuration: Configuration, task: TaskSpec, seed: int,
                   attempt: int, api_base: str | None = None) -> GatewaySession:
    """A gateway session with the task's token and USD budgets (None when the configuration has no model)."""
    budget = ExecutionBudget(tokens=task.budgets.tokens, usd=task.budgets.usd)
    return gateway.open_session(execution_key, upstream_for(configuration, task, seed, attempt, api_base), budget)


def settle_execution(gateway: Gateway, session: AgentSession, logs_dir: Path,
                     agent_failure: MatchmeterError | None) -> MatchmeterError | None:
    """Revoke the token, store the metering, return the execution's failure (see the module docstring).

    Raises:
        SpendCapReached: the run's spend cap refused a call of this execution.
    """
    if session.gateway is None:
        return agent_failure
    meter = gateway.close_session(session.gateway.session)
    meter.write_jsonl(logs_dir / GATEWAY_LOG)
    if session.agent_output:
        (logs_dir / AGENT_OUTPUT_LOG).write_text(session.agent_output, errors="replace")
    trajectory = session.trajectory
    trajectory.model_calls = meter.model_calls()
    trajectory.reported_models = list(dict.fromkeys(c.model_answered for c in meter.answered if c.model_answered))
    if isinstance(meter.refusal, SpendCapReached):
        raise meter.refusal
    if meter.refusal is not None:
        return meter.refusal
    # An endpoint that rejected the key, does not know the model, cannot be reached, timed out or sent a
    # malformed reply is the harness's problem, never the model's: stored as infra_error (run exits non-zero,
    # `--retry-failed infra_error` reruns it), not rerun by the executor (the client already retried).
    broken = next((c for c in meter.calls if c.error_kind in ENDPOINT_FAILED), None)
    if broken is not None:
        return EndpointError(f"the model endpoint failed: {broken.error}")
    if agent_failure is None and not meter.calls and session.configuration.model:
        tail = session.agent_output.strip()[-400:]
        return AgentError(f"{session.configuration.agent.name} ended without a single model call"
                          f" (its output is in {AGENT_OUTPUT_LOG}): {tail!r}")
    return agent_failure
