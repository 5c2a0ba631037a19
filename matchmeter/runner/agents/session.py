"""AgentSession: the one place where agent actions meet the sandbox, the transport and the budgets.

Every agent command goes through `execute`, so steps are recorded the same way for every agent and the
runner (not the agent) enforces the step, token, USD and wall-clock budgets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from matchmeter.errors import AgentTimeout, BudgetExceeded
from matchmeter.runner.sandbox import Sandbox
from matchmeter.runner.transport import wrap_command
from matchmeter.schema import Budgets, Configuration, ModelCall, Step, TaskSpec, Trajectory, utcnow

if TYPE_CHECKING:
    from matchmeter.llm.gateway_session import GatewaySession

OUTPUT_LIMIT_BYTES = 16_000
AGENT_OUTPUT_LIMIT_BYTES = 64_000  # a CLI's own stdout/stderr kept for the execution dir (head + tail)
TRUNCATION_MARK = "\n[... output truncated by matchmeter: {omitted} of {total} bytes omitted ...]\n"


def truncate_output(output: str, limit: int = OUTPUT_LIMIT_BYTES) -> tuple[str, bool, int]:
    """Keep the head and tail of a long output and mark the cut. Returns (text, truncated, full size)."""
    raw = output.encode("utf-8", errors="replace")
    total = len(raw)
    if total <= limit:
        return output, False, total
    half = limit // 2
    head = raw[:half].decode("utf-8", errors="ignore")
    tail = raw[-half:].decode("utf-8", errors="ignore")
    return head + TRUNCATION_MARK.format(omitted=total - 2 * half, total=total) + tail, True, total


@dataclass
class GatewayAccess:
    """How one execution reaches the model gateway (llm/gateway.py); set by the trial.

    `harness_url` serves agents that run in the harness (the bash agent); `sandbox_url` is the in-sandbox
    base URL of the egress forwarder (runner/sandbox/egress_forwarder.py) for CLI adapters. Neither
    carries /v1: OpenAI-style clients get `<url>/v1`, Anthropic-style clients `<url>`.
    """

    session: GatewaySession
    harness_url: str
    sandbox_url: str | None = None

    @property
    def token(self) -> str:
        return self.session.token


@dataclass
class AgentSession:
    """State of one agent phase. `deadline` is a time.monotonic() value."""

    sandbox: Sandbox
    configuration: Configuration
    task: TaskSpec
    budgets: Budgets
    deadline: float
    seed: int = 0
    attempt: int = 0
    env: dict[str, str] = field(default_factory=dict)
    tests_dir: str = "/tests"  # in-sandbox paths, resolved by the runner from $MM_TESTS / $MM_LOGS
    logs_dir: str = "/logs"
    trajectory: Trajectory = field(default_factory=Trajectory)
    limit_s: float | None = None  # the agent phase's wall-clock limit (min of budget and timeout), for messages
    gateway: GatewayAccess | None = None  # the metered door to the model, the only one (the trial opens it)
    agent_output: str = ""  # a CLI's own output (bounded), kept in the execution dir by the trial
    step: str | None = None  # the step of a multi-step task this agent phase is for (runner/steps.py)

    def keep_agent_output(self, text: str) -> None:
        """Keep a CLI's output (bounded); a multi-step execution's steps each add theirs under a header."""
        if self.step is not None:
            text = f"{self.agent_output}===== step {self.step} =====\n{text}\n"
        self.agent_output = truncate_output(text, AGENT_OUTPUT_LIMIT_BYTES)[0]

    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()

    def check_budgets(self) -> None:
        """Raise when any budget is spent (called after every step and model call)."""
        if self.remaining_s() <= 0:
            limit = self.limit_s if self.limit_s is not None else self.budgets.wall_s
            raise AgentTimeout(f"agent deadline of {limit:g}s passed")
        tokens = self.trajectory.tokens.total
        if tokens > self.budgets.tokens:
            raise BudgetExceeded("tokens", tokens, self.budgets.tokens)
        usd = self.trajectory.cost.usd
        if usd is not None and usd > self.budgets.usd:
            raise BudgetExceeded("usd", usd, self.budgets.usd)

    def execute(self, command: str, timeout_s: float | None = None) -> Step:
        """Run one agent command through the configured transport; record it as a step."""
        if len(self.trajectory.steps) >= self.budgets.steps:
            raise BudgetExceeded("steps", len(self.trajectory.steps) + 1, self.budgets.steps)
        self.check_budgets()
        limit = min(timeout_s or self.task.timeouts.command_s, max(self.remaining_s(), 0.1))
        started = utcnow()
        result = self.sandbox.exec(wrap_command(command, self.configuration.transport), limit, self.env or None)
        text, truncated, size = truncate_output(result.output)
        step = Step(
            index=len(self.trajectory.steps),
            command=command,
            output=text,
            output_truncated=truncated,
            output_bytes=size,
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            started_at=started,
            ended_at=utcnow(),
        )
        self.trajectory.steps.append(step)
        self.check_budgets()
        return step

    def record_model_call(self, call: ModelCall) -> None:
        """Account one model call; its tokens and cost count against the budgets at once."""
        if call.step is None and self.step is not None:
            call = call.model_copy(update={"step": self.step})
        self.trajectory.model_calls.append(call)
        if call.reported_model and call.reported_model not in self.trajectory.reported_models:
            self.trajectory.reported_models.append(call.reported_model)
        self.check_budgets()

    def add_steps(self, steps: list[Step]) -> None:
        """Adopt steps parsed from a CLI's own log (CLI adapters); budgets are checked afterwards."""
        for step in steps:
            self.trajectory.steps.append(step.model_copy(update={"index": len(self.trajectory.steps)}))
        if len(self.trajectory.steps) > self.budgets.steps:
            raise BudgetExceeded("steps", len(self.trajectory.steps), self.budgets.steps)
        self.check_budgets()
