"""Whether a CLI adapter's install can happen on this machine now (`matchmeter agents profiles`).

A CLI is ready when what its layer needs is already fetched, or can be: for the PyPI kinds, its wheelhouse
or venv is in the CLI cache, pip serves it offline (PIP_NO_INDEX with PIP_FIND_LINKS holding it), or the
index answers; for npm, its prefix is installed, a pre-fetched tarball is in MATCHMETER_NPM_TARBALLS, or
the npm registry answers. A profile may also say why it cannot run here at all (`AdapterProfile.blocked`).
The checks are one short HTTP request per registry, never an install.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from matchmeter.runner.agents.adapters import npm
from matchmeter.runner.agents.adapters.install import (
    DEFAULT_INDEX,
    MARKER,
    WHEELS_MARKER,
    answers,
    venv_dir,
    wheelhouse_dir,
)

if TYPE_CHECKING:
    from matchmeter.runner.agents.adapters.base import AdapterProfile

class Readiness(NamedTuple):
    ready: bool
    reason: str


def _pypi(package: str, version: str) -> Readiness:
    if (wheelhouse_dir(package, version) / WHEELS_MARKER).exists() or (venv_dir(package, version) / MARKER).exists():
        return Readiness(True, "fetched")
    links = os.environ.get("PIP_FIND_LINKS", "")
    stem = package.replace("-", "_").replace(".", "_").lower()
    if links and any(p.name.lower().startswith(f"{stem}-{version}") for p in Path(links).glob("*.whl")):
        return Readiness(True, f"pre-fetched in PIP_FIND_LINKS={links}")
    if os.environ.get("PIP_NO_INDEX"):
        return Readiness(False, "PIP_NO_INDEX is set and PIP_FIND_LINKS holds no wheel of it")
    index = (os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX).rstrip("/")
    why = answers(f"{index}/{package}/")
    return Readiness(not why, f"PyPI answers ({index})" if not why else f"PyPI unreachable ({index}: {why})")


def _npm(package: str, version: str) -> Readiness:
    if (npm.prefix_dir(package, version) / npm.MARKER).exists():
        return Readiness(True, "installed")
    tarball = npm.local_tarball(package, version)
    if tarball is not None:
        return Readiness(True, f"local tarball {tarball}")
    registry = npm.npm_registry()
    why = answers(registry)
    if not why:
        return Readiness(True, f"npm registry answers ({registry})")
    return Readiness(False, f"npm registry unreachable ({registry}: {why}); pre-fetch with `npm pack "
                     f"{package}@{version}` and set {npm.TARBALLS_ENV}")


def readiness(profile: AdapterProfile) -> Readiness:
    """Can this profile's CLI be installed and run here now, and why (not)."""
    if profile.blocked:
        return Readiness(False, profile.blocked)
    spec = profile.install
    if spec.kind in ("pypi", "pypi-binary"):
        return _pypi(spec.package, spec.version)
    if spec.kind == "npm":
        return _npm(spec.package, spec.version)
    return Readiness(True, "expects the executable in the task image (nothing installed)")
