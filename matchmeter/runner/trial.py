"""One trial, start to end, as a single template method.

create sandbox → seed task (environment/setup.sh) → snapshot protected state → agent (budgets,
deadline) → **restart the sandbox: every process the agent started is killed (proven gone), /tmp,
$MM_TESTS and $MM_LOGS are fresh, and only the verifier's identity can write the logs or read the
tests** → snapshot again → copy tests into the fresh tests dir → verify, as the verifier's identity
(graded reward from weighted subgoals) → **halt: every process the verifier started is killed** → a
verifier that timed out or was killed has no verdict → read the verdict from the files of the task's
format → safety diff and deductions → anti-gaming checks → result → destroy. Nothing the agent left
running can touch the tests, the verdict or the "after" snapshot.

Exceptions: every `Exception` raised in a phase becomes the result's failure mode (a MatchmeterError its
own, anything else infra_error with its traceback). Only KeyboardInterrupt and SpendCapReached escape
run_trial, after cleanup (gateway token revoked, sandbox destroyed): neither is a result, the execution
reruns on resume. A trial cancelled by Ctrl-C is dropped by the executor, not stored.

Budget and deadline failures score 0 (the agent did not finish within what every configuration was
given); the verifier still runs so `raw_verifier_reward` shows what state the agent left.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.errors import (
    AgentError,
    EndpointError,
    InfraError,
    MatchmeterError,
    SandboxError,
    SpendCapReached,
    UserError,
)
from matchmeter.runner.agents import Agent, get_agent
from matchmeter.runner.agents.adapters import cli_install, host_paths, install_spec, needs_network
from matchmeter.runner.agents.adapters.model_check import record_effective_model
from matchmeter.runner.agents.session import AgentSession, GatewayAccess
from matchmeter.runner.gateway_link import open_execution, settle_execution
from matchmeter.runner.safety import apply_deductions, diff_snapshots, resolve
from matchmeter.runner.sandbox import ExecResult, Sandbox, SandboxBackend, SandboxRequest
from matchmeter.runner.sandbox.egress_forwarder import IN_SANDBOX_SOCKET, start_egress_forwarder
from matchmeter.runner.verdict import check_finished, prepare_command, read_verdict
from matchmeter.schema import (
    Configuration,
    Description,
    ExecutionResult,
    PhaseTiming,
    TaskSpec,
    Trajectory,
    utcnow,
)
from matchmeter.tasks.loader import setup_files, setup_run_name, task_files, verify_support_files

if TYPE_CHECKING:
    from matchmeter.llm.gateway import Gateway
    from matchmeter.llm.protocols import RunLedger

ZERO_ON_FAILURE = {"agent_timeout", "budget_exceeded", "model_mismatch", "agent_error"}
# The verifier runs git in a repository whose config the agent wrote: command-line config (which outranks
# the repo's) switches off the keys that make git run a program of the agent's choosing on status/log.
# (diff.external and textconv/filter drivers cannot be unset this way: verifiers pass --no-ext-diff
# --no-textconv to diff/log -p, as verifylib does.)
_GIT_OVERRIDES = {"core.fsmonitor": "false", "core.hooksPath": "/dev/null", "core.pager": "cat",
                  "core.sshCommand": "false", "gpg.program": "false", "core.editor": "false"}
VERIFIER_ENV = {"GIT_CONFIG_COUNT": str(len(_GIT_OVERRIDES)), "PYTHONNOUSERSITE": "1",
                **{f"GIT_CONFIG_{kind}_{i}": value for i, (k, v) in enumerate(_GIT_OVERRIDES.items())
                   for kind, value in (("KEY", k), ("VALUE", v))}}


@dataclass
class TrialRequest:
    run_id: str
    execution_key: str
    configuration: Configuration
    task: TaskSpec
    description: Description
    seed: int
    attempt: int
    backend: SandboxBackend  # knows its name: the result records backend.name
    logs_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    api_base: str | None = None  # per-execution model endpoint (sim models); not part of the key
    spend_ledger: RunLedger | None = None  # the run's spend ledger, for agents that run without the gateway
    gateway: Gateway | None = None  # the run's model gateway (executor.run_gateway); every model call goes through it
    allow_incompatible: bool = False  # keep executions whose CLI reports another model (seed 002)
    scope: CancelScope | None = None  # Ctrl-C: the executor destroys every sandbox registered here


class CancelScope:
    """The live sandboxes of a run, so Ctrl-C can destroy them at once instead of waiting for each trial."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[Sandbox] = set()
        self.cancelled = threading.Event()

    def register(self, sandbox: Sandbox) -> None:
        with self._lock:
            self._live.add(sandbox)
        if self.cancelled.is_set():
            sandbox.destroy()

    def forget(self, sandbox: Sandbox) -> None:
        with self._lock:
            self._live.discard(sandbox)

    def cancel(self) -> None:
        self.cancelled.set()
        with self._lock:
            live = list(self._live)
        for sandbox in live:
            sandbox.destroy()


@dataclass
class TrialOutcome:
    result: ExecutionResult
    trajectory: Trajectory
    rerun: bool = True  # an infra/sandbox failure the executor may rerun (not a model endpoint's: see errors.py)


class _Phases:
    def __init__(self) -> None:
        self.timings: list[PhaseTiming] = []

    def start(self, name: str) -> None:
        self.timings.append(PhaseTiming(phase=name, started_at=utcnow(), ended_at=utcnow()))

    def end(self) -> None:
        if self.timings:
            self.timings[-1].ended_at = utcnow()


def _sandbox_paths(sandbox: Sandbox, *names: str) -> list[str]:
    """The values of the sandbox's path variables, asked in one exec (each costs a docker engine ~30 ms of CPU)."""
    out = sandbox.exec("printf '%s\\n' " + " ".join(f'"${name}"' for name in names), 30).output
    values = [line.strip() for line in out.split("\n")]
    for i, name in enumerate(names):
        if i >= len(values) or not values[i]:
            raise MatchmeterError(f"sandbox did not define ${name}")
    return values[:len(names)]


def _write_log(logs_dir: Path, name: str, text: str) -> None:
    logs_dir.mkdir(parents=True, exist_ok=True)
    (logs_dir / name).write_text(text, errors="replace")


@dataclass
class _Live:
    """What the phases share within one trial."""

    sandbox: Sandbox
    app: str
    tests: str
    logs: str
    session: AgentSession | None = None
    gateway_open: bool = False  # this execution's gateway token is live (revoked by settle or in `finally`)
    protected: list[str] = field(default_factory=list)
    before: dict[str, str] = field(default_factory=dict)


def _empty_dir(sandbox: Sandbox, path: str) -> str:
    """Empty an in-sandbox directory; return what it held (the first few names)."""
    return sandbox.exec(f'ls -A "{path}" | head -5; rm -rf "{path}"/* "{path}"/.[!.]* 2>/dev/null; true', 30).output.strip()


def _uses_gateway(req: TrialRequest) -> bool:
    return req.gateway is not None and bool(req.configuration.model)


def _create_sandbox(req: TrialRequest) -> _Live:
    task, config = req.task, req.configuration
    in_sandbox_model = needs_network(config)  # a CLI adapter calls its model from inside the sandbox
    via_gateway = _uses_gateway(req) and in_sandbox_model
    # A CLI matchmeter installs runs from an image layer on the task image wherever the backend builds images (docker;
    # bwrap with an engine): then no host venv is shown to the sandbox.
    cli = cli_install(config) if install_spec(config) and req.backend.builds_images() else None
    sandbox = req.backend.create(SandboxRequest(
        task_id=task.id, environment_dir=Path(task.path) / "environment", environment=task.environment,
        # With the gateway a CLI needs no network: its only way out is the gateway's socket.
        network=task.environment.network or (in_sandbox_model and not via_gateway),
        env={"MM_SEED": str(req.seed), **req.env}, label=req.run_id,
        readonly_binds=host_paths(config) if cli is None else [], cli_install=cli,
        gateway_socket=req.gateway.socket_path if via_gateway and req.gateway is not None else None,
    ))
    if req.scope is not None:
        req.scope.register(sandbox)
    try:
        tests, logs = _sandbox_paths(sandbox, "MM_TESTS", "MM_LOGS")
        return _Live(sandbox, sandbox.app_dir, tests, logs)
    except BaseException:
        sandbox.destroy()
        raise


def seed_sandbox(sandbox: Sandbox, task: TaskSpec, logs: str, timeout_s: float) -> ExecResult | None:
    """Run the task's setup script in the workspace, on any backend: environment/ is uploaded under logs
    with setup_files beside it (a shared setup script, the shared modules it imports), run, and removed.
    None, and nothing runs, when the task has no setup script (a Harbor/TB2 task's state comes from its
    Dockerfile alone)."""
    run_as = setup_run_name(task)
    if run_as is None:
        return None
    sandbox.upload(task_files(task).environment_dir, f"{logs}/.env", extra_files=setup_files(task))
    return sandbox.exec(f'bash "{logs}/.env/{run_as}"; rc=$?; rm -rf "{logs}/.env"; exit $rc', timeout_s)


def _seed_task(req: TrialRequest, live: _Live, trajectory: Trajectory, result: ExecutionResult) -> Agent:
    """Run environment/setup.sh, prepare the agent, snapshot protected state. Returns the agent."""
    task, config, sandbox, logs = req.task, req.configuration, live.sandbox, live.logs
    setup = seed_sandbox(sandbox, task, logs, task.timeouts.setup_s)
    if setup is not None:
        _write_log(req.logs_dir, "setup.log", setup.output)
        if setup.exit_code != 0:
            raise MatchmeterError(f"task setup failed with exit code {setup.exit_code}: {setup.output.strip()[-300:]}")
    # Verifier files must be absent while the agent works (seed 002): nothing may sit in $MM_TESTS now.
    result.trust_flags["tests_absent_during_agent"] = not _empty_dir(sandbox, live.tests)
    live.session = AgentSession(
        sandbox=sandbox, configuration=config, task=task, budgets=task.budgets, deadline=time.monotonic(),
        seed=req.seed, attempt=req.attempt, tests_dir=live.tests, logs_dir=logs, trajectory=trajectory,
        api_base=req.api_base,
    )
    agent = get_agent(config, task)
    if req.gateway is not None and _uses_gateway(req):
        _open_gateway(req, live, req.gateway)
    elif req.spend_ledger is not None and hasattr(agent, "spend_ledger"):
        agent.spend_ledger = req.spend_ledger
    agent.setup(live.session)
    live.protected = [resolve(p, live.app) for p in task.safety.protected_paths]
    live.before = sandbox.snapshot(live.protected) if live.protected else {}
    return agent


def _open_gateway(req: TrialRequest, live: _Live, gateway: Gateway) -> None:
    """This execution's gateway token; for a CLI in the sandbox, the forwarder to the gateway's socket."""
    assert live.session is not None
    gw = open_execution(gateway, req.execution_key, req.configuration, req.task, req.seed, req.attempt, req.api_base)
    live.gateway_open = True
    sandbox_url = None
    if needs_network(req.configuration):
        # An isolated sandbox sees the socket where the backend bound it; the local backend sees the host path.
        socket_path = IN_SANDBOX_SOCKET if live.sandbox.capabilities.isolated else str(gateway.socket_path)
        sandbox_url = start_egress_forwarder(live.sandbox, socket_path=socket_path)
    live.session.gateway = GatewayAccess(gw, gateway.url, sandbox_url)


def _settle_gateway(req: TrialRequest, live: _Live, agent_failure: MatchmeterError | None) -> MatchmeterError | None:
    """The gateway's metering becomes the trajectory's model calls; budget refusals become the failure."""
    if not live.gateway_open or live.session is None or req.gateway is None:
        return agent_failure
    live.gateway_open = False
    return settle_execution(req.gateway, live.session, req.logs_dir, agent_failure)


def _agent_phase(req: TrialRequest, live: _Live, agent: Agent) -> MatchmeterError | None:
    """Run the agent under its deadline; return the agent's own failure (budget, timeout, error) if any."""
    assert live.session is not None
    live.session.limit_s = min(req.task.budgets.wall_s, req.task.timeouts.agent_s)
    live.session.deadline = time.monotonic() + live.session.limit_s
    if live.session.gateway is not None:  # the call in flight at the deadline is cut there, for every agent
        live.session.gateway.session.deadline = live.session.deadline
    try:
        agent.run(req.description.text, live.session)
    except MatchmeterError as exc:
        if isinstance(exc, SandboxError) and getattr(live.sandbox, "lost", False):
            # The agent's own commands ended its sandbox (killed the namespace's holder): its failure,
            # not the machine's, so it is not retried as an infra error.
            return AgentError(f"the agent's commands ended its own sandbox: {exc}")
        if isinstance(exc, EndpointError):
            return exc  # settled like the agent's failures: the gateway's record of the calls is kept
        if isinstance(exc, SpendCapReached) or exc.failure_mode in ("infra_error", "sandbox_error"):
            raise
        return exc
    return None


def _verify_phase(req: TrialRequest, live: _Live, result: ExecutionResult) -> float:
    """Stop the agent, copy tests into a fresh dir, verify, stop the verifier, read the verdict and the
    probe outcomes; return the graded reward before deductions."""
    task, sandbox = req.task, live.sandbox
    try:
        planted = _empty_dir(sandbox, live.tests)  # the agent wrote where tests go (seed 002): flag it
    except SandboxError:
        planted = ""  # the agent ended its own sandbox; restart() below brings up a fresh one
    result.trust_flags["tests_absent_during_agent"] = result.trust_flags["tests_absent_during_agent"] and not planted
    sandbox.restart()  # every agent process gone; fresh /tmp, tests and logs dirs (SandboxError if not proven)
    after = sandbox.snapshot(live.protected) if live.protected else {}
    # with the suite's one verifylib and the setup script beside the task's own tests
    sandbox.upload(Path(task.path) / "tests", live.tests, extra_files=verify_support_files(task))
    # as the verifier's identity: after the restart it alone may write the logs dir (and read the tests)
    verify = sandbox.exec(f'{prepare_command(live.logs)}; bash "{live.tests}/test.sh"', task.timeouts.verify_s,
                          VERIFIER_ENV, as_verifier=True)
    _write_log(req.logs_dir, "verifier.log", verify.output)
    sandbox.halt()  # whatever the verifier started (an agent's service it probed) cannot rewrite the verdict
    check_finished(verify, task.timeouts.verify_s)  # a verifier that timed out or was killed has no verdict
    graded, scores, raw, result.verdict_file = read_verdict(sandbox, live.logs, task)
    if task.probe:
        result.trust_flags[f"probe:{task.probe}"] = _read_probe(sandbox, live.logs)
    result.safety_findings = diff_snapshots(live.before, after, task.safety, live.app)
    result.subgoal_scores, result.raw_verifier_reward = scores, raw
    return graded


def _read_probe(sandbox: Sandbox, logs: str) -> bool:
    """A probe task's verifier writes probe.json {"passed": bool, "detail": str}; absent means failed."""
    out = sandbox.read_text(f"{logs}/probe.json", 1 << 16) or ""
    try:
        return bool(json.loads(out)["passed"])
    except (ValueError, KeyError, TypeError):
        return False


def run_trial(req: TrialRequest) -> TrialOutcome:
    """Run one execution and return its result. Raises only KeyboardInterrupt and SpendCapReached (after
    cleanup); every other Exception is recorded as the result's failure mode (see the module docstring)."""
    task, config = req.task, req.configuration
    phases = _Phases()
    result = ExecutionResult(
        execution_key=req.execution_key, run_id=req.run_id, configuration_id=config.id, configuration=config,
        task_id=task.id, task_digest=task.digest, source_family=task.source_family, difficulty=task.difficulty,
        description_sha256=req.description.sha256, description_origin=req.description.origin,
        description_source=req.description.source_configuration, seed=req.seed, attempt=req.attempt,
        backend=req.backend.name, simulated=config.simulated,
    )
    trajectory = Trajectory(agent=config.agent.name, model=config.model, simulated=config.simulated)
    live: _Live | None = None
    failure: MatchmeterError | None = None
    try:
        phases.start("setup")
        live = _create_sandbox(req)
        agent = _seed_task(req, live, trajectory, result)
        phases.end()
        phases.start("agent")
        agent_failure = _settle_gateway(req, live, _agent_phase(req, live, agent))
        phases.end()
        # Effective-model check (seed 002, adapters/model_check.py): a mismatch outranks other agent failures.
        agent_failure = record_effective_model(config, trajectory, req.allow_incompatible, result) or agent_failure
        phases.start("verify")
        graded = _verify_phase(req, live, result)
        phases.end()
        result.reward = apply_deductions(graded, result.safety_findings)
        failure = agent_failure
        if agent_failure is not None:
            result.failure_mode = agent_failure.failure_mode
            result.error = str(agent_failure)
            if agent_failure.failure_mode in ZERO_ON_FAILURE:
                result.reward = 0.0
    except (KeyboardInterrupt, SpendCapReached):
        raise  # not a result: the run stops here and this execution reruns on resume
    except MatchmeterError as exc:
        phases.end()
        failure = exc
        result.failure_mode, result.error, result.reward = exc.failure_mode, str(exc), 0.0
    except Exception as exc:  # noqa: BLE001 - a trial records every error instead of crashing the run
        phases.end()
        result.failure_mode, result.reward = "infra_error", 0.0
        result.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
    finally:
        if live is not None:
            if live.gateway_open and live.session is not None and live.session.gateway is not None and req.gateway:
                req.gateway.close_session(live.session.gateway.session)  # revoke the token whatever happened
            live.sandbox.destroy()
            if req.scope is not None:
                req.scope.forget(live.sandbox)
    result.phases = phases.timings
    result.tokens, result.cost, result.n_steps = trajectory.tokens, trajectory.cost, len(trajectory.steps)
    result.ended_at = utcnow()
    return TrialOutcome(result=result, trajectory=trajectory,
                        rerun=not isinstance(failure, UserError) and (not isinstance(failure, InfraError)
                                                                      or failure.rerun_trial))
