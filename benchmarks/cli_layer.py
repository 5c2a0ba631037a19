"""A CLI adapter from its image layer: layer build time (first, cached), bwrap export time, and the trial
time of mini-swe-agent through the gateway on docker vs bwrap-from-layer, measured side by side.

The first build uses a fresh task image (a Dockerfile with a random token on the base image), so the
layer and its export are really made; the cached numbers are the lookups every later trial pays. Trials
alternate docker / bwrap against the loopback stub (3 scripted model calls each). Prints medians and the
docker/bwrap ratio. The fresh images it made are removed at the end.

    .venv/bin/python benchmarks/cli_layer.py [--trials 3] [--agent mini-swe-agent]
"""

from __future__ import annotations

import argparse
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
from matchmeter.runner.agents.adapters import cli_install  # noqa: E402
from matchmeter.runner.run import configuration_from_flags  # noqa: E402
from matchmeter.runner.sandbox import baseimage, clilayer, get_backend, rootfs  # noqa: E402
from matchmeter.runner.trial import TrialRequest, run_trial  # noqa: E402
from matchmeter.schema import Description  # noqa: E402
from matchmeter.tasks.loader import load_task  # noqa: E402
from tests.helpers.tasks import write_task  # noqa: E402
from tests.runner.adapters.test_live_cli import REPLIES  # noqa: E402

MODEL = "openai/stub/scripted"


def _timed(fn):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--agent", default="mini-swe-agent", choices=sorted(REPLIES))
    args = parser.parse_args()
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
                        logs_dir=tmp / f"logs-{name}-{i}", api_base=stub.api_base, gateway=gw)
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
