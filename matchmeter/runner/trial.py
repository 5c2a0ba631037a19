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

An agent that ends cleanly after model calls with no recorded step is `agent_error` (`actionless`): a
silent clean 0 would hide an agent that did nothing, or an adapter that cannot read its CLI's actions.
Budget and deadline failures score 0 (the agent did not finish within what every configuration was
given); the verifier still runs so `raw_verifier_reward` shows what state the agent left.
"""

from __future__ import annotations

import json
import tempfile
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
    VerifierError,
)
from matchmeter.runner.agents import Agent, get_agent
from matchmeter.runner.agents.adapters import cli_install, host_paths, install_spec, needs_network
from matchmeter.runner.agents.adapters.model_check import record_effective_model
from matchmeter.runner.agents.session import AgentSession, GatewayAccess
from matchmeter.runner.gateway_link import open_execution, settle_execution, settle_step
from matchmeter.runner.safety import apply_deductions, diff_snapshots, resolve
from matchmeter.runner.sandbox import ExecResult, Sandbox, SandboxBackend, SandboxRequest
from matchmeter.runner.sandbox.egress_forwarder import DEFAULT_PORT, IN_SANDBOX_SOCKET, start_egress_forwarder
from matchmeter.runner.sandbox.upload_proof import run_uploaded, uploaded_paths
from matchmeter.runner.steps import combine, step_tests, stop_after
from matchmeter.runner.verdict import (
    FilesRead,
    check_finished,
    harbor_format,
    harbor_scalar,
    prepare_command,
    read_verdict,
    scalar_of,
    verdict_paths,
    with_exit,
)
from matchmeter.schema import (
    Configuration,
    Description,
    ExecutionResult,
    ModelEndpoint,
    PhaseTiming,
    StepOutcome,
    TaskSpec,
    TaskStep,
    Trajectory,
    utcnow,
)
from matchmeter.tasks.loader import setup_files, setup_run_name, task_files, verify_support_files

if TYPE_CHECKING:
    from matchmeter.llm.gateway import Gateway

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
    # Where this execution's model calls go (the executor's endpoint_for: a sim model's stub path for the task and
    # seed); None: the configuration's endpoint. Read by the gateway alone; not part of the key.
    endpoint: ModelEndpoint | None = None
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
        verifier_root=harbor_format(task),  # Harbor runs test.sh as root in a writable container
        gateway_socket=req.gateway.socket_path if via_gateway and req.gateway is not None else None,
    ))
    if req.scope is not None:
        req.scope.register(sandbox)
    return _Live(sandbox, sandbox.app_dir, sandbox.layout["tests"], sandbox.layout["logs"])


def seed_sandbox(sandbox: Sandbox, task: TaskSpec, logs: str, timeout_s: float) -> ExecResult | None:
    """Run the task's setup script in the workspace, on any backend: environment/ is uploaded under logs
    with setup_files beside it (a shared setup script, the shared modules it imports), run, and removed.
    None, and nothing runs, when the task has no setup script (a Harbor/TB2 task's state comes from its
    Dockerfile alone)."""
    run_as = setup_run_name(task)
    if run_as is None:
        return None
    environment, extra, dest = task_files(task).environment_dir, setup_files(task), f"{logs}/.env"
    return run_uploaded(  # a lost file is uploaded again, never a setup that ran without it (upload_proof.py)
        lambda again: sandbox.upload(environment, dest, extra_files=extra, through_exec=again), uploaded_paths(environment, dest, extra),
        lambda proof: sandbox.exec(f'{proof}bash "{dest}/{run_as}"; rc=$?; rm -rf "{dest}"; exit $rc', timeout_s),
        f"setup files uploaded to {dest}")


def _seed_task(req: TrialRequest, live: _Live, trajectory: Trajectory, result: ExecutionResult) -> Agent:
    """Run environment/setup.sh, prepare the agent, snapshot protected state. Returns the agent."""
    task, config, sandbox, logs = req.task, req.configuration, live.sandbox, live.logs
    setup = seed_sandbox(sandbox, task, logs, task.timeouts.setup_s)
    if setup is not None:
        _write_log(req.logs_dir, "setup.log", setup.output)
        if setup.exit_code != 0:
            raise MatchmeterError(f"task setup failed with exit code {setup.exit_code}: {setup.output.strip()[-300:]}")
    live.session = AgentSession(
        sandbox=sandbox, configuration=config, task=task, budgets=task.budgets, deadline=time.monotonic(),
        seed=req.seed, attempt=req.attempt, tests_dir=live.tests, logs_dir=logs, trajectory=trajectory,
    )
    agent = get_agent(config, task)
    if req.gateway is not None and _uses_gateway(req):
        _open_gateway(req, live, req.gateway)
    agent.setup(live.session)
    live.protected = [resolve(p, live.app) for p in task.safety.protected_paths]
    # Verifier files must be absent while the agent works (seed 002): nothing may sit in $MM_TESTS as it starts.
    held, live.before = sandbox.empty_then_snapshot(live.tests, live.protected)
    result.trust_flags["tests_absent_during_agent"] = not held
    return agent


def _open_gateway(req: TrialRequest, live: _Live, gateway: Gateway) -> None:
    """This execution's gateway token; for a CLI in the sandbox, the forwarder to the gateway's socket."""
    assert live.session is not None
    gw = open_execution(gateway, req.execution_key, req.configuration, req.task, req.seed, req.attempt, req.endpoint)
    live.gateway_open = True
    sandbox_url = _start_forwarder(live, gateway) if needs_network(req.configuration) else None
    live.session.gateway = GatewayAccess(gw, gateway.url, sandbox_url)


def _start_forwarder(live: _Live, gateway: Gateway, work_dir: str | None = None) -> str:
    """The in-sandbox egress forwarder to the gateway's socket (again after a restart: it died with the agent)."""
    # An isolated sandbox sees the socket where the backend bound it and has its own network; the local backend
    # sees the host path and shares the host's loopback, where concurrent trials need distinct ports.
    isolated = live.sandbox.capabilities.isolated
    socket_path = IN_SANDBOX_SOCKET if isolated else str(gateway.socket_path)
    return start_egress_forwarder(live.sandbox, socket_path=socket_path, work_dir=work_dir,
                                  port=DEFAULT_PORT if isolated else 0)


def _settle_gateway(req: TrialRequest, live: _Live, agent_failure: MatchmeterError | None) -> MatchmeterError | None:
    """The gateway's metering becomes the trajectory's model calls; budget refusals become the failure."""
    if not live.gateway_open or live.session is None or req.gateway is None:
        return agent_failure
    live.gateway_open = False
    return settle_execution(req.gateway, live.session, req.logs_dir, agent_failure)


def _agent_phase(req: TrialRequest, live: _Live, agent: Agent, step: TaskStep | None = None) -> MatchmeterError | None:
    """Run the agent under its deadline (a step's: its own instruction and deadline); return the agent's own
    failure (budget, timeout, error) if any."""
    assert live.session is not None
    agent_s = step.agent_s if step is not None and step.agent_s is not None else req.task.timeouts.agent_s
    live.session.limit_s = min(req.task.budgets.wall_s, agent_s)
    live.session.deadline = time.monotonic() + live.session.limit_s
    if live.session.gateway is not None:  # the call in flight at the deadline is cut there, for every agent
        live.session.gateway.session.deadline = live.session.deadline
    try:
        agent.run(step.instruction if step is not None else req.description.text, live.session)
    except MatchmeterError as exc:
        if isinstance(exc, SandboxError) and live.sandbox.lost:
            # The agent's own commands ended its sandbox (killed the namespace's holder): its failure,
            # not the machine's, so it is not retried as an infra error.
            return AgentError(f"the agent's commands ended its own sandbox: {exc}")
        if isinstance(exc, EndpointError):
            return exc  # settled like the agent's failures: the gateway's record of the calls is kept
        if isinstance(exc, SpendCapReached) or exc.failure_mode in ("infra_error", "sandbox_error"):
            raise
        return exc
    return None


def actionless(trajectory: Trajectory) -> AgentError | None:
    """An agent that ended cleanly after model calls without a single recorded step is `agent_error`, never a
    clean score: it ran nothing, or its actions were not read from its log (an adapter that misreads its
    CLI shows here instead of passing for an agent that scored 0)."""
    if not trajectory.model_calls or trajectory.steps:
        return None
    return AgentError(f"{trajectory.agent or 'the agent'} made {len(trajectory.model_calls)} model call(s) but no "
                      "step was recorded: it ran no command, or its actions were not read from its log")


def _upload_tests_and_verify(sandbox: Sandbox, tests: Path, live: _Live, extra: dict[str, Path],
                             verify_s: float) -> ExecResult:
    """Upload the tests, then run them as the verifier, in an exec that first proves every uploaded file is there
    (upload_proof.py: a lost upload is made again, then blamed on the sandbox, never scored as a verifier error).

    Raises:
        SandboxError: the uploaded tests never all became visible inside the sandbox.
    """
    # as the verifier's identity: after the restart it alone may write the logs dir (and read the tests)
    return run_uploaded(
        lambda again: sandbox.upload(tests, live.tests, extra_files=extra, through_exec=again),
        uploaded_paths(tests, live.tests, extra),
        lambda proof: sandbox.exec(f'{proof}{prepare_command(live.logs)}; bash "{live.tests}/test.sh"', verify_s,
                                   VERIFIER_ENV, as_verifier=True),
        f"tests uploaded to {live.tests}")


def _verify_phase(req: TrialRequest, live: _Live, result: ExecutionResult, tests_dir: Path | None = None,
                  verify_s: float | None = None) -> float:
    """Stop the agent, copy tests into a fresh dir, verify, stop the verifier, read the verdict and the
    probe outcomes; return the graded reward before deductions. A step passes its own tests and deadline."""
    task, sandbox = req.task, live.sandbox
    verify_s = task.timeouts.verify_s if verify_s is None else verify_s
    # every agent process gone; fresh /tmp, tests and logs dirs (SandboxError if not proven); the "after" snapshot
    restarted = sandbox.restart(live.protected)
    # the agent wrote where tests go (seed 002): flag it
    result.trust_flags["tests_absent_during_agent"] = result.trust_flags["tests_absent_during_agent"] and not restarted.planted
    # with the suite's one verifylib and the setup script beside the task's own tests
    verify = _upload_tests_and_verify(sandbox, tests_dir or Path(task.path) / "tests", live, verify_support_files(task),
                                      verify_s)
    _write_log(req.logs_dir, "verifier.log", verify.output)
    # whatever the verifier started (an agent's service it probed) cannot rewrite the verdict: killed, then the
    # verdict files are read in the same step
    probe = [f"{live.logs}/probe.json"] if task.probe else []
    files = FilesRead(sandbox, sandbox.halt([*verdict_paths(live.logs, task), *probe]))
    check_finished(verify, verify_s)  # a verifier that timed out or was killed has no verdict
    try:
        graded, scores, raw, result.verdict_file, result.rewards = read_verdict(files, live.logs, task)
    except VerifierError as exc:
        raise with_exit(exc, verify) from exc
    if task.probe:
        result.trust_flags[f"probe:{task.probe}"] = _read_probe(files, live.logs)
    result.safety_findings = diff_snapshots(live.before, restarted.after, task.safety, live.app)
    result.subgoal_scores, result.raw_verifier_reward = scores, raw
    return graded


def _run_steps(req: TrialRequest, live: _Live, agent: Agent, result: ExecutionResult, trajectory: Trajectory,
               phases: _Phases) -> tuple[float, MatchmeterError | None]:
    """A multi-step task's steps in order in this one sandbox (runner/steps.py says what stops them and how
    their rewards combine), every agent under the execution's one gateway session: each step's calls are
    metered and judged as that step's (gateway_link.settle_step), the budgets span the steps. Settles the
    gateway; returns the graded combined reward and the agent's failure, if any."""
    task = req.task
    agent_failure: MatchmeterError | None = None  # the first step's failure is the execution's
    try:
        for i, step in enumerate(task.steps):
            if i:
                live.sandbox.restart()  # the last verifier's processes and its tests/logs are gone; the workspace stays
            phases.start(f"agent:{step.name}")
            outcome, step_failure = _step_agent(req, live, agent, step, trajectory, restarted=bool(i))
            agent_failure = agent_failure or step_failure
            outcome.error = str(step_failure) if step_failure is not None else None
            phases.end()
            result.steps.append(outcome)
            phases.start(f"verify:{step.name}")
            try:
                with tempfile.TemporaryDirectory(prefix="mm-step-tests-") as tmp:
                    _verify_phase(req, live, result, step_tests(task, step, Path(tmp) / "tests"), step.verify_s)
            except MatchmeterError as exc:
                outcome.error = str(exc)
                raise
            finally:
                phases.end()
            outcome.rewards, outcome.verified = dict(result.rewards), True
            outcome.reward = harbor_scalar(outcome.rewards)
            stop = stop_after(step, step_failure, outcome.rewards)
            if stop:
                outcome.error = f"{outcome.error}; {stop}" if outcome.error else stop
                break
    except MatchmeterError:
        _settle_gateway(req, live, None)  # the gateway's record is kept; the step's error is the execution's
        raise
    agent_failure = _settle_gateway(req, live, agent_failure)
    result.rewards = combine(task, result.steps)
    raw = scalar_of(result.rewards)
    result.raw_verifier_reward, result.subgoal_scores = raw, {}
    return min(max(raw, 0.0), 1.0), agent_failure


def _step_agent(req: TrialRequest, live: _Live, agent: Agent, step: TaskStep, trajectory: Trajectory,
                *, restarted: bool) -> tuple[StepOutcome, MatchmeterError | None]:
    """One step's agent phase: its instruction and deadline, its calls stamped with its name, its failure
    decided over its own calls and actions as a single-step agent phase's is; its usage on the outcome."""
    session = live.session
    assert session is not None
    session.step = step.name
    if session.gateway is not None:
        session.gateway.session.step = step.name
        if restarted and session.gateway.sandbox_url is not None and req.gateway is not None:
            # The forwarder died with the last agent phase; after a verifier $MM_LOGS is not the agent's.
            work_dir = live.sandbox.exec("mktemp -d", 30).output.strip()
            session.gateway.sandbox_url = _start_forwarder(live, req.gateway, work_dir)
    actions = len(trajectory.steps)
    failure = settle_step(session, _agent_phase(req, live, agent, step))
    calls = [c for c in trajectory.model_calls if c.step == step.name]
    done = Trajectory(agent=trajectory.agent, steps=trajectory.steps[actions:], model_calls=calls)
    outcome = StepOutcome(name=step.name, n_actions=len(done.steps), n_model_calls=len(calls),
                          tokens=done.tokens, cost=done.cost)
    return outcome, failure or actionless(done)


def _read_probe(files: FilesRead, logs: str) -> bool:
    """A probe task's verifier writes probe.json {"passed": bool, "detail": str}; absent means failed."""
    out = files.read_text(f"{logs}/probe.json", 1 << 16) or ""
    try:
        return bool(json.loads(out)["passed"])
    except (ValueError, KeyError, TypeError):
        return False


def new_outcome(key: str, run_id: str, config: Configuration, task: TaskSpec, description: Description, seed: int,
                attempt: int, backend_name: str) -> tuple[ExecutionResult, Trajectory]:
    """The result and trajectory of one execution before anything ran (also stored as-is for an execution
    whose Ray nodes were all lost before it ran)."""
    result = ExecutionResult(
        execution_key=key, run_id=run_id, configuration_id=config.id, configuration=config,
        task_id=task.id, task_digest=task.digest, source_family=task.source_family, difficulty=task.difficulty,
        description_sha256=description.sha256, description_origin=description.origin,
        description_source=description.source_configuration, seed=seed, attempt=attempt,
        backend=backend_name, simulated=config.simulated,
    )
    return result, Trajectory(agent=config.agent.name, model=config.model, simulated=config.simulated)


def run_trial(req: TrialRequest) -> TrialOutcome:
    """Run one execution and return its result. Raises only KeyboardInterrupt and SpendCapReached (after
    cleanup); every other Exception is recorded as the result's failure mode (see the module docstring)."""
    task, config = req.task, req.configuration
    phases = _Phases()
    result, trajectory = new_outcome(req.execution_key, req.run_id, config, task, req.description, req.seed,
                                     req.attempt, req.backend.name)
    live: _Live | None = None
    failure: MatchmeterError | None = None
    try:
        phases.start("setup")
        live = _create_sandbox(req)
        agent = _seed_task(req, live, trajectory, result)
        phases.end()
        if task.steps:
            graded, agent_failure = _run_steps(req, live, agent, result, trajectory, phases)
            agent_failure = record_effective_model(config, trajectory, req.allow_incompatible, result) or agent_failure
        else:
            phases.start("agent")
            agent_failure = _settle_gateway(req, live, _agent_phase(req, live, agent)) or actionless(trajectory)
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
