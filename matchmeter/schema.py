"""Shared contracts: every record that crosses a module boundary or lands on disk.

Stored records open with `schema_version`; their field order is frozen (append only).
Inbound models forbid unknown keys so a typo in a task or config file is an error, not a no-op.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = 1

SourceFamily = Literal["terminal", "skills", "data-analysis", "quoting", "imported"]
Difficulty = Literal["easy", "medium", "hard"]
DescriptionOrigin = Literal["original", "optimized", "generic"]
Contract = Literal["raw", "disclosed"]
Transport = Literal["raw", "nested", "escaped"]
FailureMode = Literal[
    "none",
    "agent_timeout",
    "budget_exceeded",
    "agent_error",
    "verifier_error",
    "infra_error",
    "sandbox_error",
    "model_mismatch",
]


def utcnow() -> datetime:
    return datetime.now(UTC)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(obj: Any) -> str:
    """Stable JSON used for every digest: sorted keys, no whitespace, UTF-8 kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class Inbound(BaseModel):
    """Base for models read from user files: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------- tasks


class Budgets(Inbound):
    steps: int = Field(50, ge=1, description="Most agent actions (shell commands / tool calls).")
    tokens: int = Field(400_000, ge=1, description="Most model tokens (input incl. cached + output + reasoning).")
    usd: float = Field(2.0, gt=0, description="Most billable model spend in USD.")
    wall_s: float = Field(600.0, gt=0, description="Most wall-clock seconds for the agent phase.")


class Timeouts(Inbound):
    setup_s: float = Field(120.0, gt=0, description="Environment build + seeding.")
    agent_s: float = Field(600.0, gt=0, description="Agent phase deadline.")
    verify_s: float = Field(120.0, gt=0, description="Verifier phase.")
    command_s: float = Field(60.0, gt=0, description="Default timeout of one agent command.")


class Subgoal(Inbound):
    name: str = Field(description="Identifier written by the verifier into subgoals.json.")
    weight: float = Field(gt=0, description="Relative weight; the reward is the weighted mean.")
    description: str = ""


class SafetyRules(Inbound):
    protected_paths: list[str] = Field(
        default_factory=list,
        description="Paths (absolute in the sandbox, or relative to the workspace) snapshotted before the agent runs.",
    )
    allowed_changes: list[str] = Field(
        default_factory=list, description="Glob patterns under protected paths the agent may change."
    )
    critical_paths: list[str] = Field(
        default_factory=list, description="Protected paths whose unexpected change is critical damage (Q = 0)."
    )


class Trap(Inbound):
    """An edge case the instruction names or implies, planted by the setup on every seed (tests/tasks/test_traps.py)."""

    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", description="Short kebab-case name, unique in the task.")
    words: str = Field(min_length=1, description="The instruction's own words that name or imply the trap.")
    cheap: str | None = Field(
        None, description="checks/ script that ignores just this trap (default `cheap-trap-<name>.sh`); must score <= 0.3."
    )


class ReferencePath(Inbound):
    commands: list[str] = Field(min_length=1, description="A shell command sequence that solves the task.")


class EnvironmentSpec(Inbound):
    network: bool = Field(False, description="Whether the sandbox gets network access.")
    dockerfile: str = Field("Dockerfile", description="Dockerfile under environment/ for the docker backend.")
    setup: str | None = Field(
        "setup.sh",
        description="Script under environment/ run in the workspace to seed the task, or `shared:<path>` for "
        "one under the suite's _shared/setup/ that several tasks share; None when the task has none (a Harbor "
        "task whose Dockerfile is its whole starting state).",
    )
    cpus: float = Field(1.0, gt=0)
    memory_mb: int = Field(1024, ge=64)


class TaskStep(Inbound):
    """One step of a multi-step Harbor task (`[[steps]]`): run in order in the task's one sandbox, each with
    its own instruction (steps/<name>/instruction.md) and verifier (steps/<name>/tests/test.sh, else
    tests/test.sh), oracle steps/<name>/solution/solve.sh."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Directory name under steps/.")
    instruction: str = Field("", description="steps/<name>/instruction.md (filled by the loader).")
    min_reward: float | dict[str, float] | None = Field(
        None, description="Stop the remaining steps when this step's rewards miss it: a number gates the "
        "`reward` key, a table each key it names (a missing key counts -inf), as Harbor does.")
    agent_s: float | None = Field(None, gt=0, description="This step's agent deadline (default timeouts.agent_s).")
    verify_s: float | None = Field(None, gt=0, description="This step's verifier deadline (default timeouts.verify_s).")


class TaskSpec(Inbound):
    schema_version: int = SCHEMA_VERSION
    id: str
    source_family: SourceFamily
    category: str
    difficulty: Difficulty
    tags: list[str] = Field(default_factory=list)
    instruction: str = Field(description="The Original description (instruction.md).")
    environment: EnvironmentSpec = Field(default_factory=EnvironmentSpec)
    budgets: Budgets = Field(default_factory=Budgets)
    timeouts: Timeouts = Field(default_factory=Timeouts)
    subgoals: list[Subgoal] = Field(min_length=1)
    safety: SafetyRules = Field(default_factory=SafetyRules)
    reference_paths: list[ReferencePath] = Field(
        default_factory=list,
        description="Known solving command sequences; empty (a Harbor task) makes path-based efficiency n/a.",
    )
    seed_params: dict[str, str] = Field(
        default_factory=dict, description="Names of parameters the seed varies, with what each controls; the key "
        "`invariant_reason` instead says why seed 0's outputs may still pass on other seeds."
    )
    traps: list[Trap] = Field(
        default_factory=list, description="Edge cases the instruction names, each planted on every seed (`[[traps]]`)."
    )
    probe: str | None = Field(None, description="Anti-gaming probe kind, when the task is a probe.")
    path: str = Field("", description="Directory the task was loaded from (not part of the digest).")
    digest: str = Field("", description="sha256 over every file of the task directory.")
    steps: list[TaskStep] = Field(default_factory=list, description="A multi-step Harbor task's steps, in order.")
    multi_step_reward: Literal["mean", "final"] = Field(
        "mean", description="How step rewards combine (Harbor's multi_step_reward_strategy): the per-key mean over "
        "the verified steps (a missing key counts 0), or the last step's rewards.")


# ---------------------------------------------------------------- descriptions and configurations


class Description(BaseModel):
    schema_version: int = SCHEMA_VERSION
    task_id: str
    text: str
    sha256: str
    origin: DescriptionOrigin = "original"
    source_configuration: str | None = None
    parent_sha256: str | None = None

    @classmethod
    def original(cls, task: TaskSpec) -> Description:
        return cls(task_id=task.id, text=task.instruction, sha256=sha256_text(task.instruction))


class ModelEndpoint(Inbound):
    """Where and how a configuration's model is reached, what its calls cost, and how the bash agent samples it:
    made once at the edge (the CLI's --api-base, --api-key-env, --prices, --no-cache) and carried in the
    configuration to the model gateway, the only caller of the model (runner/gateway_link.py → llm/gateway.py).

    Runs stored before this model existed kept these settings as strings in `agent.options`;
    `Configuration` reads them from there (`LEGACY_ENDPOINT_OPTIONS`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    api_base: str | None = Field(None, description="OpenAI-compatible base URL; None for the provider's default.")
    api_key_env: str | None = Field(None, description="Host environment variable holding the key (read per call, "
                                    "never stored).")
    prices: str | None = Field(None, description="A TOML price file ([[price]] entries) merged over the shipped table.")
    use_cache: bool = Field(True, description="Read and write the LM response cache (--no-cache: False).")
    cache_salt: str = Field("", description="More cache salt: another salt draws fresh replies for the same trial.")
    timeout_s: float = Field(120.0, gt=0, description="Per model call.")
    retry_attempts: int = Field(4, ge=1, description="Tries of one call on rate limits, timeouts and 5xx.")
    retry_wait_s: float = Field(0.5, ge=0, description="The first wait between tries (doubling).")
    temperature: float = Field(0.0, ge=0, description="The bash agent's sampling temperature (a CLI samples its own way).")
    top_p: float | None = Field(None, gt=0, le=1, description="The bash agent's nucleus sampling; None: not sent.")
    max_tokens: int | None = Field(None, ge=1, description="The bash agent's output cap per call; None: not sent.")

    def sampling(self) -> dict[str, float | int]:
        """The sampling parameters the bash agent sends with every call."""
        sent = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens}
        return {k: v for k, v in sent.items() if v is not None}

    def digest_options(self) -> dict[str, str]:
        """The settings that change what the model answers (not where or how it is reached: `REACH_FIELDS`), the
        ones not at their default, as the string agent options a configuration's digest has always hashed."""
        kept = self.model_dump(exclude=set(REACH_FIELDS), exclude_defaults=True)
        return {k: _option_text(v) for k, v in kept.items()}


# Endpoint settings that say only where and how a model is reached: not part of a configuration's digest.
REACH_FIELDS = frozenset({"api_base", "api_key_env", "use_cache", "prices"})
# The agent options that carried the endpoint before it had its own field (stored runs), by field name.
LEGACY_ENDPOINT_OPTIONS = {"cache" if name == "use_cache" else name: name for name in ModelEndpoint.model_fields}


def _option_text(value: Any) -> str:
    """A setting as the string option it was written as: 30 for 30.0, 0.01 for 0.01."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class AgentSpec(Inbound):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(description="Registered agent name: oracle, nop, replay, bash, or a CLI adapter.")
    version: str = ""
    options: dict[str, str] = Field(default_factory=dict, description="The agent's own settings (replay's "
                                    "`trajectory`, a CLI's `cli_path`); the model's are `Configuration.endpoint`.")

    @field_validator("options")
    @classmethod
    def _no_endpoint_settings(cls, options: dict[str, str]) -> dict[str, str]:
        misplaced = sorted(set(options) & set(LEGACY_ENDPOINT_OPTIONS))
        if misplaced:
            raise ValueError(f"agent option {misplaced[0]!r} is a model endpoint setting: give it in the "
                             "configuration's `endpoint` (ModelEndpoint), not in agent.options")
        return options


class HarnessProfile(Inbound):
    model_config = ConfigDict(extra="forbid", frozen=True)
    approval_mode: str = "auto"
    sandbox: str = "external"
    flags: tuple[str, ...] = ()


class Configuration(Inbound):
    """An LM–CLI configuration: the subject of the benchmark. Frozen and hashed into execution keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    model: str | None = Field(None, description="litellm model string; None for model-free agents.")
    agent: AgentSpec
    harness: HarnessProfile = Field(default_factory=HarnessProfile)
    contract: Contract = "raw"
    transport: Transport = "raw"
    endpoint: ModelEndpoint = Field(default_factory=ModelEndpoint, description="Where and how the model is reached.")

    @model_validator(mode="before")
    @classmethod
    def _endpoint_from_legacy_options(cls, data: Any) -> Any:
        """A configuration stored before `endpoint` existed: its endpoint settings, strings in agent.options
        ("cache": "off" for no cache), become the endpoint; the agent's own options stay."""
        agent = data.get("agent") if isinstance(data, dict) else None
        options = agent.get("options") if isinstance(agent, dict) else None
        if not isinstance(agent, dict) or not isinstance(options, dict) or not set(options) & set(LEGACY_ENDPOINT_OPTIONS):
            return data
        if data.get("endpoint"):
            raise ValueError("endpoint settings both in agent.options and in endpoint: keep them in endpoint")
        endpoint = {LEGACY_ENDPOINT_OPTIONS[k]: (v != "off" if k == "cache" else v)
                    for k, v in options.items() if k in LEGACY_ENDPOINT_OPTIONS}
        own = {k: v for k, v in options.items() if k not in LEGACY_ENDPOINT_OPTIONS}
        return {**data, "agent": {**agent, "options": own}, "endpoint": endpoint}

    def digest(self) -> str:
        """What determines results: the endpoint's settings that only say where or how a model is reached (base
        URL, key variable, cache use, price file) are left out, so `--reuse` and `--resume` match executions of
        the same model served from another URL. Hashed in the shape stored before `endpoint` existed (its other
        settings as agent options), so every configuration the CLI makes keeps its digest, and stored runs
        their execution keys."""
        data = self.model_dump(mode="json", exclude={"endpoint"})
        data["agent"]["options"] = {**data["agent"]["options"], **self.endpoint.digest_options()}
        return sha256_text(canonical_json(data))

    @property
    def simulated(self) -> bool:
        return bool(self.model and self.model.startswith("sim/"))


# ---------------------------------------------------------------- trajectories


class TokenUsage(BaseModel):
    input: int = Field(0, ge=0, description="Uncached input tokens.")
    cached_input: int = Field(0, ge=0)
    output: int = Field(0, ge=0, description="Visible output tokens (reasoning excluded).")
    reasoning: int = Field(0, ge=0)

    @property
    def total(self) -> int:
        return self.input + self.cached_input + self.output + self.reasoning

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input=self.input + other.input,
            cached_input=self.cached_input + other.cached_input,
            output=self.output + other.output,
            reasoning=self.reasoning + other.reasoning,
        )


class Cost(BaseModel):
    """A USD amount, or None with the reason it is unknown (never a silent 0)."""

    usd: float | None = 0.0
    null_reason: str | None = None

    def __add__(self, other: Cost) -> Cost:
        if self.usd is None or other.usd is None:
            return Cost(usd=None, null_reason=self.null_reason or other.null_reason)
        return Cost(usd=self.usd + other.usd)


class ModelCall(BaseModel):
    index: int
    model: str
    reported_model: str | None = None
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost: Cost = Field(default_factory=Cost)
    cache_hit: bool = False
    started_at: datetime = Field(default_factory=utcnow)
    latency_s: float = 0.0
    step: str | None = Field(None, description="The step of a multi-step task whose agent phase made the call.")


class Step(BaseModel):
    index: int
    command: str | None = Field(None, description="Shell command as the agent wrote it.")
    tool_call: dict[str, Any] | None = None
    output: str = ""
    output_truncated: bool = False
    output_bytes: int = Field(0, description="Size of the full output before truncation.")
    exit_code: int | None = None
    timed_out: bool = False
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime = Field(default_factory=utcnow)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost: Cost = Field(default_factory=Cost)


class Trajectory(BaseModel):
    schema_version: int = SCHEMA_VERSION
    agent: str = ""
    agent_version: str = Field("", description="The agent CLI's own version: what its --version printed in the "
                               "sandbox, else its profile's pinned install ('' for built-in agents).")
    model: str | None = None
    steps: list[Step] = Field(default_factory=list)
    model_calls: list[ModelCall] = Field(default_factory=list)
    final_message: str = ""
    simulated: bool = False
    reported_models: list[str] = Field(default_factory=list)
    cli_model_calls: list[ModelCall] = Field(
        default_factory=list, description="Model calls as the CLI itself reported them (kept beside the gateway's).")
    cli_reported_models: list[str] = Field(default_factory=list, description="Models the CLI says it ran.")
    metering_disagreements: list[str] = Field(
        default_factory=list, description="Where the CLI's own report differs from the gateway's metering.")

    @property
    def tokens(self) -> TokenUsage:
        return sum((call.tokens for call in self.model_calls), TokenUsage())

    @property
    def cost(self) -> Cost:
        return sum((call.cost for call in self.model_calls), Cost())


# ---------------------------------------------------------------- results


class SafetyFinding(BaseModel):
    path: str
    change: Literal["created", "modified", "deleted"]
    critical: bool = False
    deduction: float = Field(0.2, description="Fraction of the reward removed (20 points of 100).")


class PhaseTiming(BaseModel):
    phase: str
    started_at: datetime
    ended_at: datetime

    @property
    def duration_s(self) -> float:
        return (self.ended_at - self.started_at).total_seconds()


class StepOutcome(BaseModel):
    """One step of a multi-step (Harbor `[[steps]]`) execution: its verifier's keys and scalar reward."""

    name: str
    rewards: dict[str, float] = Field(default_factory=dict)
    reward: float | None = Field(None, description="Harbor's primary reward of `rewards` (None: the step was not "
                                 "verified, or its keys hold no scalar).")
    verified: bool = False
    error: str | None = None
    n_actions: int = Field(0, description="The trajectory's actions this step added (they follow the earlier steps').")
    n_model_calls: int = Field(0, description="The trajectory's model calls this step added.")
    tokens: TokenUsage | None = Field(None, description="Tokens of this step's model calls (the execution's "
                                      "`tokens` are the sum over its steps); None: not recorded (an imported run).")
    cost: Cost | None = Field(None, description="Cost of this step's model calls (usd null with a reason when one "
                              "call's price is unknown); None: not recorded (an imported run).")


class ExecutionResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    execution_key: str
    run_id: str
    configuration_id: str
    configuration: Configuration
    task_id: str
    task_digest: str
    source_family: str = ""
    difficulty: str = ""
    description_sha256: str
    description_origin: DescriptionOrigin = "original"
    description_source: str | None = None
    seed: int
    attempt: int
    backend: str
    reward: float = Field(0.0, ge=0.0, le=1.0, description="Graded reward after safety deductions (Q/100).")
    raw_verifier_reward: float | None = None
    verdict_file: str | None = Field(None, description="The file under $MM_LOGS the reward was read from "
                                     "(reward.txt, verifier/reward.json or verifier/reward.txt); None without one.")
    subgoal_scores: dict[str, float] = Field(default_factory=dict)
    safety_findings: list[SafetyFinding] = Field(default_factory=list)
    cost: Cost = Field(default_factory=Cost)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    n_steps: int = 0
    phases: list[PhaseTiming] = Field(default_factory=list)
    failure_mode: FailureMode = "none"
    error: str | None = None
    trust_flags: dict[str, bool] = Field(default_factory=dict, description="Probe name -> passed.")
    simulated: bool = False
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime = Field(default_factory=utcnow)
    rewards: dict[str, float] = Field(
        default_factory=dict, description="Every key the verifier wrote, as written (unclamped; a reward.txt is "
        "{'reward': x}, as Harbor records it); the scalar `reward` is Harbor's primary reward of them "
        "(runner/verdict.py). Empty without a verdict and in results stored before per-key rewards.")
    not_recorded: list[str] = Field(
        default_factory=list, description="Measures the source did not record (an imported Harbor trial): "
        "`tokens`, `cost`, `n_steps`, `agent_s`; their table columns are null, never 0.")
    steps: list[StepOutcome] = Field(
        default_factory=list, description="A multi-step task's steps in order (name, per-key rewards, reward).")

    @property
    def wall_s(self) -> float:
        return (self.ended_at - self.started_at).total_seconds()

    def phase_s(self, phase: str) -> float | None:
        for p in self.phases:
            if p.phase == phase:
                return p.duration_s
        return None

    def to_row(self) -> dict[str, Any]:
        """One flat row of results.parquet (the table every metric reads). `rewards` is the per-key dict as
        canonical JSON ('' without keys); a measure in `not_recorded` is null in every column it feeds."""
        row = {
            "run_id": self.run_id,
            "execution_key": self.execution_key,
            "configuration_id": self.configuration_id,
            "model": self.configuration.model,
            "agent": self.configuration.agent.name,
            "contract": self.configuration.contract,
            "transport": self.configuration.transport,
            "task_id": self.task_id,
            "task_digest": self.task_digest,
            "source_family": self.source_family,
            "difficulty": self.difficulty,
            "description_sha256": self.description_sha256,
            "description_origin": self.description_origin,
            "description_source": self.description_source,
            "seed": self.seed,
            "attempt": self.attempt,
            "backend": self.backend,
            "reward": self.reward,
            "raw_verifier_reward": self.raw_verifier_reward,
            "passed": self.reward >= 1.0,
            "cost_usd": self.cost.usd,
            "cost_null_reason": self.cost.null_reason,
            "tokens_input": self.tokens.input,
            "tokens_cached_input": self.tokens.cached_input,
            "tokens_output": self.tokens.output,
            "tokens_reasoning": self.tokens.reasoning,
            "tokens_total": self.tokens.total,
            "n_steps": self.n_steps,
            "n_safety_findings": len(self.safety_findings),
            "wall_s": self.wall_s,
            "agent_s": self.phase_s("agent"),
            "failure_mode": self.failure_mode,
            "trusted": all(self.trust_flags.values()),
            "simulated": self.simulated,
            "rewards": canonical_json(self.rewards) if self.rewards else "",
        }
        for measure in self.not_recorded:
            for column in _MEASURE_COLUMNS.get(measure, ()):
                row[column] = None
        return row


_MEASURE_COLUMNS: dict[str, tuple[str, ...]] = {
    "tokens": ("tokens_input", "tokens_cached_input", "tokens_output", "tokens_reasoning", "tokens_total"),
    "cost": ("cost_usd",),
    "n_steps": ("n_steps",),
    "agent_s": ("agent_s",),
}


class RunManifest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    created_at: datetime = Field(default_factory=utcnow)
    matchmeter_version: str
    request: dict[str, Any] = Field(default_factory=dict, description="The run request as asked.")
    configurations: list[Configuration] = Field(default_factory=list)
    task_digests: dict[str, str] = Field(default_factory=dict)
    description_digests: dict[str, str] = Field(default_factory=dict, description="sha256 -> task id.")
    price_table_id: str = ""
    backend: str = ""
    allow_incompatible: bool = False
    simulated: bool = False
    price_table_digest: str = Field("", description="sha256 of every price entry the run was priced with.")
    lm_calls: int = Field(0, description="Model calls of the stored executions (cache hits included).")
    lm_cache_hits: int = Field(0, description="Of those, answered from the response cache.")
