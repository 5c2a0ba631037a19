"""CLI adapters: one file per agent CLI, each a profile plus a log parser on top of `base.CLIAdapter`.

`ADAPTERS` is the adapter part of the agent registry (`matchmeter.runner.agents.AGENTS`). `profiles()` imports them lazily for `matchmeter agents profiles`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.runner.agents import AGENTS
from matchmeter.runner.agents.adapters.install import ensure_installed, ensure_wheelhouse
from matchmeter.runner.sandbox import CliInstall

if TYPE_CHECKING:
    from matchmeter.runner.agents.adapters.base import AdapterProfile, CLIAdapter, InstallSpec
    from matchmeter.schema import Configuration

# The registry lines live in matchmeter.runner.agents.AGENTS (one place); these are the CLI adapters among them.
ADAPTERS: dict[str, str] = {name: target for name, target in AGENTS.items() if ".agents.adapters." in target}


def adapter_class(name: str) -> type[CLIAdapter] | None:
    target = ADAPTERS.get(name)
    if target is None:
        return None
    module_name, _, cls_name = target.partition(":")
    cls: type[CLIAdapter] = getattr(importlib.import_module(module_name), cls_name)
    return cls


def profiles() -> list[AdapterProfile]:
    """Every built-in adapter's profile, in registry order."""
    return [cls.profile() for name in ADAPTERS if (cls := adapter_class(name)) is not None]  # never None here


def needs_network(configuration: Configuration) -> bool:
    """Whether the configuration's agent runs a CLI that calls its model endpoint from inside the sandbox."""
    cls = adapter_class(configuration.agent.name)
    return bool(cls is not None and cls.profile().needs_network)


def pypi_spec(configuration: Configuration) -> InstallSpec | None:
    """The PyPI package the configuration's CLI adapter installs (None: no adapter, not PyPI, or cli_path)."""
    cls = adapter_class(configuration.agent.name)
    if cls is None or configuration.agent.options.get("cli_path"):
        return None
    spec = cls.profile().install
    return spec if spec.kind == "pypi" else None


def cli_install(configuration: Configuration) -> CliInstall | None:
    """What a sandbox needs to run the configuration's CLI from an image layer (runner/sandbox/clilayer.py):
    the package, and its wheels downloaded on the host (containers cannot reach PyPI)."""
    spec = pypi_spec(configuration)
    if spec is None:
        return None
    return CliInstall(package=spec.package, version=spec.version, executable=spec.executable,
                      wheelhouse=ensure_wheelhouse(spec.package, spec.version))


def host_paths(configuration: Configuration) -> list[Path]:
    """Host dirs a CLI adapter's sandbox must show read-only when no image layer can be built (bwrap with
    no Docker engine): its venv and the Python that venv was made from (installed first if missing).
    Nothing else of the host is visible to an isolated sandbox."""
    spec = pypi_spec(configuration)
    if spec is None:
        return []
    venv = ensure_installed(spec.package, spec.version, spec.executable).parent.parent
    paths = [venv]
    cfg = venv / "pyvenv.cfg"
    for line in cfg.read_text().splitlines() if cfg.exists() else []:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            base = Path(value.strip()).resolve().parent  # home = <prefix>/bin
            if base != Path("/usr"):
                paths.append(base)
    return paths
