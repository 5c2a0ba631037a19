"""Multi-step tasks (Harbor's `[[steps]]`): what each step verifies with, when the steps stop, and how their
rewards combine, as Harbor 0.26 defines them. The trial (runner/trial.py) runs the steps in order in one
sandbox: each step's agent phase gets the step's own instruction, then the sandbox restarts (every agent
process gone, fresh /tmp, tests and logs dirs) and the step's verifier runs as for a single-step task.

- Tests: the task's shared tests/ with the step's steps/<name>/tests/ copied over it; the step's test.sh
  when it has one, else the shared one.
- Stopping (Harbor's MultiStepTrial._should_stop_after_step): after a step whose verifier wrote no valid
  reward (the whole execution is then a verifier error: Harbor marks such a trial's reward invalid), or
  when the step's rewards miss its `min_reward` (a number gates the `reward` key, a table each key it
  names; a missing key is -inf). An agent that timed out or failed in a step (`agent_timeout`,
  `agent_error`: Harbor's AgentTimeoutError, NonZeroAgentExitCodeError, whose policy is "grade, reward
  valid") does not stop the steps: the step is verified, its min_reward decides, and the next step's
  agent starts with its own instruction and deadline, as Harbor goes on. Two stops are matchmeter's own:
  `budget_exceeded`, because the token and USD budgets are the execution's (one gateway session spans
  the steps, and its refusal holds for every later call: no later agent could make one; Harbor's budgets
  are per agent run), and an endpoint failure (`infra_error`, rerun with `--retry-failed`). Steps after
  a stop do not run and are not part of the combined reward. The execution's failure is its first
  step's failure (a budget or endpoint failure outranks it, as in a single-step execution), and a
  failure in ZERO_ON_FAILURE scores the execution 0 as in a single-step one (Harbor counts a timed-out
  step's reward); `raw_verifier_reward` keeps the combined reward, Harbor's trial reward.
- Combining: `mean` (Harbor's default) is the per-key mean over the verified steps, a key a step did not
  write counting 0 for it; `final` is the last verified step's rewards. The execution's scalar reward is
  the combined dict's (runner/verdict.py: the `reward` key, else the only key, else the mean of the
  clamped keys).
- Agents: every agent runs them, started once per step with the step's instruction (as Harbor runs an
  agent per step without resuming it). A model agent keeps the execution's one gateway session: its
  budgets span the steps, each call is stamped with its step, and each step's failure is decided over
  that step's calls (runner/gateway_link.settle_step); `StepOutcome` holds the step's actions, model
  calls, tokens and cost, and the execution's totals are their sums. Between steps the door is shut.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from matchmeter.errors import MatchmeterError
from matchmeter.schema import StepOutcome, TaskSpec, TaskStep


def step_tests(task: TaskSpec, step: TaskStep, dest: Path) -> Path:
    """Build the step's tests directory at `dest` (shared tests/, then the step's own over it)."""
    shared, own = Path(task.path) / "tests", Path(task.path) / "steps" / step.name / "tests"
    dest.mkdir(parents=True, exist_ok=True)
    for source in (shared, own):
        if source.is_dir():
            shutil.copytree(source, dest, dirs_exist_ok=True)
    return dest


def step_solution(task: TaskSpec, step: str) -> Path:
    """The step's oracle directory (steps/<name>/solution, holding solve.sh)."""
    return Path(task.path) / "steps" / step / "solution"


# Agent failures after which the next step still runs (module docstring): Harbor's "grade, reward valid".
GOES_ON_AFTER = frozenset({"agent_timeout", "agent_error"})


def stop_after(step: TaskStep, failure: MatchmeterError | None, rewards: dict[str, float]) -> str | None:
    """Why no step runs after this verified one (None: the next one runs): a failure the steps do not
    go on after, else the step's min_reward."""
    if failure is not None and failure.failure_mode not in GOES_ON_AFTER:
        return f"step {step.name!r}: {failure.failure_mode}; later steps not run"
    return below_min_reward(step, rewards)


def below_min_reward(step: TaskStep, rewards: dict[str, float]) -> str | None:
    """Why the step's rewards miss its min_reward ('' never; None when they meet it or it has none)."""
    if step.min_reward is None:
        return None
    gates = {"reward": step.min_reward} if isinstance(step.min_reward, int | float) else step.min_reward
    for key, threshold in gates.items():
        actual = rewards.get(key, float("-inf"))
        if actual < threshold:
            return f"step {step.name!r}: {key}={actual:g} below its min_reward {threshold:g}; later steps not run"
    return None


def combine(task: TaskSpec, outcomes: list[StepOutcome]) -> dict[str, float]:
    """The execution's rewards from its verified steps (module docstring); {} when none was verified."""
    verified = [o.rewards for o in outcomes if o.verified]
    if not verified:
        return {}
    if task.multi_step_reward == "final":
        return dict(verified[-1])
    keys = sorted({k for rewards in verified for k in rewards})
    return {k: sum(r.get(k, 0.0) for r in verified) / len(verified) for k in keys}
