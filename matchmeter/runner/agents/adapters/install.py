"""A CLI published on PyPI, fetched on the host into the matchmeter CLI cache: wheels for an image layer,
or a host venv where no layer can be built.

    $MATCHMETER_CLIS_DIR (default: $MATCHMETER_CACHE_DIR/clis, else ~/.cache/matchmeter/clis)
    ├── wheelhouse/<package>-<version>/ the package's wheels and a pip wheel; complete once `.matchmeter-wheels` exists
    └── <package>-<version>/            a venv; complete once `.matchmeter-installed` exists
        ├── bin/<executable>
        └── .matchmeter-installed        JSON: package, version, seconds the install took

Docker, and bwrap when a Docker engine answers, run a CLI from an image layer built on the task image
(runner/sandbox/clilayer.py) out of the wheelhouse: containers cannot reach PyPI, so the wheels are
downloaded here. The host venv is the fallback of bwrap with no engine (shown read-only) and of the
local backend. Venvs are not relocatable, so the install happens in place; a directory without the
marker is a half-finished install and is removed first. File locks serialise concurrent trials.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from matchmeter.errors import AgentError

MARKER = ".matchmeter-installed"
WHEELS_MARKER = ".matchmeter-wheels"
INSTALL_TIMEOUT_S = 900.0


def clis_dir() -> Path:
    """Root of the CLI cache (see the module docstring for the precedence)."""
    if os.environ.get("MATCHMETER_CLIS_DIR"):
        return Path(os.environ["MATCHMETER_CLIS_DIR"])
    if os.environ.get("MATCHMETER_CACHE_DIR"):
        return Path(os.environ["MATCHMETER_CACHE_DIR"]) / "clis"
    return Path.home() / ".cache" / "matchmeter" / "clis"


def venv_dir(package: str, version: str, root: Path | None = None) -> Path:
    return (root or clis_dir()) / f"{package}-{version}"


def installed_executable(package: str, version: str, executable: str, root: Path | None = None) -> Path | None:
    """The venv's executable when the install is complete, else None."""
    venv = venv_dir(package, version, root)
    exe = venv / "bin" / executable
    return exe if (venv / MARKER).exists() and exe.exists() else None


def ensure_installed(package: str, version: str, executable: str, root: Path | None = None) -> Path:
    """Install `package==version` into its venv if missing; return the executable's host path.

    Raises:
        AgentError: pip failed (the message carries the tail of pip's output).
    """
    found = installed_executable(package, version, executable, root)
    if found:
        return found
    venv = venv_dir(package, version, root)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another trial may be installing the same CLI
        found = installed_executable(package, version, executable, root)
        if found:
            return found
        shutil.rmtree(venv, ignore_errors=True)
        started = time.monotonic()
        base_python = getattr(sys, "_base_executable", sys.executable)
        for argv in ([base_python, "-m", "venv", str(venv)],
                     [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                      f"{package}=={version}"]):
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
            if proc.returncode != 0:
                raise AgentError(f"installing {package}=={version} failed: {(proc.stdout + proc.stderr)[-400:]}")
        exe = venv / "bin" / executable
        if not exe.exists():
            raise AgentError(f"{package}=={version} installed no executable {executable!r}")
        seconds = round(time.monotonic() - started, 1)
        (venv / MARKER).write_text(json.dumps({"package": package, "version": version, "install_s": seconds}))
    return exe


def install_seconds(package: str, version: str, root: Path | None = None) -> float | None:
    """How long the stored install took (None when not installed by us)."""
    marker = venv_dir(package, version, root) / MARKER
    try:
        return float(json.loads(marker.read_text())["install_s"])
    except (OSError, ValueError, KeyError):
        return None


def wheelhouse_dir(package: str, version: str, root: Path | None = None) -> Path:
    return (root or clis_dir()) / "wheelhouse" / f"{package}-{version}"


def ensure_wheelhouse(package: str, version: str, root: Path | None = None) -> Path:
    """Download `package==version`, its dependencies and pip as wheels (`pip wheel` on the host) once.

    Raises:
        AgentError: pip failed (the message carries the tail of pip's output).
    """
    house = wheelhouse_dir(package, version, root)
    if (house / WHEELS_MARKER).exists():
        return house
    house.parent.mkdir(parents=True, exist_ok=True)
    with open(house.parent / f".{house.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (house / WHEELS_MARKER).exists():
            return house
        shutil.rmtree(house, ignore_errors=True)
        started = time.monotonic()
        argv = [sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--wheel-dir", str(house),
                f"{package}=={version}", "pip"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        if proc.returncode != 0:
            raise AgentError(f"downloading wheels of {package}=={version} failed: {(proc.stdout + proc.stderr)[-400:]}")
        seconds = round(time.monotonic() - started, 1)
        (house / WHEELS_MARKER).write_text(json.dumps({"package": package, "version": version, "wheel_s": seconds}))
    return house
