"""The replay agent: re-executes the commands of a stored trajectory, in order, through the session.

The trajectory comes from `configuration.agent.options["trajectory"]`: a trajectory.json written by a
run, an ATIF v1.x document (a run's trajectory.atif.json, or any ATIF file whose shell commands are `bash`
tool calls with a `command` argument), or a plain JSON list of command strings (handy for scripted
probes and safety tests). Any other JSON (another tool's result.json) is refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.errors import UserError
from matchmeter.runner.atif import commands_from_atif
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
    if isinstance(data, dict) and str(data.get("schema_version", "")).startswith("ATIF-v1."):
        commands = commands_from_atif(data)
        if not commands and data.get("steps"):
            raise UserError("the ATIF trajectory has no shell command to replay", str(path),
                            "pass an ATIF file whose agent steps hold `bash` tool calls with a `command` argument")
        return commands
    refused = UserError("replay file is neither a trajectory, an ATIF v1.x file nor a list of commands", str(path),
                        "pass a trajectory.json or trajectory.atif.json written by `matchmeter run`")
    # Every field of Trajectory has a default: any JSON object (a Harbor result.json) would validate as an empty
    # trajectory. Ours says what it is (schema_version, steps) and holds nothing else.
    if not isinstance(data, dict) or not {"schema_version", "steps"} <= data.keys() \
            or not data.keys() <= Trajectory.model_fields.keys():
        raise refused
    try:
        trajectory = Trajectory.model_validate(data)
    except ValueError as exc:
        raise refused from exc
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
