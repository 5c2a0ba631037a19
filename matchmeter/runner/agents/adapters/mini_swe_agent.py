"""mini-swe-agent (`mini`): text-based bash actions, yolo mode, trajectory JSON with per-call responses.

Run: `mini -c mini_textbased.yaml -c $STATE/matchmeter.yaml -m <litellm model> -y --exit-immediately
-o $STATE/trajectory.json -t <task>`. The text-based model class is used so any OpenAI-compatible
endpoint works (no tool-calling needed); the endpoint goes in `model.model_kwargs.api_base` (the session's
per-execution endpoint for `sim/` models), and `sim/*`/`stub/*` models get `custom_llm_provider: openai`.

Log: `trajectory.json` (`trajectory_format` mini-swe-agent-1.1): `messages` in order. A model call is
any message whose `extra.response` holds an OpenAI-shaped response (`model`, `usage`) — assistant
messages, and the user message of a format error (the call was billed before parsing failed). A step
is an action `extra.actions[i].command` paired with the next observation message (`extra.returncode`,
`extra.raw_output`). The `exit` message carries the submission.
"""

from __future__ import annotations

import json
from typing import Any

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
    RunContext,
    epoch,
    openai_usage,
)
from matchmeter.schema import utcnow


class MiniSweAgentAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="mini-swe-agent",
        version="2.4.6",
        verified=True,
        approval_mode="yolo (-y: every action runs without confirmation)",
        sandbox="none (LocalEnvironment: subprocess in the working directory)",
        flags=("-c", "mini_textbased.yaml", "-y", "--exit-immediately", "--cost-limit", "0"),
        prompt_mode="argv",
        prompt_flag="-t",
        env_vars=(),
        api_key_env="OPENAI_API_KEY",
        model_flag="-m",
        model_prefix="keep",
        log_location="trajectory.json",
        log_format="mini-swe-agent trajectory JSON (messages with extra.response usage/model)",
        install=InstallSpec(kind="pypi", package="mini-swe-agent", version="2.4.6", executable="mini"),
        notes="model_kwargs.api_base carries the endpoint; cost tracking is ours (MSWEA_COST_TRACKING=ignore_errors).",
    )

    def extra_args(self, ctx: RunContext) -> list[str]:
        return ["-c", f"{ctx.state_dir}/matchmeter.yaml", "-o", f"{ctx.state_dir}/trajectory.json"]

    def prepare_files(self, ctx: RunContext) -> dict[str, str]:
        model_kwargs: dict[str, Any] = {"drop_params": True}
        if ctx.api_base:
            model_kwargs["api_base"] = ctx.api_base
        if ctx.model.split("/", 1)[0] in ("sim", "stub"):
            # Offline models speak OpenAI to the stub; litellm needs the provider named, and then sends the
            # model name unchanged, so the stub answers (and we check) `sim/<persona>` itself.
            model_kwargs["custom_llm_provider"] = "openai"
        config = {  # JSON is YAML; mini merges this over mini_textbased.yaml
            "agent": {"mode": "yolo", "confirm_exit": False, "step_limit": self.task.budgets.steps},
            "model": {"model_class": "litellm_textbased", "cost_tracking": "ignore_errors",
                      "model_kwargs": model_kwargs},
            "environment": {"timeout": int(self.task.timeouts.command_s)},
        }
        return {"matchmeter.yaml": json.dumps(config)}

    def extra_env(self, ctx: RunContext) -> dict[str, str]:
        return {"MSWEA_CONFIGURED": "true", "MSWEA_SILENT_STARTUP": "1", "MSWEA_COST_TRACKING": "ignore_errors",
                "MSWEA_GLOBAL_CONFIG_DIR": f"{ctx.state_dir}/config", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        data = json.loads(text)
        messages = data.get("messages") or []
        log = LogReader()
        pending: list[tuple[str, Any]] = []  # actions waiting for their observation
        for message in messages:
            extra = message.get("extra") or {}
            response = extra.get("response")
            if isinstance(response, dict) and "usage" in response:
                log.call(response.get("model") or "", openai_usage(response.get("usage")),
                         started_at=epoch(extra.get("timestamp")) or utcnow())
            if message.get("role") == "assistant":
                pending += [(a.get("command", ""), extra.get("timestamp")) for a in extra.get("actions") or []]
            elif message.get("role") == "user" and "returncode" in extra and pending:
                command, started = pending.pop(0)
                log.step(command=command, output=str(extra.get("raw_output") or ""), exit_code=extra.get("returncode"),
                         started_at=epoch(started) or utcnow(), ended_at=epoch(extra.get("timestamp")) or utcnow())
            elif message.get("role") == "exit":
                log.final = str(extra.get("submission") or message.get("content") or "")
        for command, started in pending:  # the submit action ends the run without an observation
            log.step(command=command, started_at=epoch(started) or utcnow())
        return log.parsed()
