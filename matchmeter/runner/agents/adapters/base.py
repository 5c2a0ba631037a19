"""The CLI adapter base: a machine-readable profile per CLI, and one class that runs any of them headless.

An adapter file declares its `AdapterProfile` (flags, env var names, model/base-URL plumbing, prompt
mode, log location and format, install spec) and a parser `parse_log(text) -> ParsedLog`; `CLIAdapter`
assembles the command, runs it through `session.sandbox.exec` with the session's deadline, reads the
CLI's own log, and reports steps and model calls to the session (priced from `matchmeter/llm/prices.toml`).

Model gateway: when the session has one (`session.gateway`), the CLI gets the gateway instead of a
provider: its base-URL variable/flag points at the in-sandbox forwarder (`<url>/v1` for OpenAI-style
CLIs, `<url>` for Anthropic-style ones, per `AdapterProfile.wire`) and its API-key variable holds the
execution's token; no host env var is passed through. The gateway's metering is then the source of truth
(model calls, tokens, cost, answering model); the CLI's own report is kept beside it
(`Trajectory.cli_model_calls`) and disagreements are listed (`Trajectory.metering_disagreements`). A CLI
that ends without a single call through the gateway is an AgentError, its output kept (bounded).

Secrets: env var values are taken from the host environment at run time and handed to the sandbox only
as process environment. They never enter the command string, and every captured output or log is
scrubbed of them before it is parsed, so they cannot reach trajectories, results or errors.
"""

from __future__ import annotations

import base64
import os
import re
import secrets
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from matchmeter.errors import AgentError, AgentTimeout, BudgetExceeded, InfraError, UserError
from matchmeter.llm.usage import as_int as as_int  # the usage reader, re-exported to the adapters' parsers
from matchmeter.llm.usage import inclusive_usage as inclusive_usage
from matchmeter.llm.usage import openai_usage as openai_usage
from matchmeter.runner.agents.adapters.install import ensure_installed, ensure_unpacked
from matchmeter.runner.agents.requirements import LAYER_KINDS, AgentRequirements
from matchmeter.runner.agents.requirements import InstallSpec as InstallSpec  # re-exported beside the profile
from matchmeter.schema import ModelCall, Step, TokenUsage

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec

PLACEHOLDER_KEY = "matchmeter-no-key"  # CLIs refuse to start without some key; a local stub ignores it
MIN_SECRET_LEN = 4  # shorter values would scrub ordinary text


def npm_unchecked(version: str, parser_version: str) -> str:
    """The profile note of an npm CLI pinned where no npm registry answers."""
    return (f"npm {version}: the latest in the workplace's npm package list, not checked with npm here (no npm "
            f"registry on this machine); parser written against {parser_version}; the CLI itself not run here "
            "(the npm install path is proven with a locally packed tarball).")


class AdapterProfile(BaseModel):
    """What a configuration actually runs: printed by `matchmeter agents profiles` and stored with results."""

    model_config = ConfigDict(frozen=True)
    name: str
    version: str = Field(description="CLI version the profile and parser were written against.")
    verified: bool = Field(description="True only once an end-to-end run here confirmed command and parser.")
    approval_mode: str = Field(description="How the CLI approves actions in headless mode.")
    sandbox: str = Field(description="The CLI's own sandbox setting (matchmeter's sandbox is always outside).")
    flags: tuple[str, ...] = Field(description="Fixed flags for the headless run.")
    prompt_mode: Literal["argv", "stdin", "file"]
    prompt_flag: str | None = Field(None, description="Flag before the prompt (argv/file modes); None = positional.")
    env_vars: tuple[str, ...] = Field((), description="Host env var NAMES passed through (values never stored).")
    api_key_env: str | None = Field(None, description="Env var the CLI reads its API key from.")
    model_flag: str | None = Field(None, description="Flag taking the model name.")
    model_prefix: Literal["keep", "strip"] = Field("keep", description="Pass the litellm provider prefix or not.")
    base_url_env: str | None = Field(None, description="Env var carrying the OpenAI-compatible endpoint.")
    base_url_flag: str | None = Field(None, description="Flag carrying the endpoint.")
    log_location: str = Field(description="'stdout', or a file under the agent state dir ($MM_AGENT_STATE).")
    log_format: str = Field(description="What the parser reads.")
    install: InstallSpec
    needs_network: bool = Field(True, description="The CLI calls a model endpoint from inside the sandbox.")
    wire: Literal["openai", "anthropic", "gemini"] = Field(
        "openai", description="The model API the CLI speaks (the gateway serves all three).")
    blocked: str = Field("", description="Why this CLI cannot run on this kind of machine at all ('' = nothing "
                         "known); `agents profiles` shows it.")
    notes: str = ""


class ParsedLog(NamedTuple):
    steps: list[Step]
    calls: list[ModelCall]
    reported_models: list[str]
    final_message: str = ""


@dataclass
class LogReader:
    """What a parser gathers while it reads a CLI's log, the same way for every adapter: model calls and
    steps numbered in order, each model the CLI names listed once, the final message."""

    calls: list[ModelCall] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    reported: list[str] = field(default_factory=list)
    final: str = ""

    def saw_model(self, name: str) -> None:
        if name and name not in self.reported:
            self.reported.append(name)

    def last_model(self) -> str:
        """The model named last ('' before any): a call in a log that names models apart from calls."""
        return self.reported[-1] if self.reported else ""

    def call(self, model: str, tokens: TokenUsage, **fields: Any) -> None:
        """One model call by the model the CLI names for it ('' when none), which counts as reported."""
        self.calls.append(ModelCall(index=len(self.calls), model=model, reported_model=model or None,
                                    tokens=tokens, **fields))
        self.saw_model(model)

    def step(self, output: str = "", **fields: Any) -> Step:
        step = Step(index=len(self.steps), output=output, output_bytes=len(output.encode()), **fields)
        self.steps.append(step)
        return step

    def parsed(self) -> ParsedLog:
        return ParsedLog(steps=self.steps, calls=self.calls, reported_models=self.reported, final_message=self.final)


def answer(step: Step, output: str) -> None:
    """A tool result that arrives after its call: the step's output, sized as it came."""
    step.output = output
    step.output_bytes = len(output.encode())


class RunContext(NamedTuple):
    state_dir: str  # in-sandbox dir for the CLI's HOME, config and logs; removed afterwards
    model: str  # model name as the CLI wants it
    api_base: str | None
    prompt: str
    gateway_token: str | None = None  # set when the model gateway is the CLI's endpoint


def scrub(text: str, secret_values: dict[str, str]) -> str:
    """Replace every secret value by `[REDACTED:<NAME>]`."""
    for name, value in secret_values.items():
        if value and len(value) >= MIN_SECRET_LEN:
            text = text.replace(value, f"[REDACTED:{name}]")
    return text


def strip_provider(model: str) -> str:
    return model.split("/", 1)[1] if "/" in model else model


class CLIAdapter:
    """Runs one CLI headless in the sandbox and turns its own log into our trajectory."""

    PROFILE: ClassVar[AdapterProfile]

    def __init__(self, *, configuration: Configuration, task: TaskSpec) -> None:
        self.configuration, self.task = configuration, task
        self.name = self.PROFILE.name
        if not configuration.model:
            raise UserError(f"agent {self.name!r} needs a model", "--model", "pass --model <litellm model string>")
        if configuration.transport != "raw":
            raise UserError(f"agent {self.name!r} runs its own commands; transports do not apply",
                            "--transport", "use --transport raw with CLI adapters")
        self.executable: str | None = configuration.agent.options.get("cli_path")
        self.cli_version = ""  # what `<cli> --version` printed in the sandbox (setup), for ATIF's agent.version

    @classmethod
    def profile(cls) -> AdapterProfile:
        return cls.PROFILE

    @classmethod
    def requirements(cls) -> AgentRequirements:
        """What the runner reads from this class (agents/requirements.py), from its profile."""
        profile = cls.profile()
        return AgentRequirements(model_in_sandbox=profile.needs_network, blocked=profile.blocked,
                                 install=profile.install if profile.install.kind in LAYER_KINDS else None)

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        """The CLI's log text → steps, model calls (tokens by class, reported model), reported models."""
        raise NotImplementedError

    # ------------------------------------------------------------ hooks (override in small adapters)

    def extra_args(self, ctx: RunContext) -> list[str]:
        """Flags that depend on the run (log paths, config files)."""
        return []

    def prepare_files(self, ctx: RunContext) -> dict[str, str]:
        """Files to write under the state dir before the run (name → content)."""
        return {}

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return {}

    # ------------------------------------------------------------ the Agent protocol

    def setup(self, session: AgentSession) -> None:
        """Find the CLI's executable in the sandbox (its image layer, a host dir bound read-only, cli_path, or
        the image's PATH) and, for a native CLI, prove it runs there (`--version`, kept as `cli_version`). A
        CLI that is missing or broken in the sandbox is the machine's or the configuration's failure
        (InfraError → infra_error), never the agent's: the agent never ran."""
        spec = self.PROFILE.install
        if not self.executable:
            in_image = session.sandbox.cli_executable  # declared by Sandbox: the CLI's in-image executable, if any
            if in_image and spec.kind in LAYER_KINDS:
                self.executable = in_image
            elif spec.kind == "pypi":
                # The fallback where no layer could be built: a host venv, which bwrap (read-only) and local see.
                self.executable = str(ensure_installed(spec.package, spec.version, spec.executable))
            elif spec.kind == "pypi-binary":
                self.executable = str(ensure_unpacked(spec.package, spec.version, spec.payload or
                                                      spec.binary.split("/")[0], spec.binary))
        if self.executable:
            if session.sandbox.exec(f"test -x {shlex.quote(self.executable)}", 30).exit_code != 0:
                raise InfraError(f"the {self.name} CLI {self.executable} is not executable inside this sandbox: it "
                                 "was created without the CLI's image layer (SandboxRequest.cli_install) or its host "
                                 "dir bound, or cli_path names no executable there")
        else:
            found = session.sandbox.exec(f"command -v {shlex.quote(spec.executable)}", 30)
            if found.exit_code != 0 or not found.output.strip():
                raise InfraError(f"the {self.name} CLI ({spec.executable}) is not installed in the sandbox: install "
                                 f"{spec.kind} package {spec.package}@{spec.version or 'latest'} into the task image "
                                 "or pass agent option cli_path")
            self.executable = found.output.strip().splitlines()[-1]
        if spec.kind in ("pypi-binary", "npm", "binary"):
            self.cli_version = self._probe_version(session)
        # ATIF's agent.version is the CLI's, not matchmeter's: as it reported it, else the pinned install's
        pinned = "" if self.configuration.agent.options.get("cli_path") else spec.cli_version or spec.version
        session.trajectory.agent_version = self.cli_version or pinned

    def _probe_version(self, session: AgentSession) -> str:
        """`<cli> --version` inside the sandbox: the line that reports its version.

        Raises:
            InfraError: it does not run there (exit code and output tail in the message).
        """
        assert self.executable is not None
        home = f"/tmp/mm-version-{secrets.token_hex(4)}"
        probe = session.sandbox.exec(f"mkdir -p {home} && HOME={home} {shlex.quote(self.executable)} --version "
                                     f"</dev/null 2>&1; code=$?; rm -rf {home}; exit $code", 120)
        if probe.exit_code != 0 or probe.timed_out:
            raise InfraError(f"the {self.name} CLI does not run in the sandbox: `{self.executable} --version` "
                             f"{'timed out' if probe.timed_out else f'exited {probe.exit_code}'}: "
                             f"{probe.output.strip()[-300:]!r}")
        # The line that names a version (Codex warns about its helper binaries first), else the last line.
        lines = [line.strip() for line in probe.output.splitlines() if line.strip()]
        return next((line for line in lines if re.search(r"\d+\.\d+", line)), lines[-1] if lines else "")

    def run(self, description: str, session: AgentSession) -> None:
        profile = self.PROFILE
        ctx = self._context(description, session)
        env, secret_values = self._env(ctx)
        command = self._command(ctx)
        result = session.sandbox.exec(command, max(session.remaining_s(), 1.0), env)
        output = scrub(result.output, secret_values)
        session.keep_agent_output(output)
        log_text = output
        if profile.log_location != "stdout":
            log_path = f"{ctx.state_dir}/{profile.log_location}"
            log_text = scrub(session.sandbox.exec(f"cat {shlex.quote(log_path)} 2>/dev/null", 60).output, secret_values)
        session.sandbox.exec(f"rm -rf {shlex.quote(ctx.state_dir)}", 60)
        try:
            parsed = self.parse_log(log_text)
        except (ValueError, KeyError, TypeError) as exc:
            raise AgentError(f"{self.name}: unreadable {profile.log_format}: {exc}; output tail: {output[-300:]!r}") from exc
        if session.gateway is not None:
            self._report_gateway(parsed, session)
        else:
            self._report(parsed, session)
        if result.timed_out:
            raise AgentTimeout(f"{self.name} ran past the agent deadline")
        if result.exit_code != 0 and not parsed.calls:
            raise AgentError(f"{self.name} exited {result.exit_code} without a model call: {output.strip()[-400:]}")

    # ------------------------------------------------------------ assembly

    def _context(self, description: str, session: AgentSession) -> RunContext:
        """Model name, endpoint and token for this run (the gateway's when the session has one)."""
        profile = self.PROFILE
        model = self.configuration.model or ""
        model = strip_provider(model) if profile.model_prefix == "strip" else model
        state_dir = f"/tmp/mm-agent-{self.name}-{secrets.token_hex(4)}"
        access = session.gateway
        if access is None:
            return RunContext(state_dir, model, self.configuration.endpoint.api_base, description)
        if access.sandbox_url is None:
            raise AgentError(f"{self.name} cannot reach the model gateway: the sandbox has no gateway forwarder")
        if profile.wire == "openai" and profile.model_prefix == "keep" and not model.startswith("openai/"):
            model = f"openai/{model}"  # litellm-based CLIs: speak OpenAI to the gateway whatever the model
        base = access.sandbox_url.rstrip("/") + ("/v1" if profile.wire == "openai" else "")
        return RunContext(state_dir, model, base, description, access.token)

    def _env(self, ctx: RunContext) -> tuple[dict[str, str], dict[str, str]]:
        """Process env for the CLI, and the secret values to scrub (name → value)."""
        profile = self.PROFILE
        env = {"HOME": ctx.state_dir, "MM_AGENT_STATE": ctx.state_dir, "NO_COLOR": "1", "TERM": "dumb"}
        if ctx.gateway_token is not None:  # the token is the only credential the sandbox ever holds
            if profile.api_key_env:
                env[profile.api_key_env] = ctx.gateway_token
            if profile.base_url_env and ctx.api_base:
                env[profile.base_url_env] = ctx.api_base
            env.update(self.extra_env(ctx))
            return env, {"MATCHMETER_GATEWAY_TOKEN": ctx.gateway_token}
        secret_values = {name: os.environ[name] for name in profile.env_vars if os.environ.get(name)}
        env.update(secret_values)
        key_source = self.configuration.endpoint.api_key_env
        if profile.api_key_env:
            value = os.environ.get(key_source or profile.api_key_env, "")
            env[profile.api_key_env] = value or PLACEHOLDER_KEY
            if value:
                secret_values[key_source or profile.api_key_env] = value
        if profile.base_url_env and ctx.api_base:
            env[profile.base_url_env] = ctx.api_base
        env.update(self.extra_env(ctx))
        return env, secret_values

    def _command(self, ctx: RunContext) -> str:
        """One shell line: make the state dir, write files, run the CLI (argv quoted, no secrets)."""
        profile = self.PROFILE
        files = dict(self.prepare_files(ctx))
        argv: list[str] = [self.executable or profile.install.executable, *profile.flags]
        if profile.model_flag:
            argv += [profile.model_flag, ctx.model]
        if profile.base_url_flag and ctx.api_base:
            argv += [profile.base_url_flag, ctx.api_base]
        argv += self.extra_args(ctx)
        redirect = ""
        if profile.prompt_mode == "argv":
            argv += [profile.prompt_flag, ctx.prompt] if profile.prompt_flag else [ctx.prompt]
        else:
            files["prompt.txt"] = ctx.prompt
            prompt_path = f"{ctx.state_dir}/prompt.txt"
            if profile.prompt_mode == "stdin":
                redirect = f" < {shlex.quote(prompt_path)}"
            else:
                argv += [profile.prompt_flag, prompt_path] if profile.prompt_flag else [prompt_path]
        parts = [f"mkdir -p {shlex.quote(ctx.state_dir)}"]
        for name, content in files.items():
            b64 = base64.b64encode(content.encode()).decode()
            parts.append(f"printf %s {b64} | base64 -d > {shlex.quote(ctx.state_dir + '/' + name)}")
        return " && ".join(parts) + " && " + shlex.join(argv) + redirect + " 2>&1"

    # ------------------------------------------------------------ reporting

    def _report(self, parsed: ParsedLog, session: AgentSession) -> None:
        """Price and record every call, adopt the steps; budget overruns are raised after all is recorded."""
        overrun: BudgetExceeded | AgentTimeout | None = None
        for call in parsed.calls:
            try:
                session.record_model_call(self._priced(call))
            except (BudgetExceeded, AgentTimeout) as exc:
                overrun = overrun or exc
        for name in parsed.reported_models:
            if name not in session.trajectory.reported_models:
                session.trajectory.reported_models.append(name)
        try:
            session.add_steps(parsed.steps)
        except (BudgetExceeded, AgentTimeout) as exc:
            overrun = overrun or exc
        session.trajectory.final_message = parsed.final_message
        if overrun is not None:
            raise overrun

    def _report_gateway(self, parsed: ParsedLog, session: AgentSession) -> None:
        """The gateway's metering becomes the model calls; the CLI's own report is kept beside it."""
        assert session.gateway is not None
        meter = session.gateway.session.meter
        trajectory = session.trajectory
        trajectory.model_calls = meter.model_calls()
        trajectory.reported_models = list(dict.fromkeys(c.model_answered for c in meter.answered if c.model_answered))
        # A multi-step execution runs the CLI once per step: its own reports add up like the gateway's.
        trajectory.cli_model_calls += [self._priced(c).model_copy(update={"step": session.step}) for c in parsed.calls]
        trajectory.cli_reported_models = list(dict.fromkeys([*trajectory.cli_reported_models, *parsed.reported_models]))
        trajectory.metering_disagreements = metering_disagreements(trajectory.model_calls, trajectory.cli_model_calls)
        trajectory.final_message = parsed.final_message
        overrun: BudgetExceeded | AgentTimeout | None = None
        try:
            session.add_steps(parsed.steps)
        except (BudgetExceeded, AgentTimeout) as exc:
            overrun = exc
        if meter.refusal is not None:
            raise meter.refusal
        if not meter.calls_of(session.step):
            raise AgentError(f"{self.name} ended without a single model call through the gateway; "
                             f"output tail: {session.agent_output.strip()[-400:]!r}")
        if overrun is not None:
            raise overrun

    def _priced(self, call: ModelCall) -> ModelCall:
        """Cost = tokens × the price of the model that ran (the reported one when the table knows it)."""
        from matchmeter.llm.pricing import PriceTable

        if call.cost.usd is None:  # the parser already knows the cost is unknown (no usage in the log)
            return call.model_copy(update={"model": self.configuration.model or call.model})
        table = PriceTable.load()
        configured = self.configuration.model or call.model
        name = call.reported_model if call.reported_model and table.lookup(call.reported_model) else configured
        return call.model_copy(update={"model": configured, "cost": table.cost(name, call.tokens)})


def metering_disagreements(gateway: list[ModelCall], cli: list[ModelCall]) -> list[str]:
    """Where the CLI's own account differs from the gateway's (empty when they agree)."""
    notes = []
    if len(gateway) != len(cli):
        notes.append(f"calls: gateway metered {len(gateway)}, the CLI reported {len(cli)}")
    g_tokens, c_tokens = sum(c.tokens.total for c in gateway), sum(c.tokens.total for c in cli)
    if cli and g_tokens != c_tokens:
        notes.append(f"tokens: gateway metered {g_tokens}, the CLI reported {c_tokens}")
    answered = {c.reported_model for c in gateway if c.reported_model}
    claimed = {c.reported_model for c in cli if c.reported_model}
    if claimed - answered:
        notes.append(f"models: the CLI reported {sorted(claimed - answered)}, the gateway saw {sorted(answered)}")
    return notes


# ---------------------------------------------------------------- helpers for parsers


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of `text` that is a JSON object (CLIs interleave banners and warnings)."""
    import json

    events = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                events.append(obj)
    return events


def json_documents(text: str, opener: str) -> Iterator[Any]:
    """Each JSON value that starts a line with `opener` (`{` or `[`) and decodes, possibly over several
    lines, in order (a single-document `--output-format json` among banners and warnings)."""
    import json

    decoder = json.JSONDecoder()
    for match in re.finditer("^" + re.escape(opener), text, re.MULTILINE):
        try:
            yield decoder.raw_decode(text, match.start())[0]
        except json.JSONDecodeError:
            continue


def last_json_object(text: str) -> dict[str, Any]:
    """The last top-level JSON object in `text` (a single-document `--output-format json`)."""
    found = [obj for obj in json_documents(text, "{") if isinstance(obj, dict)]
    if not found:
        raise ValueError("no JSON object in the output")
    return found[-1]


def json_array_or_lines(text: str) -> list[dict[str, Any]]:
    """The first JSON array of events in `text` (qwen `--output-format json`), else JSONL (stream-json)."""
    for data in json_documents(text, "["):
        if isinstance(data, list):
            return [e for e in data if isinstance(e, dict)]
    return json_lines(text)


def epoch(value: Any) -> datetime | None:
    """A Unix timestamp (s) or ISO string → UTC datetime, None when absent."""
    if isinstance(value, int | float) and value > 0:
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None
