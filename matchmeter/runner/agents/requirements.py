"""What an agent needs from the runner, declared as typed data on the agent's class (issue 37).

    class MyAgent:
        @classmethod
        def requirements(cls) -> AgentRequirements:
            return AgentRequirements(model_in_sandbox=True, install=InstallSpec(kind="npm", ...))

The runner reads it from the class wherever the class came from, a built-in registry line or the
`matchmeter.adapters` entry point of a separately installed package (`requirements_of`), never by looking
the agent's name up in a built-in table. An agent that declares nothing needs nothing: its model calls,
if any, happen in matchmeter's own process (the bash agent), and it runs with the task's network only.
Network is not a requirement of its own: an agent whose model is inside the sandbox gets the gateway's
socket (or, with no gateway, the network), and any other network is the task's to grant.
CLI adapters declare theirs from their profile (`CLIAdapter.requirements`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from matchmeter.errors import UserError
from matchmeter.runner.agents import agent_class

if TYPE_CHECKING:
    from matchmeter.schema import Configuration

# Install kinds matchmeter installs itself into the CLI image layer (runner/sandbox/clilayer.py).
LAYER_KINDS = ("pypi", "pypi-binary", "npm")


class InstallSpec(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["pypi", "pypi-binary", "npm", "binary"] = Field(
        description="Where the CLI comes from: pypi (a venv), pypi-binary (a wheel's native executable), npm "
        "(on Node from PyPI), binary (already in the task image; nothing installed).")
    package: str = Field(description="PyPI/npm package name (or the binary's name).")
    version: str = Field("", description="Pinned version of the package.")
    executable: str = Field(description="Executable the package installs.")
    binary: str = Field("", description="pypi-binary: the executable's path inside the wheel.")
    payload: str = Field("", description="pypi-binary: the wheel directory the layer gets (default: the "
                         "executable's top-level directory).")
    cli_version: str = Field("", description="The CLI's own version when the package's differs (a wheel "
                             "that bundles the CLI); else the package's.")


class AgentRequirements(BaseModel):
    """What one agent class needs from the runner for a trial."""

    model_config = ConfigDict(frozen=True)
    model_in_sandbox: bool = Field(False, description="Its process calls the model from inside the sandbox: with "
                                   "the model gateway the sandbox gets the gateway's socket (its only way out), "
                                   "without one the network.")
    install: InstallSpec | None = Field(None, description="The CLI matchmeter installs into the sandbox's image "
                                        "layer (kinds pypi, pypi-binary, npm), if any.")
    blocked: str = Field("", description="Why it cannot run on this kind of machine at all ('' = nothing known).")


def requirements_of(configuration: Configuration) -> AgentRequirements:
    """The configuration's agent class's declared requirements (none declared: it needs nothing).

    Raises:
        UserError: unknown agent, or a class whose `requirements()` returns something else.
    """
    cls = agent_class(configuration.agent.name)
    declare = getattr(cls, "requirements", None)
    if declare is None:
        return AgentRequirements()
    declared = declare()
    if not isinstance(declared, AgentRequirements):
        raise UserError(f"agent {configuration.agent.name!r}: {cls.__name__}.requirements() returned "
                        f"{type(declared).__name__}", "the agent's class", "return an AgentRequirements")
    return declared
