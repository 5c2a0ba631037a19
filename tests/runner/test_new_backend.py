"""A new sandbox backend is one file plus one registry line (docs/contributing.md, "Add a sandbox backend").

This module is the file: `RecordingBackend` wraps the local backend and notes every call the runner makes to
it. The registry line is one entry added to `BACKENDS` (monkeypatch), and nothing else is edited: the normal
run path (`execute_run`) preflights it, checks the task's environment, prunes by the run label and runs real
trials in it, knowing it only through the `SandboxBackend` members.
"""

from __future__ import annotations

import ast
from pathlib import Path

import matchmeter
from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run
from matchmeter.runner.sandbox import BACKENDS, Sandbox, SandboxRequest
from matchmeter.runner.sandbox.local import LocalBackend
from matchmeter.schema import TaskSpec
from tests.helpers.tasks import write_task

BUILT_IN = set(BACKENDS)  # bwrap, docker, local: before any test adds one
CALLS: list[tuple[str, str]] = []  # (member, argument) in call order, over every instance get_backend made


class RecordingBackend:
    """The local backend under another name, recording what the runner asks of it."""

    name = "recording"
    capabilities = LocalBackend.capabilities

    def __init__(self, base_aliases: dict[str, str] | None = None) -> None:
        self.inner = LocalBackend(base_aliases)
        self.base_aliases = self.inner.base_aliases

    def preflight(self) -> None:
        CALLS.append(("preflight", ""))
        self.inner.preflight()

    def create(self, request: SandboxRequest) -> Sandbox:
        CALLS.append(("create", request.label))
        return self.inner.create(request)

    def builds_images(self) -> bool:
        CALLS.append(("builds_images", ""))
        return False

    def check_environment(self, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile") -> None:
        CALLS.append(("check_environment", task_id))

    def needs_engine_for(self, task: TaskSpec) -> bool:
        return False

    def prune(self, label: str) -> int:
        CALLS.append(("prune", label))
        return self.inner.prune(label)


def test_a_backend_added_by_one_registry_line_runs_trials_through_the_run_path(tmp_path, monkeypatch):
    """Fails on the old runner: its prune of leftovers switched on the names local/docker and never asked a
    new backend to prune its own (no ("prune", run id) call)."""
    monkeypatch.setitem(BACKENDS, "recording", f"{__name__}:RecordingBackend")  # the one registry line
    CALLS.clear()
    task = write_task(tmp_path / "tasks")
    configurations = [configuration_from_flags("oracle", None), configuration_from_flags("nop", None)]
    summary = execute_run(RunRequest(tasks=[str(task.parent)], configurations=configurations, backend="recording",
                                     out=str(tmp_path / "run"), seeds=2), progress=False)
    rewards = sorted((r.configuration_id.split("-")[0], r.seed, r.reward, r.backend) for r in summary.results)
    assert summary.executed == 4
    assert rewards == [("nop", 0, 0.0, "recording"), ("nop", 1, 0.0, "recording"),
                       ("oracle", 0, 1.0, "recording"), ("oracle", 1, 1.0, "recording")]
    run_id = next(label for member, label in CALLS if member == "create")  # the run's id: <out's name>-<hex>
    assert run_id.startswith("run-")
    assert CALLS[:2] == [("preflight", ""), ("check_environment", "copy-file")]
    assert ("prune", run_id) in CALLS  # the run's leftovers pruned by the backend itself, by its label
    assert sorted(c for c in CALLS if c[0] == "create") == [("create", run_id)] * 4
    assert CALLS.index(("prune", run_id)) < CALLS.index(("create", run_id))


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return {s for element in node.elts for s in _strings(element)}
    return set()


def _knows_a_backend(node: ast.AST, source: str) -> bool:
    """A comparison naming a built-in backend, or a getattr on something called a backend or a sandbox."""
    if isinstance(node, ast.Compare):
        return any(_strings(x) & BUILT_IN for x in [node.left, *node.comparators])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and node.args:
        target = (ast.get_source_segment(source, node.args[0]) or "").lower()
        return "backend" in target or "sandbox" in target
    return False


def test_no_code_outside_the_sandbox_package_switches_on_a_backend_name_or_reaches_it_through_getattr():
    """Issue 37: the runner knows a backend only through the declared members, so a new one needs no edit
    elsewhere. Outside matchmeter/runner/sandbox/ (the registry and the backends) no comparison or membership
    test names a built-in backend, and no getattr reads a member of a backend or a sandbox. Fails on the code
    before f3a13e3 (context.py's `backend == "local"` / `== "docker"` prune switch, ray_executor.py's
    `backend_name != "bwrap"`) and before 92a334d (`getattr(session.sandbox, "cli_executable", None)`)."""
    root = Path(matchmeter.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(("runner/sandbox/", "tasks/suite/")):
            continue
        source = path.read_text()
        found += [f"{relative}:{node.lineno} {ast.get_source_segment(source, node)}"
                  for node in ast.walk(ast.parse(source)) if _knows_a_backend(node, source)]
    assert sorted(BUILT_IN) == ["bwrap", "docker", "local"]
    assert found == []
