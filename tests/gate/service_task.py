"""A small task for gate tests: a description with a path, a port, a quoted literal, a format and a prohibition."""

from __future__ import annotations

from pathlib import Path

from matchmeter.schema import TaskSpec
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task

INSTRUCTION = (
    "Start the inventory service in app/server.py so that it listens on port 8080, and write its process id "
    "to run/server.pid. Its answers must be JSON with the key \"count\". Do not modify app/config.ini.\n"
)
SOLUTION = ["mkdir -p run", "nohup python3 app/server.py --bind 127.0.0.1:8080 > run/log 2>&1 &",
            "echo $! > run/server.pid"]
TEST_EXTRA = "# verifier helper: curl -s 127.0.0.1:8080/healthz | grep -q inventory_ok\n"


def service_task(root: Path) -> TaskSpec:
    task_dir = write_task(root, "start-service")
    (task_dir / "instruction.md").write_text(INSTRUCTION)
    (task_dir / "solution" / "solve.sh").write_text("\n".join(SOLUTION) + "\n")
    with (task_dir / "tests" / "test.sh").open("a") as fh:
        fh.write(TEST_EXTRA)
    toml = (task_dir / "task.toml").read_text()
    commands = ", ".join(f"'{c}'" for c in SOLUTION)
    (task_dir / "task.toml").write_text(toml.replace('commands = ["cp data/input.txt out.txt"]', f"commands = [{commands}]"))
    return load_task(task_dir)
