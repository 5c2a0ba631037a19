"""The agent protocol and the lazy registry of agents (built-ins and CLI adapters).

An agent turns a description into actions inside a sandbox. Agents that act one command at a time
(oracle, nop, replay, bash) go through `AgentSession.execute`, which applies the transport, records the
step and enforces the step/token/USD budgets and the deadline. CLI adapters run a whole CLI process
through `session.sandbox.exec` and report its parsed log with `session.add_steps`/`record_model_call`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

from matchmeter.errors import UserError

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec


class Agent(Protocol):
    """Raises: AgentError (its model or CLI failed), BudgetExceeded, AgentTimeout (from the session)."""

    name: str

    def setup(self, session: AgentSession) -> None:
        """Prepare inside the sandbox (install a CLI, write its config). Counted in the setup phase."""
        ...

    def run(self, description: str, session: AgentSession) -> None:
        """Act on the description until done; the session accumulates the trajectory."""
        ...


AGENTS: dict[str, str] = {
    "oracle": "matchmeter.runner.agents.oracle:OracleAgent",
    "nop": "matchmeter.runner.agents.nop:NopAgent",
    "replay": "matchmeter.runner.agents.replay:ReplayAgent",
    "bash": "matchmeter.runner.agents.bash:BashAgent",
    # CLI adapters (one file each under adapters/; profiles via `matchmeter agents profiles`)
    "mini-swe-agent": "matchmeter.runner.agents.adapters.mini_swe_agent:MiniSweAgentAdapter",
    "aider": "matchmeter.runner.agents.adapters.aider:AiderAdapter",
    "codex": "matchmeter.runner.agents.adapters.codex:CodexAdapter",
    "claude-code": "matchmeter.runner.agents.adapters.claude_code:ClaudeCodeAdapter",
    "qwen-code": "matchmeter.runner.agents.adapters.qwen_code:QwenCodeAdapter",
    "gemini-cli": "matchmeter.runner.agents.adapters.gemini_cli:GeminiCliAdapter",
    "kimi": "matchmeter.runner.agents.adapters.kimi:KimiAdapter",
    "opencode": "matchmeter.runner.agents.adapters.opencode:OpenCodeAdapter",
}


def _entry_point_agents() -> dict[str, str]:
    from importlib.metadata import entry_points  # scans every installed distribution: only when asked

    found = {}
    for ep in entry_points(group="matchmeter.adapters"):
        found[ep.name] = ep.value
    return found


def known_agents() -> dict[str, str]:
    return {**_entry_point_agents(), **AGENTS}


def agent_class(name: str) -> type:
    """The class registered as `name`, a built-in line of AGENTS or a `matchmeter.adapters` entry point
    (imported now).

    Raises:
        UserError: no agent of that name, or it cannot be imported.
    """
    # a built-in name wins over an entry point of the same name, so only another name needs the scan
    registry = AGENTS if name in AGENTS else known_agents()
    if name not in registry:
        raise UserError(f"unknown agent {name!r}", "--agent", f"choose one of: {', '.join(sorted(registry))}")
    module_name, _, cls_name = registry[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # pragma: no cover - depends on installed extras
        raise UserError(f"agent {name!r} cannot be imported: {exc}", "--agent", "pip install 'matchmeter[clis]'") from exc
    cls: type = getattr(module, cls_name)
    return cls


def get_agent(configuration: Configuration, task: TaskSpec) -> Agent:
    """Instantiate the configuration's agent for one trial (imports it lazily)."""
    agent: Agent = agent_class(configuration.agent.name)(configuration=configuration, task=task)
    return agent
