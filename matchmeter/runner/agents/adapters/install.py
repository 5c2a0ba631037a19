"""A CLI published on PyPI, fetched on the host into the matchmeter CLI cache: wheels for an image layer,
or a host venv where no layer can be built.

    $MATCHMETER_CLIS_DIR (default: $MATCHMETER_CACHE_DIR/clis, else ~/.cache/matchmeter/clis)
    ├── wheelhouse/<package>-<version>/ the package's wheels and a pip wheel; complete once `.matchmeter-wheels` exists
    │                                   (kind pypi-binary: the one wheel that carries the executable, no dependencies)
    └── <package>-<version>/            a venv; complete once `.matchmeter-installed` exists
        ├── bin/<executable>            (kind pypi-binary: the wheel's files, unpacked, the executable at its wheel path)
        └── .matchmeter-installed        JSON: package, version, seconds the install took

Kind `pypi-binary` is a wheel that carries a native executable (Codex CLI's `openai-codex-cli-bin`, the
Claude Code binary bundled in `claude-agent-sdk`): only that wheel is downloaded (`pip download
--no-deps`, for the image's platform: Debian bookworm's glibc 2.36 on this machine's architecture), and
the layer gets its files, never a Python. A registry that cannot be reached, or a version it does not
have, is a UserError naming the package, the index and how to pre-fetch (pip's own PIP_FIND_LINKS /
PIP_NO_INDEX then serve it offline): raised at preflight, before any trial.

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
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from matchmeter.errors import UserError
from matchmeter.runner.sandbox import clilayer

MARKER = ".matchmeter-installed"
WHEELS_MARKER = ".matchmeter-wheels"
INSTALL_TIMEOUT_S = 900.0
# The glibc of the image every layer builds on (Debian bookworm): pip may pick any manylinux wheel up to it.
IMAGE_GLIBC = "36"  # 2.36


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


def _once(target: Path, marker: str, done: Callable[[], bool], fill: Callable[[], None], package: str,
          version: str, timing: str) -> None:
    """Make `target` with fill() unless done(), once across concurrent trials (a file lock beside it); a
    directory left without its marker is half-made and is removed first (and again when fill fails). The
    marker records how long fill took."""
    if done():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another trial may be making the same one
        if done():
            return
        shutil.rmtree(target, ignore_errors=True)
        started = time.monotonic()
        try:
            fill()
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
        seconds = round(time.monotonic() - started, 1)
        (target / marker).write_text(json.dumps({"package": package, "version": version, timing: seconds}))


def ensure_installed(package: str, version: str, executable: str, root: Path | None = None) -> Path:
    """Install `package==version` into its venv if missing; return the executable's host path.

    Raises:
        UserError: pip failed (fetch_refusal: the package, the index, pip's reason, how to pre-fetch).
    """
    venv = venv_dir(package, version, root)

    def fill() -> None:
        base_python = getattr(sys, "_base_executable", sys.executable)
        for argv in ([base_python, "-m", "venv", str(venv)],
                     [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                      f"{package}=={version}"]):
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
            if proc.returncode != 0:
                raise fetch_refusal(package, version, proc.stdout + proc.stderr, binary=False)
        if not (venv / "bin" / executable).exists():
            raise UserError(f"{package}=={version} installed no executable {executable!r}", "the adapter's profile",
                            "fix the profile's install.executable")

    _once(venv, MARKER, lambda: installed_executable(package, version, executable, root) is not None, fill,
          package, version, "install_s")
    return venv / "bin" / executable


def install_seconds(package: str, version: str, root: Path | None = None) -> float | None:
    """How long the stored install took (None when not installed by us)."""
    marker = venv_dir(package, version, root) / MARKER
    try:
        return float(json.loads(marker.read_text())["install_s"])
    except (OSError, ValueError, KeyError):
        return None


def wheelhouse_dir(package: str, version: str, root: Path | None = None) -> Path:
    return (root or clis_dir()) / "wheelhouse" / f"{package}-{version}"


DEFAULT_INDEX = "https://pypi.org/simple"
PROBE_TIMEOUT_S = 5.0


def pip_index() -> str:
    """The index pip fetches from, as the refusal names it."""
    return os.environ.get("PIP_INDEX_URL") or f"{DEFAULT_INDEX} (pip's default index)"


@cache
def answers(url: str) -> str:
    """'' when `url` answers an HTTP request (any status), else why not (one short request, remembered)."""
    import urllib.error  # here, not at the top: urllib.request pulls in http, email and ssl, which a run of a
    import urllib.request  # built-in agent, or of a CLI already fetched, never needs

    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=PROBE_TIMEOUT_S).close()
    except urllib.error.HTTPError:
        return ""  # it answered
    except (urllib.error.URLError, OSError) as exc:
        return str(getattr(exc, "reason", exc))
    return ""


def fetch_refusal(package: str, version: str, output: str, binary: bool) -> UserError:
    """One line: which package could not be fetched from which index, pip's reason, how to pre-fetch it."""
    unreachable = re.search(r"(Failed to establish a new connection: [^\"')]*|Name or service not known|"
                            r"Temporary failure in name resolution|ProxyError[^\"')]*|Read timed out)", output)
    last = next((line.strip() for line in reversed(output.strip().splitlines()) if line.strip()), "pip failed")
    why = unreachable.group(1).strip() if unreachable else ""
    if not why and not os.environ.get("PIP_NO_INDEX"):  # pip -q with no retries left says only "no matching"
        why = answers((os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX).rstrip("/") + "/")
    reason = f"the index cannot be reached ({why})" if why else last
    flags = "--no-deps --only-binary=:all: " if binary else ""
    return UserError(f"cannot fetch the CLI {package}=={version} from PyPI ({pip_index()}): {reason[-200:]}",
                     "the agent's install",
                     f"pre-fetch it where PyPI answers with `pip download {flags}-d DIR '{package}=={version}'`"
                     f"{'' if binary else ' pip'}, then set PIP_FIND_LINKS=DIR PIP_NO_INDEX=1 here")


def _image_platforms() -> list[str]:
    """pip's --platform for every manylinux glibc up to the image's (pip does not expand an explicit one)."""
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    newest = int(IMAGE_GLIBC)
    return [arg for minor in range(newest, 4, -1) for arg in ("--platform", f"manylinux_2_{minor}_{arch}")]


def ensure_wheelhouse(package: str, version: str, root: Path | None = None, binary: bool = False) -> Path:
    """Download `package==version`, its dependencies and pip as wheels (`pip wheel` on the host) once; with
    `binary`, only the package's own wheel for the image's platform (`pip download --no-deps`).

    Raises:
        UserError: pip could not fetch it (no index, no such version): see fetch_refusal.
    """
    house = wheelhouse_dir(package, version, root)

    def fill() -> None:
        pip = [sys.executable, "-m", "pip"]
        if binary:
            argv = [*pip, "download", "-q", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
                    *_image_platforms(), "--dest", str(house), f"{package}=={version}"]
        else:
            argv = [*pip, "wheel", "-q", "--disable-pip-version-check", "--wheel-dir", str(house),
                    f"{package}=={version}", "pip"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        if proc.returncode != 0:
            raise fetch_refusal(package, version, proc.stdout + proc.stderr, binary)

    _once(house, WHEELS_MARKER, (house / WHEELS_MARKER).exists, fill, package, version, "wheel_s")
    return house


def ensure_unpacked(package: str, version: str, payload: str, binary: str, root: Path | None = None) -> Path:
    """The pypi-binary wheel's payload unpacked on the host (bwrap with no engine, local): the executable's path.

    Raises:
        UserError: the wheel cannot be fetched.
        UserError: the wheel does not carry `binary` (the profile is wrong).
    """
    target = venv_dir(package, version, root)
    exe = target / binary

    def fill() -> None:
        house = ensure_wheelhouse(package, version, root, binary=True)
        clilayer.unpack_payload(clilayer.the_wheel(house, package), payload, target)
        if not exe.exists():
            raise UserError(f"{package}=={version}'s wheel carries no {binary!r}", "the adapter's profile",
                            "fix the profile's install.binary")

    _once(target, MARKER, lambda: (target / MARKER).exists() and exe.exists(), fill, package, version, "install_s")
    return exe
