"""A CLI adapter from its image layer: layer build time (first, cached), bwrap export time, and the trial
time of mini-swe-agent through the gateway on docker vs bwrap-from-layer, measured side by side.

The first build uses a fresh task image (a Dockerfile with a random token on the base image), so the
layer and its export are really made; the cached numbers are the lookups every later trial pays. Trials
alternate docker / bwrap against the loopback stub (3 scripted model calls each). Prints medians and the
docker/bwrap ratio. The fresh images it made are removed at the end.

    .venv/bin/python benchmarks/cli_layer.py [--trials 3] [--agent mini-swe-agent]

With --layers, each install kind's layer instead (issue 38): mini-swe-agent and aider (pypi: a venv in the
layer), Codex CLI and Claude Code (pypi-binary) and the tiny npm CLI of tests/data/npm-hello-cli from its
packed tarball (npm: Node from PyPI + node_modules).
Per CLI: the host fetch (first, then cached), the layer's size (layer image minus its task image), the
bwrap export's size on disk, and the cold build time, median over --reps fresh task images (each a new
random token, so nothing is cached), and the first bwrap export.

    .venv/bin/python benchmarks/cli_layer.py --layers [--reps 3]
"""

from __future__ import annotations

import argparse
import importlib
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matchmeter.llm.gateway import Gateway  # noqa: E402
from matchmeter.llm.stub_server import StubServer  # noqa: E402
from matchmeter.runner.agents.adapters import adapter_class, cli_install, fetch_install  # noqa: E402
from matchmeter.runner.agents.adapters.npm import TARBALLS_ENV  # noqa: E402
from matchmeter.runner.run import configuration_from_flags  # noqa: E402
from matchmeter.runner.sandbox import baseimage, clilayer, get_backend, rootfs  # noqa: E402
from matchmeter.runner.trial import TrialRequest, run_trial  # noqa: E402
from matchmeter.schema import Description, ModelEndpoint  # noqa: E402
from matchmeter.tasks.loader import load_task  # noqa: E402
from tests.helpers.tasks import write_task  # noqa: E402
from tests.runner.adapters.conftest import HELLO_PLUGIN_DIR, pack_npm_hello  # noqa: E402
from tests.runner.adapters.test_live_cli import REPLIES  # noqa: E402

MODEL = "openai/stub/scripted"
LAYER_AGENTS = ("mini-swe-agent", "aider", "codex", "claude-code")  # the live CLIs, beside the npm one


def _timed(fn):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def _fresh_task_image(client, tmp: Path, label: str):  # type: ignore[no-untyped-def]
    """A task image no layer was built on: the base image plus a random token."""
    task_dir = write_task(tmp / "tasks", f"bench-{label}-{secrets.token_hex(3)}", agent_s=300)
    (task_dir / "environment" / "Dockerfile").write_text(
        f"FROM {baseimage.BASE_IMAGE}\nRUN echo {secrets.token_hex(6)} > /opt/bench-token\n")
    env = baseimage.Environment(task_dir / "environment")
    return baseimage.task_image(client, task_dir.name, env.dir), env


def _du(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_symlink() and p.is_file())


def layers(reps: int) -> int:
    """Size and cold build time of each install kind's layer (see the module docstring)."""
    tmp = Path(tempfile.mkdtemp(prefix="mm-bench-layers-"))
    client = baseimage.docker_client()
    made: list[str] = []
    rows = []
    try:
        tarballs = tmp / "tarballs"
        tarballs.mkdir()
        pack_npm_hello(tarballs)
        os.environ[TARBALLS_ENV] = str(tarballs)
        os.environ["NPM_CONFIG_CACHE"] = str(tarballs / ".npm")
        os.environ["MATCHMETER_CLIS_DIR"] = str(tmp / "clis")  # a first fetch (pip's own cache may be warm)
        specs = {name: adapter_class(name).profile().install for name in LAYER_AGENTS}  # type: ignore[union-attr]
        sys.path.insert(0, str(HELLO_PLUGIN_DIR))
        specs["npm-hello"] = importlib.import_module("mm_hello_plugin").HelloNpmAdapter.profile().install
        for name, spec in specs.items():
            fetch_s, cli = _timed(lambda spec=spec: fetch_install(spec))
            cached_fetch_s, _ = _timed(lambda spec=spec: fetch_install(spec))
            builds, size, export = [], 0, (0.0, 0)
            for rep in range(reps):
                task_image, env = _fresh_task_image(client, tmp, name)
                made.append(task_image)
                seconds, layer = _timed(lambda task_image=task_image, cli=cli: clilayer.layer_image(client, task_image, cli))
                made.append(layer)
                builds.append(seconds)
                size = client.images.get(layer).attrs["Size"] - client.images.get(task_image).attrs["Size"]
                if rep == 0:
                    key = clilayer.layer_key(env.key, cli)
                    export_s, root = _timed(lambda layer=layer, key=key: rootfs.ensure_image_rootfs(
                        layer, key, baseimage.image_env(client, layer)))
                    export = (export_s, _du(root / clilayer.venv_path(cli).lstrip("/")))
                    shutil.rmtree(root, ignore_errors=True)
            rows.append((name, cli.kind, f"{cli.package}=={cli.version}", fetch_s, cached_fetch_s, size, export,
                         builds))
        print(f"{'cli':12} {'kind':12} {'package':38} {'fetch s':>8} {'cached':>7} {'layer MB':>9} "
              f"{'export MB':>9} {'export s':>8} {'build s (median)':>17}  builds")
        for name, kind, package, fetch_s, cached_s, size, (export_s, export_bytes), builds in rows:
            print(f"{name:12} {kind:12} {package:38} {fetch_s:8.1f} {cached_s:7.2f} {size / 1e6:9.1f} "
                  f"{export_bytes / 1e6:9.1f} {export_s:8.1f} {statistics.median(builds):17.1f}  "
                  f"{', '.join(f'{b:.1f}' for b in builds)}")
    finally:
        client.close()
        if made:
            subprocess.run(["docker", "rmi", *reversed(made)], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--agent", default="mini-swe-agent", choices=sorted(REPLIES))
    parser.add_argument("--layers", action="store_true", help="each install kind's layer size and cold build time")
    parser.add_argument("--reps", type=int, default=3, help="with --layers: cold builds per CLI")
    args = parser.parse_args()
    if args.layers:
        return layers(args.reps)
    tmp = Path(tempfile.mkdtemp(prefix="mm-bench-clilayer-"))
    client = baseimage.docker_client()
    made: list[str] = []
    try:
        cli = cli_install(configuration_from_flags(args.agent, MODEL))
        assert cli is not None
        task_dir = write_task(tmp / "tasks", "bench-layer", agent_s=300)
        (task_dir / "environment" / "Dockerfile").write_text(
            f"FROM {baseimage.BASE_IMAGE}\nRUN echo {secrets.token_hex(6)} > /opt/bench-token\n")
        task = load_task(task_dir)
        env = baseimage.Environment(task_dir / "environment")
        task_image = baseimage.task_image(client, task.id, env.dir)
        made.append(task_image)
        first_s, layer = _timed(lambda: clilayer.layer_image(client, task_image, cli))
        made.append(layer)
        cached_s, _ = _timed(lambda: clilayer.layer_image(client, task_image, cli))
        key = clilayer.layer_key(env.key, cli)
        export_s, root = _timed(lambda: rootfs.ensure_image_rootfs(layer, key, baseimage.image_env(client, layer)))
        print(f"layer build ({args.agent}, first): {first_s:.1f} s; cached lookup: {cached_s * 1000:.1f} ms; "
              f"bwrap export (first): {export_s:.1f} s")
        times: dict[str, list[float]] = {"docker": [], "bwrap": []}
        backends = {name: get_backend(name) for name in times}
        for backend in backends.values():
            backend.preflight()
        for i in range(args.trials):
            for name, backend in backends.items():
                with StubServer(REPLIES[args.agent]) as stub, Gateway(socket_path=tmp / f"gw-{name}-{i}.sock") as gw:
                    request = TrialRequest(
                        run_id="bench-clilayer", execution_key=f"{name}-{i}",
                        configuration=configuration_from_flags(args.agent, MODEL), task=task,
                        description=Description.original(task), seed=0, attempt=0, backend=backend,
                        logs_dir=tmp / f"logs-{name}-{i}", endpoint=ModelEndpoint(api_base=stub.api_base), gateway=gw)
                    seconds, outcome = _timed(lambda request=request: run_trial(request))
                if outcome.result.failure_mode != "none":
                    print(f"{name} trial {i} failed: {outcome.result.error}")
                    return 1
                times[name].append(seconds)
        med = {name: statistics.median(values) for name, values in times.items()}
        for name, values in times.items():
            print(f"{args.agent} trial on {name:6}: median {med[name]:.2f} s over {len(values)} "
                  f"({', '.join(f'{v:.2f}' for v in values)})")
        print(f"docker / bwrap: {med['docker'] / med['bwrap']:.2f}x")
        shutil.rmtree(root, ignore_errors=True)
    finally:
        client.close()
        if made:
            subprocess.run(["docker", "rmi", *made], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
