"""The oracle agent: runs the task's reference solution inside the sandbox: a Harbor-layout task's own
solution/solve.sh, or the solve.sh written from a built-in task's first reference path (tasks/oracle.py)."""

from __future__ import annotations

import base64
import io
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.runner.sandbox.upload_proof import run_uploaded, uploaded_paths
from matchmeter.runner.steps import step_solution
from matchmeter.tasks.oracle import stage_oracle

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec


def _tar(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


class OracleAgent:
    name = "oracle"

    def __init__(self, *, configuration: Configuration, task: TaskSpec) -> None:
        self.configuration, self.task = configuration, task
        self._solution_paths: list[str] = []

    def setup(self, session: AgentSession) -> None:
        # The solution travels through the logs dir, never the tests dir, so "tests absent during the
        # agent phase" stays checkable for every agent. A multi-step task's oracle is staged per step (run).
        if self.task.steps:
            return
        self._solution_paths = self._upload(session)

    def _upload(self, session: AgentSession, again: bool = False) -> list[str]:
        """Stage the solution and upload it (through an exec when `again`, upload_proof.py); the paths it put in
        the sandbox."""
        dest = f"{session.logs_dir}/.oracle"
        with tempfile.TemporaryDirectory(prefix="mm-oracle-") as tmp:
            solution = Path(tmp) / "solution"
            stage_oracle(self.task, solution)
            session.sandbox.upload(solution, dest, through_exec=again)
            return uploaded_paths(solution, dest)

    def run(self, description: str, session: AgentSession) -> None:
        if self.task.steps:  # the step's own steps/<name>/solution/solve.sh, as Harbor's oracle runs it
            assert session.step is not None
            # After the first step's verifier the logs dir is the verifier's alone (sandbox.restart), and only
            # the shared dirs take uploads: the step's solution travels inside the command, unpacked into a
            # temporary directory of the sandbox's own.
            packed = base64.b64encode(_tar(step_solution(self.task, session.step))).decode()
            session.execute(f'd=$(mktemp -d) && echo {packed} | base64 -d | tar -xzf - -C "$d" && bash "$d/solve.sh"; '
                            'rc=$?; rm -rf "$d"; exit $rc', timeout_s=session.task.timeouts.agent_s)
            return
        # a solution the sandbox lost is uploaded again: never an oracle scored for a file it never had
        solution = f"{session.logs_dir}/.oracle"
        run_uploaded(lambda again: self._upload(session, again), self._solution_paths,
                     lambda proof: session.execute(f'{proof}bash "{solution}/solve.sh"; rc=$?; rm -rf "{solution}"; '
                                                   'exit $rc', timeout_s=session.task.timeouts.agent_s),
                     f"oracle solution uploaded to {solution}", uploaded=True)
