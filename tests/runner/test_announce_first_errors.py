"""The run's first-error announcement writes to the sys.stderr of the moment: an in-process CLI runner (typer's
CliRunner, as tests/tasks/conftest.py uses) swaps sys.stderr for each invocation and closes it afterwards, so a
stream bound once would make a later run's first failure raise "I/O operation on closed file"."""

from __future__ import annotations

import io
import sys

from matchmeter.runner.endpoints import announce_first_errors
from matchmeter.schema import AgentSpec, Configuration, ExecutionResult


def _failed(mode: str) -> ExecutionResult:
    config = Configuration(id="oracle", agent=AgentSpec(name="oracle"))
    return ExecutionResult(execution_key="k", run_id="r", configuration_id=config.id, configuration=config,
                           task_id="t", task_digest="d", source_family="imported", difficulty="easy",
                           description_sha256="s", seed=0, attempt=0, backend="local", failure_mode=mode,
                           error="agent deadline of 3s passed")


def test_the_announcement_goes_to_the_current_stderr_not_a_closed_one(monkeypatch):
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    announce_first_errors(None)(_failed("agent_error"))  # bound while `first` was stderr
    on_result = announce_first_errors(None)
    first.close()
    monkeypatch.setattr(sys, "stderr", second)
    on_result(_failed("agent_timeout"))
    on_result(_failed("agent_timeout"))  # only the first of each mode
    assert second.getvalue() == "first agent_timeout: t seed 0 (oracle): agent deadline of 3s passed\n"
