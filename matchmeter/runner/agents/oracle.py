"""The oracle agent: runs the task's reference solution (solution/solve.sh) inside the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec


class OracleAgent:
    name = "oracle"

    def __init__(self, *, configuration: Configuration, task: TaskSpec) -> None:
        self.configuration, self.task = configuration, task

    def setup(self, session: AgentSession) -> None:
        # The solution travels through the logs dir, never the tests dir, so "tests absent during the
        # agent phase" stays checkable for every agent.
        session.sandbox.upload(Path(self.task.path) / "solution", f"{session.logs_dir}/.oracle")

    def run(self, description: str, session: AgentSession) -> None:
        session.execute(f'bash "{session.logs_dir}/.oracle/solve.sh"; rc=$?; rm -rf "{session.logs_dir}/.oracle"; exit $rc',
                        timeout_s=session.task.timeouts.agent_s)
