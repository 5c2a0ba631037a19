"""One trial, start to end, as a single template method.

create sandbox → seed task (environment/setup.sh) → snapshot protected state → agent (budgets,
deadline) → snapshot again → copy tests in (only now) → verify (graded reward from weighted subgoals)
→ safety diff and deductions → anti-gaming checks → result → destroy. Every exception is recorded into
the result as a failure mode; none escapes except KeyboardInterrupt (after cleanup).

Budget and deadline failures score 0 (the agent did not finish within what every configuration was
given); the verifier still runs so `raw_verifier_reward` shows what state the agent left.
"""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matchmeter.errors import MatchmeterError, SpendCapReached, VerifierError
from matchmeter.runner.agents import get_agent
from matchmeter.runner.agents.adapters import needs_network
from matchmeter.runner.agents.adapters.model_check import record_effective_model
from matchmeter.runner.agents.session import AgentSession
from matchmeter.runner.safety import apply_deductions, diff_snapshots, resolve
from matchmeter.runner.sandbox import Sandbox, SandboxBackend, SandboxRequest
from matchmeter.schema import (
    Configuration,
    Description,
    ExecutionResult,
    PhaseTiming,
    TaskSpec,
    Trajectory,
    utcnow,
)

ZERO_ON_FAILURE = {"agent_timeout", "budget_exceeded", "model_mismatch", "agent_error"}


@dataclass
class TrialRequest:
    run_id: str
    execution_key: str
    configuration: Configuration
    task: TaskSpec
    description: Description
    seed: int
    attempt: int
    backend: SandboxBackend
    backend_name: str
    logs_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    api_base: str | None = None  # per-execution model endpoint (sim models); not part of the key
    spend_ledger: Any = None  # the run's shared SpendLedger (llm/spend.py), when a spend cap is set
    allow_incompatible: bool = False  # keep executions whose CLI reports another model (seed 002)


@dataclass
class TrialOutcome:
    result: ExecutionResult
    trajectory: Trajectory


class _Phases:
    def __init__(self) -> None:
        self.timings: list[PhaseTiming] = []

    def start(self, name: str) -> None:
        self.timings.append(PhaseTiming(phase=name, started_at=utcnow(), ended_at=utcnow()))

    def end(self) -> None:
        if self.timings:
            self.timings[-1].ended_at = utcnow()


def _sandbox_path(sandbox: Sandbox, var: str) -> str:
    out = sandbox.exec(f'printf %s "${var}"', 30).output.strip()
    if not out:
        raise MatchmeterError(f"sandbox did not define ${var}")
    return out


def _write_log(logs_dir: Path, name: str, text: str) -> None:
    logs_dir.mkdir(parents=True, exist_ok=True)
    (logs_dir / name).write_text(text, errors="replace")


def _read_verifier(sandbox: Sandbox, logs: str, task: TaskSpec) -> tuple[float, dict[str, float], float]:
    """Return (graded reward, subgoal scores, raw reward.txt value); raise VerifierError when absent."""
    reward_txt = sandbox.exec(f'cat "{logs}/reward.txt"', 30)
    if reward_txt.exit_code != 0 or not reward_txt.output.strip():
        raise VerifierError("the verifier wrote no reward.txt")
    try:
        raw = float(reward_txt.output.strip().splitlines()[-1])
    except ValueError as exc:
        raise VerifierError(f"reward.txt is not a number: {reward_txt.output.strip()[:80]!r}") from exc
    subgoals_out = sandbox.exec(f'cat "{logs}/subgoals.json" 2>/dev/null', 30)
    if subgoals_out.exit_code != 0 or not subgoals_out.output.strip():
        return min(max(raw, 0.0), 1.0), {}, raw
    try:
        scores = {str(k): float(v) for k, v in json.loads(subgoals_out.output).items()}
    except (ValueError, AttributeError) as exc:
        raise VerifierError(f"subgoals.json is not a JSON object of numbers: {exc}") from exc
    weights = {g.name: g.weight for g in task.subgoals}
    unknown = set(scores) - set(weights)
    if unknown:
        raise VerifierError(f"subgoals.json names unknown subgoals {sorted(unknown)}; task.toml has {sorted(weights)}")
    graded = sum(weights[n] * min(max(scores.get(n, 0.0), 0.0), 1.0) for n in weights) / sum(weights.values())
    return graded, scores, raw


def run_trial(req: TrialRequest) -> TrialOutcome:
    """Run one execution and return its result; raises only KeyboardInterrupt and SpendCapReached."""
    task, config = req.task, req.configuration
    phases = _Phases()
    result = ExecutionResult(
        execution_key=req.execution_key, run_id=req.run_id, configuration_id=config.id, configuration=config,
        task_id=task.id, task_digest=task.digest, source_family=task.source_family, difficulty=task.difficulty,
        description_sha256=req.description.sha256, description_origin=req.description.origin,
        description_source=req.description.source_configuration, seed=req.seed, attempt=req.attempt,
        backend=req.backend_name, simulated=config.simulated,
    )
    trajectory = Trajectory(agent=config.agent.name, model=config.model, simulated=config.simulated)
    sandbox: Sandbox | None = None
    agent_failure: MatchmeterError | None = None
    try:
        phases.start("setup")
        env = {"MM_SEED": str(req.seed), **req.env}
        sandbox = req.backend.create(SandboxRequest(
            task_id=task.id, environment_dir=Path(task.path) / "environment", environment=task.environment,
            network=task.environment.network or needs_network(config), env=env, label=req.run_id,
        ))
        app, tests, logs = sandbox.app_dir, _sandbox_path(sandbox, "MM_TESTS"), _sandbox_path(sandbox, "MM_LOGS")
        sandbox.upload(Path(task.path) / "environment", f"{logs}/.env")
        setup = sandbox.exec(f'bash "{logs}/.env/{task.environment.setup}"; rc=$?; rm -rf "{logs}/.env"; exit $rc',
                             task.timeouts.setup_s)
        _write_log(req.logs_dir, "setup.log", setup.output)
        if setup.exit_code != 0:
            raise MatchmeterError(f"task setup failed with exit code {setup.exit_code}: {setup.output.strip()[-300:]}")
        deadline_s = min(task.budgets.wall_s, task.timeouts.agent_s)
        session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                               deadline=time.monotonic() + deadline_s, seed=req.seed, attempt=req.attempt, tests_dir=tests,
                               logs_dir=logs, trajectory=trajectory, api_base=req.api_base)
        agent = get_agent(config, task)
        if req.spend_ledger is not None and hasattr(agent, "spend_ledger"):
            agent.spend_ledger = req.spend_ledger
        agent.setup(session)
        protected = [resolve(p, app) for p in task.safety.protected_paths]
        before = sandbox.snapshot(protected) if protected else {}
        phases.end()

        phases.start("agent")
        session.deadline = time.monotonic() + deadline_s  # setup time is not the agent's
        try:
            agent.run(req.description.text, session)
        except MatchmeterError as exc:
            if isinstance(exc, SpendCapReached) or exc.failure_mode in ("infra_error", "sandbox_error"):
                raise
            agent_failure = exc
        phases.end()
        # Effective-model check (seed 002, adapters/model_check.py): a mismatch outranks other agent failures.
        agent_failure = record_effective_model(config, trajectory, req.allow_incompatible, result) or agent_failure

        phases.start("verify")
        after = sandbox.snapshot(protected) if protected else {}
        leftovers = sandbox.exec(f'ls -A "{tests}" | head -5', 30).output.strip()
        result.trust_flags["tests_absent_during_agent"] = not leftovers
        sandbox.exec(f'rm -rf "{tests}"/* "{tests}"/.[!.]* 2>/dev/null; true', 30)
        sandbox.upload(Path(task.path) / "tests", tests)
        verify = sandbox.exec(f'bash "{tests}/test.sh"', task.timeouts.verify_s)
        _write_log(req.logs_dir, "verifier.log", verify.output)
        graded, scores, raw = _read_verifier(sandbox, logs, task)
        phases.end()

        findings = diff_snapshots(before, after, task.safety, app)
        result.subgoal_scores, result.raw_verifier_reward, result.safety_findings = scores, raw, findings
        result.reward = apply_deductions(graded, findings)
        if agent_failure is not None:
            result.failure_mode = agent_failure.failure_mode  # type: ignore[assignment]
            result.error = str(agent_failure)
            if agent_failure.failure_mode in ZERO_ON_FAILURE:
                result.reward = 0.0
    except (KeyboardInterrupt, SpendCapReached):
        raise  # not a result: the run stops here and this execution reruns on resume
    except MatchmeterError as exc:
        phases.end()
        result.failure_mode, result.error, result.reward = exc.failure_mode, str(exc), 0.0  # type: ignore[assignment]
    except Exception as exc:  # noqa: BLE001 - a trial records every error instead of crashing the run
        phases.end()
        result.failure_mode, result.reward = "infra_error", 0.0
        result.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
    finally:
        if sandbox is not None:
            sandbox.destroy()
    result.phases = phases.timings
    result.tokens, result.cost, result.n_steps = trajectory.tokens, trajectory.cost, len(trajectory.steps)
    result.ended_at = utcnow()
    return TrialOutcome(result=result, trajectory=trajectory)
