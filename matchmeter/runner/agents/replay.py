"""The replay agent: re-executes the commands of a stored trajectory, in order, through the session.

The trajectory comes from `configuration.agent.options["trajectory"]`: a trajectory.json written by a
run, or a plain JSON list of command strings (handy for scripted probes and safety tests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.errors import UserError
from matchmeter.schema import Trajectory

if TYPE_CHECKING:
    from matchmeter.runner.agents.session import AgentSession
    from matchmeter.schema import Configuration, TaskSpec


def load_commands(path: Path) -> list[str]:
    """Commands of a stored trajectory (or of a JSON list of strings)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise UserError("replay trajectory not found", str(path), "pass --replay PATH to a trajectory.json") from exc
    except ValueError as exc:
        raise UserError(f"replay trajectory is not JSON: {exc}", str(path), "pass a trajectory.json") from exc
    if isinstance(data, list) and all(isinstance(c, str) for c in data):
        return data
    try:
        trajectory = Trajectory.model_validate(data)
    except ValueError as exc:
        raise UserError("replay file is neither a trajectory nor a list of commands", str(path),
                        "pass a trajectory.json written by `matchmeter run`") from exc
    return [s.command for s in trajectory.steps if s.command is not None]


class ReplayAgent:
    name = "replay"

    def __init__(self, *, configuration: Configuration, task: TaskSpec) -> None:
        self.configuration, self.task = configuration, task
        source = configuration.agent.options.get("trajectory")
        if not source:
            raise UserError("the replay agent needs a trajectory", "--replay", "pass --replay PATH")
        self.commands = load_commands(Path(source))

    def setup(self, session: AgentSession) -> None:
        return None

    def run(self, description: str, session: AgentSession) -> None:
        for command in self.commands:
            session.execute(command)
