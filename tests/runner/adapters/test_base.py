"""The adapter base on a fake CLI (a Python script): command assembly, prompt modes, env and key
scrubbing, pricing, failure mapping. Runs through a real local sandbox."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from matchmeter.errors import AgentError, AgentTimeout, BudgetExceeded, UserError
from matchmeter.runner.agents import get_agent
from matchmeter.runner.agents.adapters import ADAPTERS, needs_network, profiles
from matchmeter.runner.agents.adapters.base import (
    PLACEHOLDER_KEY,
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    ParsedLog,
    scrub,
)
from matchmeter.runner.agents.session import AgentSession
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.schema import (
    AgentSpec,
    Budgets,
    Configuration,
    ModelCall,
    ModelEndpoint,
    ReferencePath,
    Step,
    Subgoal,
    TaskSpec,
    TokenUsage,
)

FAKE_CLI = """\
import json, os, sys, time
prompt = sys.stdin.read() if "--stdin" in sys.argv else None
if "--sleep" in sys.argv:
    time.sleep(30)
print("banner line")
print(json.dumps({"argv": sys.argv[1:], "stdin": prompt, "key": os.environ.get("OPENAI_API_KEY"),
                  "base": os.environ.get("FAKE_BASE_URL"), "home": os.environ.get("HOME"),
                  "cwd": os.getcwd(), "tokens": int(sys.argv[-1]) if sys.argv[-1].isdigit() else 100}))
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""


class FakeAdapter(CLIAdapter):
    PROFILE = AdapterProfile(
        name="fake", version="1", verified=False, approval_mode="auto", sandbox="none", flags=("--fixed",),
        prompt_mode="argv", prompt_flag="--prompt", env_vars=("FAKE_EXIT", "FAKE_SECRET"),
        api_key_env="OPENAI_API_KEY", model_flag="--model", model_prefix="strip", base_url_env="FAKE_BASE_URL",
        log_location="stdout", log_format="fake JSON line", install=InstallSpec(kind="binary", package="fake", executable="fake"),
    )

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        lines = [line for line in text.splitlines() if line.startswith("{")]
        if not lines:
            return ParsedLog([], [], [])
        data = json.loads(lines[-1])
        call = ModelCall(index=0, model="x", reported_model="gpt-4o", tokens=TokenUsage(input=data["tokens"], output=10))
        return ParsedLog([Step(index=0, command="fake", output=lines[-1])], [call], ["gpt-4o"], "done")


def make_task(steps: int = 10) -> TaskSpec:
    return TaskSpec(id="t", source_family="terminal", category="c", difficulty="easy", instruction="i",
                    subgoals=[Subgoal(name="a", weight=1)], reference_paths=[ReferencePath(commands=["true"])],
                    budgets=Budgets(steps=steps))


@pytest.fixture
def fake_cli(tmp_path):
    script = tmp_path / "fake_cli.py"
    script.write_text(FAKE_CLI)
    launcher = tmp_path / "fake"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    launcher.chmod(0o755)
    return launcher


@pytest.fixture
def sandbox():
    box = get_backend("local").create(SandboxRequest(task_id="t", environment_dir=Path("/tmp")))
    yield box
    box.destroy()


def run_fake(fake_cli, sandbox, *, adapter_cls=FakeAdapter, deadline_s=60.0, api_key_env=None, task=None, prompt="hi"):
    task = task or make_task()
    config = Configuration(id="c", model="openai/gpt-4o", agent=AgentSpec(name="fake", options={"cli_path": str(fake_cli)}),
                           endpoint=ModelEndpoint(api_base="http://127.0.0.1:9/v1", api_key_env=api_key_env))
    adapter = adapter_cls(configuration=config, task=task)
    session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                           deadline=time.monotonic() + deadline_s)
    adapter.setup(session)
    adapter.run(prompt, session)
    return session


def logged(session) -> dict:
    return json.loads(session.trajectory.steps[0].output)


def test_argv_carries_the_prompt_exactly_and_env_carries_endpoint_and_key(fake_cli, sandbox, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-secret-value-1")
    prompt = "it's \"$(rm -rf /)\" `x` $HOME \\ ! *\nline2"
    session = run_fake(fake_cli, sandbox, prompt=prompt)
    data = logged(session)
    assert data["argv"] == ["--fixed", "--model", "gpt-4o", "--prompt", prompt]
    assert data["base"] == "http://127.0.0.1:9/v1"
    assert data["key"] == "[REDACTED:OPENAI_API_KEY]"  # the CLI saw the key; our record did not keep it
    assert data["home"].startswith("/tmp/mm-agent-fake-")
    assert "sk-host-secret-value-1" not in session.trajectory.model_dump_json()
    assert data["cwd"] == sandbox.app_dir
    assert sandbox.exec(f"test -e {data['home']}", 10).exit_code == 1  # the state dir is removed afterwards


def test_placeholder_key_when_the_host_has_none(fake_cli, sandbox, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert logged(run_fake(fake_cli, sandbox))["key"] == PLACEHOLDER_KEY


def test_api_key_env_option_names_the_host_variable(fake_cli, sandbox, monkeypatch):
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-provider-abcdef")
    session = run_fake(fake_cli, sandbox, api_key_env="MY_PROVIDER_KEY")
    assert logged(session)["key"] == "[REDACTED:MY_PROVIDER_KEY]"
    assert "sk-provider-abcdef" not in session.trajectory.model_dump_json()


def test_stdin_prompt_mode(fake_cli, sandbox):
    class StdinFake(FakeAdapter):
        PROFILE = FakeAdapter.PROFILE.model_copy(update={"prompt_mode": "stdin", "flags": ("--stdin",)})

    data = logged(run_fake(fake_cli, sandbox, adapter_cls=StdinFake, prompt="multi\nline 'q' $X"))
    assert data["stdin"] == "multi\nline 'q' $X"
    assert data["argv"] == ["--stdin", "--model", "gpt-4o"]


def test_calls_are_priced_by_the_table_and_reported(fake_cli, sandbox):
    session = run_fake(fake_cli, sandbox, prompt="100000")
    call = session.trajectory.model_calls[0]
    assert call.model == "openai/gpt-4o"
    assert call.cost.usd == 0.2501  # gpt-4o: 100,000 × $2.50/M input + 10 × $10/M output
    assert session.trajectory.reported_models == ["gpt-4o"]
    assert session.trajectory.final_message == "done"


def test_unknown_model_price_is_null_with_reason(fake_cli, sandbox):
    class Unknown(FakeAdapter):
        @classmethod
        def parse_log(cls, text):
            parsed = FakeAdapter.parse_log(text)
            return parsed._replace(calls=[c.model_copy(update={"reported_model": "mystery-model"}) for c in parsed.calls])

    task = make_task()
    config = Configuration(id="c", model="openai/mystery-model", agent=AgentSpec(name="fake", options={"cli_path": str(fake_cli)}))
    session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                           deadline=time.monotonic() + 60)
    Unknown(configuration=config, task=task).run("p", session)
    cost = session.trajectory.model_calls[0].cost
    assert cost.usd is None
    assert "openai/mystery-model" in (cost.null_reason or "")


def test_nonzero_exit_without_calls_is_an_agent_error(fake_cli, sandbox, monkeypatch):
    class Silent(FakeAdapter):
        @classmethod
        def parse_log(cls, text):
            return ParsedLog([], [], [])

    monkeypatch.setenv("FAKE_EXIT", "3")
    with pytest.raises(AgentError, match="exited 3"):
        run_fake(fake_cli, sandbox, adapter_cls=Silent)


def test_deadline_kills_the_cli_and_keeps_nothing_partial(fake_cli, sandbox):
    class Sleepy(FakeAdapter):
        PROFILE = FakeAdapter.PROFILE.model_copy(update={"flags": ("--sleep",)})

    started = time.monotonic()
    with pytest.raises(AgentTimeout):
        run_fake(fake_cli, sandbox, adapter_cls=Sleepy, deadline_s=2.0)
    assert time.monotonic() - started < 15


def test_budget_overrun_is_raised_after_everything_is_recorded(fake_cli, sandbox):
    task = make_task()
    config = Configuration(id="c", model="openai/gpt-4o", agent=AgentSpec(name="fake", options={"cli_path": str(fake_cli)}))
    session = AgentSession(sandbox=sandbox, configuration=config, task=task, budgets=task.budgets,
                           deadline=time.monotonic() + 60)
    with pytest.raises(BudgetExceeded, match="tokens budget exceeded: used 500010 of 400000"):
        FakeAdapter(configuration=config, task=task).run("500000", session)  # above the default 400k budget
    assert len(session.trajectory.model_calls) == 1
    assert len(session.trajectory.steps) == 1


def test_scrub_replaces_every_occurrence_and_ignores_short_values():
    assert scrub("a sk-123456 b sk-123456", {"K": "sk-123456", "S": "ab"}) == "a [REDACTED:K] b [REDACTED:K]"


def test_construction_rejects_missing_model_and_transports():
    task = make_task()
    with pytest.raises(UserError, match="needs a model"):
        FakeAdapter(configuration=Configuration(id="c", agent=AgentSpec(name="fake")), task=task)
    with pytest.raises(UserError, match="transports do not apply"):
        FakeAdapter(configuration=Configuration(id="c", model="m", agent=AgentSpec(name="fake"), transport="nested"),
                    task=task)


def test_registry_profiles_and_network_needs():
    found = {p.name: p for p in profiles()}
    assert set(found) == set(ADAPTERS) == {"mini-swe-agent", "aider", "codex", "claude-code", "qwen-code",
                                           "gemini-cli", "kimi", "opencode"}
    assert [n for n, p in found.items() if p.verified] == ["mini-swe-agent", "aider", "codex", "claude-code"]
    assert all(p.install.version for p in found.values() if p.install.kind == "pypi")
    assert json.loads(json.dumps([p.model_dump(mode="json") for p in found.values()]))[0]["name"] == "mini-swe-agent"
    assert needs_network(Configuration(id="c", model="m", agent=AgentSpec(name="aider"))) is True
    assert needs_network(Configuration(id="c", model="m", agent=AgentSpec(name="bash"))) is False
    agent = get_agent(Configuration(id="c", model="openai/gpt-4o", agent=AgentSpec(name="codex")), make_task())
    assert agent.name == "codex"


def test_agents_profiles_command_prints_json_and_a_table():
    from typer.testing import CliRunner

    from matchmeter.cli import app

    out = CliRunner().invoke(app, ["agents", "profiles", "--json"])
    assert out.exit_code == 0
    listed = json.loads(out.stdout)
    assert [p["name"] for p in listed] == list(ADAPTERS)
    assert {p["name"]: p["verified"] for p in listed}["aider"] is True
    assert {p["name"]: p["install"]["package"] for p in listed}["mini-swe-agent"] == "mini-swe-agent"
    table = CliRunner().invoke(app, ["agents", "profiles"], env={"COLUMNS": "200"})
    assert table.exit_code == 0
    assert "opencode" in table.stdout
