"""The oracle agent: runs the task's reference solution inside the sandbox: a Harbor-layout task's own
solution/solve.sh, or the solve.sh written from a built-in task's first reference path (tasks/oracle.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.tasks.oracle import stage_oracle

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
        with tempfile.TemporaryDirectory(prefix="mm-oracle-") as tmp:
            solution = Path(tmp) / "solution"
            stage_oracle(self.task, solution)
            session.sandbox.upload(solution, f"{session.logs_dir}/.oracle")

    def run(self, description: str, session: AgentSession) -> None:
        session.execute(f'bash "{session.logs_dir}/.oracle/solve.sh"; rc=$?; rm -rf "{session.logs_dir}/.oracle"; exit $rc',
                        timeout_s=session.task.timeouts.agent_s)
