"""One small error hierarchy; each runtime error maps to exactly one execution failure mode."""

from __future__ import annotations

from typing import ClassVar, Literal

# The failure modes an error can end an execution with: schema.FailureMode minus "none". mypy checks the
# subset where a trial stores an error's mode in its result (a new mode here must be added there too).
ErrorFailureMode = Literal["agent_timeout", "budget_exceeded", "agent_error", "verifier_error", "infra_error",
                           "sandbox_error", "model_mismatch"]


class MatchmeterError(Exception):
    """Base of every error matchmeter raises on purpose."""

    failure_mode: ClassVar[ErrorFailureMode] = "infra_error"


class UserError(MatchmeterError):
    """Bad input from the user: rendered as one line `what (where): fix`, exit 2."""

    def __init__(self, what: str, where: str = "", fix: str = "") -> None:
        self.what, self.where, self.fix = what, where, fix
        super().__init__(self.line())

    def line(self) -> str:
        text = self.what
        if self.where:
            text += f" ({self.where})"
        if self.fix:
            text += f": {self.fix}"
        return text


class SandboxError(MatchmeterError):
    """The sandbox itself is unavailable or broke (not: a command inside it failed)."""

    failure_mode = "sandbox_error"


class InfraError(MatchmeterError):
    """Transient infrastructure trouble (engine hiccup, stub server gone); retried by the executor."""

    failure_mode = "infra_error"
    # Whether the executor reruns the whole trial on it. A model endpoint's faults were already retried call
    # by call by the LM client: a second layer would multiply what the server receives (EndpointError).
    rerun_trial: ClassVar[bool] = True


class EndpointError(InfraError):
    """The model endpoint failed, not the model: unreachable, 5xx or timeouts that persisted past the client's
    retries, a malformed body, a rejected key or unknown model mid-run. Stored as infra_error and never as the
    agent's failure; not rerun by the executor (the client's retries are the one retry layer), rerun by
    `run --resume --retry-failed infra_error`."""

    rerun_trial = False


class AgentTimeout(MatchmeterError):
    """The agent phase ran past its deadline."""

    failure_mode = "agent_timeout"


class BudgetExceeded(MatchmeterError):
    """A step, token, USD or wall-time budget ran out."""

    failure_mode = "budget_exceeded"

    def __init__(self, budget: str, used: float, limit: float) -> None:
        self.budget, self.used, self.limit = budget, used, limit
        super().__init__(f"{budget} budget exceeded: used {used:g} of {limit:g}")


class AgentError(MatchmeterError):
    """The agent or its model failed (malformed reply, CLI crash)."""

    failure_mode: ClassVar[ErrorFailureMode] = "agent_error"  # ModelMismatch narrows it


class ModelMismatch(AgentError):
    """The CLI reports running a different model than the configuration asked for."""

    failure_mode = "model_mismatch"


class VerifierError(MatchmeterError):
    """The task's verifier crashed or wrote no reward file."""

    failure_mode = "verifier_error"


class SpendCapReached(MatchmeterError):
    """The run's LM spend cap stops new model calls; the run can be resumed later."""

    failure_mode = "budget_exceeded"
