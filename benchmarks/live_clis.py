"""Per-trial wall of a live agent CLI against the built-in bash agent on the same tasks: full trials
(runner/trial.py) through the model gateway with `sim/expert` behind it, on docker and bwrap, the CLI from its
image layer (built or looked up before the first timed trial, so no build is timed).

Trials alternate CLI / bash agent per (backend, task, rep), so machine load hits both alike. Prints, per
agent and backend, the median trial wall and the reward of every trial, then the CLI/bash ratio of medians.

    .venv/bin/python benchmarks/live_clis.py [--agents codex claude-code mini-swe-agent aider]
        [--backends docker bwrap] [--reps 3]
        [--tasks cleanup-old-tmp commit-special-message]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matchmeter.llm.gateway import Gateway  # noqa: E402
from matchmeter.llm.sim import sim_api_base  # noqa: E402
from matchmeter.llm.stub_server import StubServer  # noqa: E402
from matchmeter.runner.agents.adapters import cli_install  # noqa: E402
from matchmeter.runner.run import configuration_from_flags  # noqa: E402
from matchmeter.runner.sandbox import baseimage, clilayer, get_backend  # noqa: E402
from matchmeter.runner.trial import TrialRequest, run_trial  # noqa: E402
from matchmeter.schema import Description, ModelEndpoint  # noqa: E402
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks  # noqa: E402
from tests.helpers.clis import machine_clis_dir  # noqa: E402

MODEL = "sim/expert"
LIVE_AGENTS = ("codex", "claude-code", "mini-swe-agent", "aider")  # every CLI that runs live here (issue 38)


def trial(tmp: Path, agent: str, backend: str, task, key: str) -> tuple[float, float, str]:  # type: ignore[no-untyped-def]
    """One full trial; (wall seconds, reward, failure mode)."""
    with StubServer(tasks={task.id: task}) as stub, Gateway(socket_path=tmp / f"{key}.sock") as gateway:
        started = time.perf_counter()
        outcome = run_trial(TrialRequest(
            run_id="bench-live-clis", execution_key=key, configuration=configuration_from_flags(agent, MODEL),
            task=task, description=Description.original(task), seed=0, attempt=0, backend=get_backend(backend),
            logs_dir=tmp / key, endpoint=ModelEndpoint(api_base=sim_api_base(stub.url, task.id, 0)), gateway=gateway))
        return time.perf_counter() - started, outcome.result.reward, outcome.result.failure_mode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=list(LIVE_AGENTS))
    parser.add_argument("--backends", nargs="+", default=["docker", "bwrap"])
    parser.add_argument("--tasks", nargs="+", default=["cleanup-old-tmp", "commit-special-message"])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("MATCHMETER_CLIS_DIR", str(machine_clis_dir()))
    client = baseimage.docker_client()
    for agent in args.agents:  # the layers, outside the timing
        cli = cli_install(configuration_from_flags(agent, MODEL))
        if cli is not None:
            clilayer.layer_image(client, baseimage.BASE_IMAGE, cli)
    client.close()
    tasks = {t.id: t for t in load_tasks([builtin_suite_dir()]) if t.id in args.tasks}
    walls: dict[tuple[str, str], list[float]] = {}
    outcomes: dict[tuple[str, str], list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="mm-bench-live-") as tmp:
        trial(Path(tmp), "bash", args.backends[0], next(iter(tasks.values())), "warmup")  # litellm's import
        for rep in range(args.reps):
            for backend in args.backends:
                for task in tasks.values():
                    for agent in [*args.agents, "bash"]:
                        key = f"{agent}-{backend}-{task.id}-{rep}"
                        wall, reward, mode = trial(Path(tmp), agent, backend, task, key)
                        walls.setdefault((agent, backend), []).append(wall)
                        outcomes.setdefault((agent, backend), []).append(f"{reward:.1f}/{mode}")
    for (agent, backend), values in sorted(walls.items()):
        print(f"{agent:>12} {backend:>6}: median {statistics.median(values):6.1f} s over {len(values)} trials "
              f"(min {min(values):.1f}, max {max(values):.1f}); reward/failure {' '.join(outcomes[(agent, backend)])}")
    for agent in args.agents:
        for backend in args.backends:
            ratio = statistics.median(walls[(agent, backend)]) / statistics.median(walls[("bash", backend)])
            print(f"{agent}/bash per-trial wall on {backend}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
