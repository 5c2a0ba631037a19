"""A SIMULATED source run shared by the optimizer tests: two sim configurations on one tmp task (local backend)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run
from tests.helpers.tasks import write_task

INSTRUCTION = ("Copy the input file data/input.txt to out.txt in the working directory, keeping its content "
               "byte for byte. Do not change anything else under data/.\n")
# no `ls -la`: its mtimes would make the agents' conversations (and so their cache keys) depend on the clock
REFERENCE = ["head -c 100 data/input.txt", "mkdir -p data/scratch", "cp data/input.txt out.txt"]
SOURCE = "sim/sloppy+bash"
TARGET = "sim/explorer+bash"


def write_copy_task(root: Path) -> Path:
    task = write_task(root, "copy-two")
    (task / "instruction.md").write_text(INSTRUCTION)
    (task / "solution" / "solve.sh").write_text("\n".join(REFERENCE) + "\n")
    toml = (task / "task.toml").read_text()
    commands = ", ".join(f'"{c}"' for c in REFERENCE)
    (task / "task.toml").write_text(toml.replace('commands = ["cp data/input.txt out.txt"]', f"commands = [{commands}]"))
    return task.parent


@pytest.fixture(scope="session")
def source_run(tmp_path_factory) -> Path:
    """runs/src: sloppy (the source) and explorer (a target) on Original, seeds 0 and 1."""
    root = tmp_path_factory.mktemp("optimizer")
    old = os.environ.get("MATCHMETER_CACHE_DIR")
    os.environ["MATCHMETER_CACHE_DIR"] = str(root / "source-cache")
    try:
        tasks = write_copy_task(root / "tasks")
        configs = [configuration_from_flags("bash", "sim/sloppy"), configuration_from_flags("bash", "sim/explorer")]
        execute_run(RunRequest(tasks=[str(tasks)], configurations=configs, backend="local", seeds=2,
                               out=str(root / "runs" / "src")), progress=False)
    finally:
        if old is None:
            os.environ.pop("MATCHMETER_CACHE_DIR", None)
        else:
            os.environ["MATCHMETER_CACHE_DIR"] = old
    return root / "runs" / "src"
