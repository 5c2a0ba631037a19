"""Terminal-Bench 1 import: a small TB1-style task converts, loads, and its oracle scores 1.0 locally."""

from __future__ import annotations

import pytest

from matchmeter.errors import UserError
from matchmeter.tasks import load_task
from matchmeter.tasks.importer import import_tb1, solution_commands
from tests.helpers.warm_cli import run_matchmeter
from tests.tasks.harness import Trial

TASK_YAML = """\
instruction: |-
  Write the word "ready" to status.txt in the working directory,
  and count the lines of data.txt into count.txt.
author_name: Test Author
author_email: test@example.com
difficulty: easy
category: file-operations
tags:
  - files
  - wc
parser_name: pytest
max_agent_timeout_sec: 300.0
max_test_timeout_sec: 45.0
run_tests_in_same_shell: false
expert_time_estimate_min: 2
"""

SOLUTION = """\
#!/bin/bash
# Reference solution
set -e

echo ready > status.txt
if [ -f data.txt ]; then
  wc -l < data.txt | tr -d ' ' > count.txt
fi
cat > notes.md <<'EOF'
# done
$HOME stays
EOF
ls \\
  -la
"""

RUN_TESTS = """\
#!/bin/bash
python3 "$TEST_DIR/check_outputs.py"
"""

CHECK = """\
import pathlib, sys
ok = pathlib.Path("status.txt").read_text().strip() == "ready"
ok = ok and pathlib.Path("count.txt").read_text().strip() == "0"
sys.exit(0 if ok else 1)
"""


def make_tb1(root):
    src = root / "hello-ready"
    (src / "tests").mkdir(parents=True)
    (src / "task.yaml").write_text(TASK_YAML)
    (src / "Dockerfile").write_text("FROM ghcr.io/laude-institute/t-bench/ubuntu-24-04:latest\n"
                                   "RUN apt-get update && apt-get install -y tmux asciinema\n"
                                   "WORKDIR /app\nCOPY data.txt /app/data.txt\n")
    (src / "data.txt").write_text("")
    (src / "solution.sh").write_text(SOLUTION)
    (src / "run-tests.sh").write_text(RUN_TESTS)
    (src / "tests" / "check_outputs.py").write_text(CHECK)
    return src


def test_solution_commands_joins_multiline_constructs():
    assert solution_commands(SOLUTION) == [
        "echo ready > status.txt",
        "if [ -f data.txt ]; then\n  wc -l < data.txt | tr -d ' ' > count.txt\nfi",
        "cat > notes.md <<'EOF'\n# done\n$HOME stays\nEOF",
        "ls \\\n  -la",
    ]


def test_import_maps_fields_and_files(tmp_path):
    out = import_tb1(make_tb1(tmp_path), tmp_path / "imported").path
    assert out == tmp_path / "imported" / "hello-ready"
    task = load_task(out)
    assert (task.id, task.source_family, task.category, task.difficulty) == (
        "hello-ready", "terminal", "file-operations", "easy")
    assert task.tags == ["files", "wc", "tb1-import"]
    assert (task.timeouts.agent_s, task.timeouts.verify_s) == (300.0, 45.0)
    assert [(g.name, g.weight) for g in task.subgoals] == [("tests_pass", 1.0)]
    assert task.reference_paths[0].commands[0] == "echo ready > status.txt"
    assert len(task.reference_paths[0].commands) == 4
    assert task.instruction.startswith('Write the word "ready" to status.txt')
    dockerfile = (out / "environment" / "Dockerfile").read_text()
    assert dockerfile.splitlines()[0] == "FROM matchmeter-base:latest"
    assert "tmux" not in dockerfile
    assert "COPY data.txt /app/data.txt" in dockerfile
    assert (out / "environment" / "data.txt").is_file()
    assert (out / "tests" / "run-tests.sh").is_file()
    assert (out / "tests" / "check_outputs.py").is_file()


def test_imported_oracle_passes_and_nop_fails(tmp_path):
    task = load_task(import_tb1(make_tb1(tmp_path), tmp_path / "imported").path)
    with Trial(task, 0) as trial:
        trial.setup()
        (trial.app / "data.txt").write_text("")  # what the Dockerfile's COPY provides under docker
        trial.solve()
        verdict = trial.verify()
    assert (verdict.reward_txt, verdict.subgoals) == (1.0, {"tests_pass": 1.0})
    with Trial(task, 0) as trial:
        trial.setup()
        verdict = trial.verify()
    assert (verdict.reward_txt, verdict.subgoals) == (0.0, {"tests_pass": 0.0})


def test_old_descriptions_key_and_defaults(tmp_path):
    src = make_tb1(tmp_path)
    (src / "task.yaml").write_text("descriptions:\n  - key: base\n    description: Do the thing.\ndifficulty: extreme\n")
    task = load_task(import_tb1(src, tmp_path / "out").path)
    assert task.instruction == "Do the thing.\n"
    assert (task.difficulty, task.category) == ("medium", "uncategorized")


def test_import_errors(tmp_path):
    src = make_tb1(tmp_path)
    (src / "run-tests.sh").unlink()
    with pytest.raises(UserError) as info:
        import_tb1(src, tmp_path / "out")
    assert info.value.line() == f"run-tests.sh is missing ({src}): only complete Terminal-Bench 1 tasks can be imported"
    (src / "run-tests.sh").write_text(RUN_TESTS)
    (src / "task.yaml").write_text("difficulty: easy\n")
    with pytest.raises(UserError) as info:
        import_tb1(src, tmp_path / "out")
    assert info.value.line() == (
        f"task.yaml has no instruction ({src / 'task.yaml'}): add instruction: (or descriptions: [{{key: base, ...}}])"
    )


UV_RUN_TESTS = """#!/bin/bash
# Install curl
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
source $HOME/.local/bin/env
uv venv .tbench-testing
uv pip install pytest==8.4.1
uv run pytest $TEST_DIR/test_outputs.py -rA
"""


def test_offline_task_keeps_network_off(tmp_path):
    imported = import_tb1(make_tb1(tmp_path), tmp_path / "out")
    assert imported.network_reasons == []
    assert load_task(imported.path).environment.network is False


def test_task_that_fetches_gets_network_and_says_why(tmp_path):
    src = make_tb1(tmp_path)
    (src / "run-tests.sh").write_text(UV_RUN_TESTS)
    (src / "solution.sh").write_text("#!/bin/bash\npip install requests  # the client\necho ready > status.txt\n")
    imported = import_tb1(src, tmp_path / "out")
    assert imported.network_reasons == [
        "solution.sh:2: installs Python packages: pip install requests",
        "run-tests.sh:3: uses the Debian package registry: apt-get update",
        "run-tests.sh:4: uses the Debian package registry: apt-get install -y curl",
        "run-tests.sh:5: downloads a URL: curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh",
        "run-tests.sh:8: installs Python packages: uv pip install pytest==8.4.1",
    ]
    task = load_task(imported.path)
    assert task.environment.network is True
    text = (imported.path / "task.toml").read_text()
    assert "[metadata.matchmeter]" in text
    assert 'network_mode = "public"' in text


def test_import_command_lists_tasks_that_cannot_run_offline(tmp_path):

    tb1 = tmp_path / "tb1"
    offline = make_tb1(tb1)
    online = tb1 / "needs-net"
    offline.rename(online)
    (online / "run-tests.sh").write_text(UV_RUN_TESTS)
    make_tb1(tb1)
    proc = run_matchmeter("tasks", "import", str(tb1), str(tmp_path / "suite"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "needs-net cannot run offline (network turned on):" in lines
    assert "  run-tests.sh:5: downloads a URL: curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh" in lines
    assert "hello-ready cannot run offline" not in proc.stdout
    assert lines[-1] == "2 imported, 1 run offline, 1 need the network"
