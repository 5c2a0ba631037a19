"""The trial's side of the model gateway: open an execution's session, and settle it when the agent ends.

The trial calls, in order (runner/trial.py):

    gw_session = open_execution(gateway, req.execution_key, config, task, seed, attempt, req.endpoint)
    sandbox = backend.create(SandboxRequest(..., gateway_socket=gateway.socket_path))
    sandbox_url = start_egress_forwarder(sandbox)            # only when the agent runs inside the sandbox
    session.gateway = GatewayAccess(gw_session, gateway.url, sandbox_url)
    ... agent.run(...) ...
    failure = settle_execution(gateway, session, logs_dir, agent_failure)   # in `finally`, before destroy

A multi-step execution keeps its one session across its steps: after each step's agent phase
`settle_step` decides that step's failure over the calls made in it (the gateway stamps each call with
the running step) and shuts the door until the next step's agent phase; `settle_execution` ends it.

`settle_execution` makes the gateway's metering the trajectory's model calls (the source of truth for
tokens, cost and the effective-model check), writes `gateway.jsonl` (every request, refused and failed
ones included) and `agent-output.log` (a CLI's own output, bounded) into the execution directory, and
decides the failure: the run's spend cap raises SpendCapReached (the run stops, the execution reruns
on resume); a budget refusal or crossing is `budget_exceeded`; otherwise the agent's own failure
stands; an agent with a model that ended cleanly without a single call is `agent_error`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.errors import AgentError, EndpointError, MatchmeterError, SpendCapReached
from matchmeter.llm.gateway import Gateway
from matchmeter.llm.gateway_session import ENDPOINT_FAILED, GatewaySession, Upstream
from matchmeter.llm.meter import ExecutionBudget, ExecutionMeter, GatewayCall

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, ModelEndpoint, TaskSpec

GATEWAY_LOG = "gateway.jsonl"
AGENT_OUTPUT_LOG = "agent-output.log"


def execution_salt(task_id: str, seed: int, attempt: int, cache_salt: str = "") -> str:
    """Cache salt of one execution: identical trials share replies, different seeds/attempts do not."""
    return ":".join([task_id, str(seed), str(attempt), cache_salt])


def upstream_for(configuration: Configuration, task: TaskSpec, seed: int, attempt: int,
                 endpoint: ModelEndpoint | None = None) -> Upstream:
    """Where this execution's calls go: the configured model at `endpoint` (the executor's for this execution: a
    sim model's is the stub's path for the task and seed), else at the configuration's."""
    endpoint = endpoint or configuration.endpoint
    return Upstream(model=str(configuration.model), endpoint=endpoint,
                    salt=execution_salt(task.id, seed, attempt, endpoint.cache_salt))


def open_execution(gateway: Gateway, execution_key: str, configuration: Configuration, task: TaskSpec, seed: int,
                   attempt: int, endpoint: ModelEndpoint | None = None) -> GatewaySession:
    """A gateway session with the task's token and USD budgets (None when the configuration has no model)."""
    budget = ExecutionBudget(tokens=task.budgets.tokens, usd=task.budgets.usd)
    return gateway.open_session(execution_key, upstream_for(configuration, task, seed, attempt, endpoint), budget)


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
    return _failure(meter, meter.calls, session, agent_failure)


def settle_step(session: AgentSession, agent_failure: MatchmeterError | None) -> MatchmeterError | None:
    """The end of one step's agent phase in a multi-step execution, whose gateway session stays open for
    the next step: calls from now until the next step's agent phase are refused (the verifier runs; nothing
    of the agent's may spend meanwhile), the metering so far becomes the trajectory's model calls, and the
    step's failure is decided as `settle_execution` decides an execution's, over this step's calls.

    Raises:
        SpendCapReached: the run's spend cap refused a call of this execution.
    """
    if session.gateway is None:
        return agent_failure
    gw = session.gateway.session
    gw.deadline = time.monotonic()
    return _failure(gw.meter, gw.meter.calls_of(session.step), session, agent_failure)


def _failure(meter: ExecutionMeter, calls: list[GatewayCall], session: AgentSession,
             agent_failure: MatchmeterError | None) -> MatchmeterError | None:
    """The trajectory's model calls from the meter; the failure of the agent phase that made `calls`."""
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
    broken = next((c for c in calls if c.error_kind in ENDPOINT_FAILED), None)
    if broken is not None:
        return EndpointError(f"the model endpoint failed: {broken.error}")
    if agent_failure is None and not calls and session.configuration.model:
        tail = session.agent_output.strip()[-400:]
        where = f" step {session.step!r}" if session.step else ""
        return AgentError(f"{session.configuration.agent.name} ended{where} without a single model call"
                          f" (its output is in {AGENT_OUTPUT_LOG}): {tail!r}")
    return agent_failure
