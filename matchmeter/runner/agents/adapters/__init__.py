"""CLI adapters: one file per agent CLI, each a profile plus a log parser on top of `base.CLIAdapter`.

`ADAPTERS` is the adapter part of the agent registry (`matchmeter.runner.agents.AGENTS`). `profiles()` imports them lazily for `matchmeter agents profiles`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from matchmeter.errors import UserError
from matchmeter.runner.agents import AGENTS
from matchmeter.runner.agents.adapters.install import (
    ensure_installed,
    ensure_unpacked,
    ensure_wheelhouse,
    venv_dir,
)
from matchmeter.runner.agents.adapters.npm import ensure_npm_prefix, installed_digest
from matchmeter.runner.agents.requirements import InstallSpec, requirements_of
from matchmeter.runner.sandbox import CliInstall

if TYPE_CHECKING:
    from matchmeter.runner.agents.adapters.base import AdapterProfile, CLIAdapter
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
    """Whether the configuration's agent calls its model from inside the sandbox (its class's requirements,
    built-in or entry point)."""
    return requirements_of(configuration).model_in_sandbox


def install_spec(configuration: Configuration) -> InstallSpec | None:
    """The package the configuration's agent class declares for its layer (None: it declares none, or the
    configuration's cli_path names its own executable)."""
    if configuration.agent.options.get("cli_path"):
        return None
    return requirements_of(configuration).install


def fetch_install(spec: InstallSpec) -> CliInstall:
    """Fetch on the host what the layer needs (containers reach no registry) and describe the layer.

    Raises:
        UserError: the registry cannot be reached or has no such package (one line, with how to pre-fetch).
    """
    digest = ""
    if spec.kind == "npm":
        house = ensure_npm_prefix(spec.package, spec.version, spec.executable)
        digest = installed_digest(house) or ""
    else:
        house = ensure_wheelhouse(spec.package, spec.version, binary=spec.kind == "pypi-binary")
    return CliInstall(kind=spec.kind, package=spec.package, version=spec.version, executable=spec.executable,
                      binary=spec.binary, payload=spec.payload, digest=digest, wheelhouse=house)


def preflight_install(configuration: Configuration, builds_images: bool) -> None:
    """Fetch, before any trial, what the configuration's CLI needs on this machine: the layer's files where
    the backend builds images, else the host venv or unpacked wheel a sandbox is shown read-only.

    Raises:
        UserError: a registry cannot be reached or lacks the package (one line: package, registry, how to
            pre-fetch), the kind needs an image layer and the backend builds none, or the profile says the
            CLI cannot run here (AdapterProfile.blocked).
    """
    blocked = requirements_of(configuration).blocked
    if blocked and not configuration.agent.options.get("cli_path"):
        raise UserError(f"the {configuration.agent.name} CLI cannot run here: {blocked}", "--agent",
                        "pass agent option cli_path to a working install inside the task image")
    spec = install_spec(configuration)
    if spec is None:
        return
    if builds_images:
        fetch_install(spec)
    elif spec.kind == "npm":
        raise UserError(f"the npm CLI {spec.package}@{spec.version} runs from an image layer, and this backend "
                        "builds none", "--backend", "start a Docker engine (bwrap uses it to build the layer) or "
                        "use --backend docker")
    else:
        host_paths(configuration)


def cli_install(configuration: Configuration) -> CliInstall | None:
    """What a sandbox needs to run the configuration's CLI from an image layer (runner/sandbox/clilayer.py):
    the package, and what was fetched for it on the host."""
    spec = install_spec(configuration)
    return None if spec is None else fetch_install(spec)


def host_paths(configuration: Configuration) -> list[Path]:
    """Host dirs a CLI adapter's sandbox must show read-only when no image layer can be built (bwrap with
    no Docker engine): its venv and the Python that venv was made from (installed first if missing), or a
    pypi-binary wheel's unpacked files. Nothing else of the host is visible to an isolated sandbox."""
    spec = install_spec(configuration)
    if spec is not None and spec.kind == "pypi-binary":
        ensure_unpacked(spec.package, spec.version, spec.payload or spec.binary.split("/")[0], spec.binary)
        return [venv_dir(spec.package, spec.version)]
    if spec is None or spec.kind != "pypi":
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
