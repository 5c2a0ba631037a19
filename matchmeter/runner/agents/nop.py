"""The nop agent: does nothing. A task's verifier must score it below 1.0."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec


class NopAgent:
    name = "nop"

    def __init__(self, *, configuration: Configuration, task: TaskSpec) -> None:
        self.configuration, self.task = configuration, task

    def setup(self, session: AgentSession) -> None:
        return None

    def run(self, description: str, session: AgentSession) -> None:
        return None
