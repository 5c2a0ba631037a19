"""Real CLIs (installed from PyPI into the CLI cache) against the loopback stub, inside real sandboxes.

Token accounting: every model call in our trajectory carries exactly the stub's usage for that request
(split into token classes) and costs usage × the price table's `stub/*` rates.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from matchmeter.llm.pricing import PriceTable
from matchmeter.runner.agents.adapters.model_check import TRUST_FLAG
from matchmeter.runner.atif import to_atif
from matchmeter.schema import ModelEndpoint, TokenUsage
from tests.runner.adapters.conftest import run_cli_trial

pytestmark = [pytest.mark.live_cli, pytest.mark.slow]

MINI_REPLIES = [
    "Copy the file.\n\n```mswea_bash_command\ncp data/input.txt out.txt\n```",
    {"text": "Check it.\n\n```mswea_bash_command\ncat out.txt; ls missing-file\n```", "cache_prefix": True,
     "reasoning_tokens": 7},
    "Done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]
AIDER_REPLIES = [{"text": "Writing the copy.\n\nout.txt\n```\n<<<<<<< SEARCH\n=======\nseed-0\n>>>>>>> REPLACE\n```\n",
                  "cached_tokens": 100, "reasoning_tokens": 3}]  # a SEARCH/REPLACE block that creates the file
REPLIES = {"mini-swe-agent": MINI_REPLIES, "aider": AIDER_REPLIES}
BACKENDS = ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)]


def expected_tokens(usage: dict) -> TokenUsage:
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
    return TokenUsage(input=usage["prompt_tokens"] - cached, cached_input=cached,
                      output=usage["completion_tokens"] - reasoning, reasoning=reasoning)


def expected_cost_usd(tokens: TokenUsage) -> float:
    rate = PriceTable.load().lookup("stub/scripted")
    assert rate is not None
    assert rate.simulated
    amount = sum(Decimal(n) * Decimal(str(r)) for n, r in (
        (tokens.input, rate.input), (tokens.cached_input, rate.cached_input),
        (tokens.output, rate.output), (tokens.reasoning, rate.reasoning)))
    return float(amount / 1_000_000)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("agent", ["mini-swe-agent", "aider"])
def test_token_accounting_equals_stub_usage_times_prices(clis, tmp_path, agent, backend):
    run = run_cli_trial(tmp_path, agent, REPLIES[agent], backend=backend)
    result, trajectory = run.outcome.result, run.outcome.trajectory
    assert (result.failure_mode, result.error) == ("none", None)
    assert result.reward == 1.0
    usages = run.stats["usages"]
    assert run.stats["http_calls"] == len(REPLIES[agent]) == len(trajectory.model_calls)
    assert [c.tokens for c in trajectory.model_calls] == [expected_tokens(u) for u in usages]
    assert [c.cost.usd for c in trajectory.model_calls] == [expected_cost_usd(expected_tokens(u)) for u in usages]
    total = TokenUsage()
    for usage in usages:
        total = total + expected_tokens(usage)
    assert result.tokens == total
    assert result.tokens.input + result.tokens.cached_input == sum(u["prompt_tokens"] for u in usages)
    assert result.cost.usd == pytest.approx(sum(expected_cost_usd(expected_tokens(u)) for u in usages), abs=1e-15)
    assert trajectory.reported_models == ["stub/scripted"]
    assert result.trust_flags[TRUST_FLAG] is True
    print(f"\n{agent}/{backend}: tokens {result.tokens.model_dump()} cost ${result.cost.usd:.9f} "
          f"steps {result.n_steps} install {clis[f'{agent}:install_s']}s")


def test_mini_steps_carry_commands_outputs_and_exit_codes(clis, tmp_path):
    trajectory = run_cli_trial(tmp_path, "mini-swe-agent", MINI_REPLIES).outcome.trajectory
    assert [s.command for s in trajectory.steps] == [
        "cp data/input.txt out.txt", "cat out.txt; ls missing-file", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    assert [s.exit_code for s in trajectory.steps] == [0, 2, None]
    assert trajectory.steps[1].output.startswith("seed-0\nls: cannot access 'missing-file'")
    assert trajectory.model_calls[1].tokens.cached_input > 0
    assert trajectory.model_calls[1].tokens.reasoning == 7


def test_aider_edit_is_a_step(clis, tmp_path):
    trajectory = run_cli_trial(tmp_path, "aider", AIDER_REPLIES).outcome.trajectory
    assert [s.tool_call for s in trajectory.steps] == [{"name": "edit", "path": "out.txt"}]
    assert trajectory.model_calls[0].tokens.cached_input == 100
    assert trajectory.model_calls[0].tokens.reasoning == 3


def test_aider_runs_the_shell_blocks_of_its_reply_as_steps(clis, tmp_path):
    """Its confirmations read end of input and take their default, yes: the blocks run, each a step."""
    reply = "Copy it, then look.\n\n```bash\ncp data/input.txt out.txt\n```\n\n```bash\ncat out.txt\n```\n"
    outcome = run_cli_trial(tmp_path, "aider", [reply]).outcome
    assert (outcome.result.failure_mode, outcome.result.reward) == ("none", 1.0)
    assert [(s.command, s.output) for s in outcome.trajectory.steps] == [
        ("cp data/input.txt out.txt", ""), ("cat out.txt", "seed-0\n")]  # setup.sh wrote seed-$MM_SEED


def test_aider_answering_without_an_action_is_an_agent_error(clis, tmp_path):
    """Model calls and no step: flagged as the agent's error, not a clean reward 0 (trial.actionless)."""
    outcome = run_cli_trial(tmp_path, "aider", ["I would copy data/input.txt to out.txt."]).outcome
    result = outcome.result
    assert (result.failure_mode, result.reward, result.n_steps, len(outcome.trajectory.model_calls)) == (
        "agent_error", 0.0, 0, 1)
    assert "aider made 1 model call(s) but no step was recorded" in (result.error or "")


def _other(replies):
    return [{**(r if isinstance(r, dict) else {"text": r}), "model": "stub/other-model"} for r in replies]


@pytest.mark.parametrize("agent", ["mini-swe-agent", "aider"])
def test_reported_model_mismatch_fails_the_execution(clis, tmp_path, agent):
    result = run_cli_trial(tmp_path, agent, _other(REPLIES[agent])).outcome.result
    assert result.failure_mode == "model_mismatch"
    assert result.reward == 0.0
    assert result.raw_verifier_reward == 1.0  # the work was done, by another model than asked for
    assert "stub/other-model" in (result.error or "")
    assert result.trust_flags[TRUST_FLAG] is False
    assert result.to_row()["trusted"] is False


def test_allow_incompatible_keeps_the_execution_and_says_so(clis, tmp_path):
    run = run_cli_trial(tmp_path, "mini-swe-agent", _other(MINI_REPLIES), allow_incompatible=True)
    result = run.outcome.result
    assert (result.failure_mode, result.reward) == ("none", 1.0)
    assert run.outcome.trajectory.reported_models == ["stub/other-model"]
    assert "stub/other-model" in (result.error or "")
    assert "--allow-incompatible" in (result.error or "")
    assert result.trust_flags[TRUST_FLAG] is False


def test_api_key_reaches_the_endpoint_but_no_stored_text(clis, tmp_path, monkeypatch):
    secret = "sk-mm-live-test-0123456789abcdef"
    monkeypatch.setenv("MM_TEST_SECRET_KEY", secret)
    replies = ["Look.\n\n```mswea_bash_command\nprintenv OPENAI_API_KEY\n```", *MINI_REPLIES]
    run = run_cli_trial(tmp_path, "mini-swe-agent", replies, api_key_env="MM_TEST_SECRET_KEY")
    assert run.outcome.result.failure_mode == "none"
    assert run.stats["authorized_calls"] == run.stats["http_calls"] == 4
    assert run.outcome.trajectory.steps[0].output.strip() == "[REDACTED:MM_TEST_SECRET_KEY]"
    stored = [run.outcome.trajectory.model_dump_json(), run.outcome.result.model_dump_json(),
              json.dumps(to_atif(run.outcome.trajectory, session_id="k", agent_version="v", instruction="x"))]
    stored += [p.read_text(errors="replace") for p in run.logs_dir.rglob("*") if p.is_file()]
    assert not [text for text in stored if secret in text]


def test_run_command_path_records_allow_incompatible_in_manifest_and_results(clis, tmp_path):
    from matchmeter.llm.stub_server import StubServer
    from matchmeter.runner.run import RunRequest, configuration_from_flags, execute_run
    from tests.helpers.tasks import write_task

    task_dir = write_task(tmp_path / "tasks", steps=10, agent_s=240)
    with StubServer(_other(MINI_REPLIES)) as stub:
        config = configuration_from_flags("mini-swe-agent", "openai/stub/scripted",
                                          endpoint=ModelEndpoint(api_base=stub.api_base))
        request = RunRequest(tasks=[str(task_dir)], configurations=[config], backend="local", out=str(tmp_path / "run"),
                             allow_incompatible=True)
        summary = execute_run(request, progress=False)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["allow_incompatible"] is True
    [result] = summary.results
    assert (result.failure_mode, result.reward, result.trust_flags[TRUST_FLAG]) == ("none", 1.0, False)
