"""The built-in bash agent end to end (local sandbox, real HTTP through the model gateway to the stub): accounting,
cache, faults, spend cap, personas; and that it has no road to its model but the gateway."""

from __future__ import annotations

import contextlib
import json
import textwrap
from pathlib import Path
from statistics import mean

import pytest

from matchmeter.errors import SpendCapReached
from matchmeter.llm.client import import_litellm
from matchmeter.llm.gateway import Gateway
from matchmeter.llm.sim import PERSONAS, sim_api_base
from matchmeter.llm.spend import SpendLedger
from matchmeter.llm.stub_server import StubReply, StubServer
from matchmeter.runner.agents.bash import parse_commands
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.store import execution_key
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description, ModelEndpoint
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task

COPY = "THOUGHT: copy it.\n\n```bash\ncp data/input.txt out.txt\n```"
SUBMIT = "THOUGHT: done.\n\n```bash\nsubmit\n```"
THREE_STEPS = ["mkdir -p out", "cp data/input.txt out/a.txt", "wc -l < data/input.txt > out/count.txt"]


def _three_step_task(root: Path) -> Path:
    task = root / "three-steps"
    for sub in ("environment", "solution", "tests"):
        (task / sub).mkdir(parents=True, exist_ok=True)
    (task / "task.toml").write_text(textwrap.dedent(f"""\
        id = "three-steps"
        source_family = "terminal"
        category = "file-ops"
        difficulty = "easy"
        [budgets]
        steps = 30
        [timeouts]
        agent_s = 60
        command_s = 20
        [[subgoals]]
        name = "dir"
        weight = 1
        [[subgoals]]
        name = "copy"
        weight = 1
        [[subgoals]]
        name = "count"
        weight = 1
        [[reference_paths]]
        commands = {json.dumps(THREE_STEPS)}
        """))
    (task / "instruction.md").write_text("Make out/, copy data/input.txt to out/a.txt, write its line count to out/count.txt.\n")
    (task / "environment" / "setup.sh").write_text('mkdir -p data\nseq 1 $((MM_SEED + 3)) > data/input.txt\n')
    (task / "environment" / "Dockerfile").write_text("FROM matchmeter-base:latest\n")
    (task / "solution" / "solve.sh").write_text("\n".join(THREE_STEPS) + "\n")
    (task / "tests" / "test.sh").write_text(textwrap.dedent("""\
        d=0; c=0; n=0
        [ -d out ] && d=1
        cmp -s out/a.txt data/input.txt && c=1
        [ "$(cat out/count.txt 2>/dev/null)" = "$(wc -l < data/input.txt)" ] && n=1
        printf '{"dir": %s, "copy": %s, "count": %s}' $d $c $n > "$MM_LOGS/subgoals.json"
        python3 -c "print(($d + $c + $n) / 3)" > "$MM_LOGS/reward.txt"
        """))
    return task


def _trial(tmp_path: Path, task_dir: Path, model: str, *, seed: int = 0, routed_to: str | None = None,
           ledger: SpendLedger | None = None, gateway: bool = True, **endpoint):
    """One trial through a gateway of its own (as every run's), the configuration's endpoint made of `endpoint`;
    `routed_to`: the execution's own base URL (a sim model's stub path, as the executor's endpoint_for gives)."""
    config = configuration_from_flags("bash", model, endpoint=ModelEndpoint(**endpoint))
    task = load_task(task_dir)
    desc = Description.original(task)
    key = execution_key(config.digest(), task.digest, desc.sha256, seed, 0)
    routed = config.endpoint.model_copy(update={"api_base": routed_to}) if routed_to else None
    with contextlib.ExitStack() as stack:
        door = stack.enter_context(Gateway(ledger=ledger)) if gateway else None
        return run_trial(TrialRequest(run_id="t", execution_key=key, configuration=config, task=task,
                                      description=desc, seed=seed, attempt=0, backend=get_backend("local"),
                                      logs_dir=tmp_path / "logs" / key, endpoint=routed, gateway=door))


@pytest.fixture(autouse=True, scope="module")
def _litellm_imported():
    """litellm's first import (seconds, far more on a loaded machine) happens here, not inside a trial's deadline."""
    import_litellm()


class Recorder:
    """A callable stub script that keeps every request's messages."""

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []

    def __call__(self, request):
        self.requests.append(request["messages"])
        return self.replies.pop(0) if self.replies else None


def test_parse_commands_counts_bash_blocks_only():
    assert parse_commands("x\n```bash\nls -la\n```\n") == ["ls -la"]
    assert parse_commands("```sh\nsubmit\n```") == ["submit"]
    assert parse_commands("no block") == []
    assert parse_commands("```python\nprint(1)\n```") == []
    assert parse_commands("```bash\na\n```\n```bash\nb\n```") == ["a", "b"]


def test_tokens_and_cost_equal_stub_usage_times_prices_and_rerun_hits_cache(tmp_path):
    task = write_task(tmp_path / "tasks")
    with StubServer([COPY, SUBMIT]) as stub:
        first = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base)
        usages = stub.stats.usages
    assert (first.result.failure_mode, first.result.reward, first.result.n_steps) == ("none", 1.0, 1)
    calls = first.trajectory.model_calls
    assert len(calls) == len(usages) == 2
    for call, usage in zip(calls, usages, strict=True):
        assert call.tokens.input + call.tokens.cached_input == usage["prompt_tokens"]
        assert call.tokens.output + call.tokens.reasoning == usage["completion_tokens"]
        # stub/* prices: 1.00 USD per 1M input, 4.00 per 1M output (prices.toml, simulated)
        assert call.cost.usd == (usage["prompt_tokens"] * 1 + usage["completion_tokens"] * 4) / 1_000_000
    assert usages[0]["completion_tokens"] == 14  # ceil(len(COPY) / 4) = ceil(55 / 4)
    assert first.result.tokens.total == sum(u["total_tokens"] for u in usages)
    assert first.result.cost.usd == pytest.approx(sum(c.cost.usd for c in calls), abs=1e-15)
    assert first.trajectory.steps[0].tokens == calls[0].tokens
    # The identical run again against the same endpoint (a server restarted on the same port): every reply
    # comes from the cache, the server sees no HTTP call at all.
    with StubServer(["```bash\necho WRONG > out.txt\n```", SUBMIT], port=stub.port) as stub2:
        second = _trial(tmp_path, task, "stub/scripted", api_base=stub2.api_base)
        assert stub2.stats.http_calls == 0
    assert all(c.cache_hit for c in second.trajectory.model_calls)
    assert (second.result.reward, second.result.tokens, second.result.cost) == (1.0, first.result.tokens,
                                                                                first.result.cost)


def test_format_errors_are_fed_back_and_three_in_a_row_fail(tmp_path):
    task = write_task(tmp_path / "tasks")
    script = Recorder(["I would copy the file.", COPY, SUBMIT])
    with StubServer(script) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base)
    assert (out.result.reward, out.result.n_steps, len(out.trajectory.model_calls)) == (1.0, 1, 3)
    assert script.requests[1][-1]["content"].startswith("Format error: your reply must contain exactly one ```bash")
    assert "Copy the input file" in script.requests[0][1]["content"]
    assert "submit" in script.requests[0][0]["content"]
    assert "at most 10 commands" in script.requests[0][0]["content"]
    two_blocks = "```bash\nls\n```\n```bash\npwd\n```"
    with StubServer(["no block", two_blocks, "still nothing"]) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, cache_salt="b")
    assert out.result.failure_mode == "agent_error"
    assert "broke the reply format 3 times in a row" in out.result.error
    assert out.result.n_steps == 0


def test_observation_has_exit_code_and_marked_truncation(tmp_path):
    task = write_task(tmp_path / "tasks")
    script = Recorder(["```bash\nseq 1 20000; exit 3\n```", SUBMIT])
    with StubServer(script) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base)
    fed_back = script.requests[1][-1]["content"]
    assert fed_back.startswith("<returncode>3</returncode>\n<output>\n1\n2\n")
    assert "[... output truncated by matchmeter:" in fed_back
    assert fed_back.endswith("Commands left: 9")
    assert out.trajectory.steps[0].output_truncated
    assert out.trajectory.steps[0].exit_code == 3


def test_malformed_reply_is_a_recorded_infra_error_not_a_crash(tmp_path):
    """The server's malformed body is the endpoint's fault (it was agent_error on the old code), after retries."""
    task = write_task(tmp_path / "tasks")
    with StubServer(lambda request: StubReply(fault="malformed")) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, retry_wait_s=0.01)
        assert stub.stats.http_calls == 4
    assert out.result.failure_mode == "infra_error"
    assert out.result.error.startswith(f"the model endpoint failed: malformed reply from model stub/scripted at "
                                       f"{stub.api_base}")


def test_rate_limit_and_503_are_retried_inside_the_trial(tmp_path):
    task = write_task(tmp_path / "tasks")
    with StubServer([{"fault": "429"}, COPY, {"fault": "503"}, SUBMIT]) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, retry_wait_s=0.01)
        assert stub.stats.http_calls == 4
    assert (out.result.failure_mode, out.result.reward, len(out.trajectory.model_calls)) == ("none", 1.0, 2)


def test_spend_cap_stops_the_trial_cleanly_and_a_later_run_resumes(tmp_path):
    task = write_task(tmp_path / "tasks")
    ledger = tmp_path / "spend.json"
    with StubServer([COPY, SUBMIT]) as stub:
        # reaching the cap is not a result: the trial stops, nothing is recorded, the run reruns it later
        with pytest.raises(SpendCapReached, match="^matchmeter gateway refused the call: spend cap reached"):
            _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, ledger=SpendLedger(ledger, 0.000000001))
        assert stub.stats.http_calls == 1
        resumed = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, ledger=SpendLedger(ledger, 1.0))
        assert stub.stats.http_calls == 2  # the first turn came from the cache
    assert (resumed.result.failure_mode, resumed.result.reward) == ("none", 1.0)
    assert [c.cache_hit for c in resumed.trajectory.model_calls] == [True, False]
    assert json.loads(ledger.read_text())["spent_usd"] == pytest.approx(resumed.result.cost.usd, abs=1e-15)


def test_no_api_key_or_authorization_in_any_stored_file(tmp_path, monkeypatch):
    secret = "sk-live-SECRET-55d0e1"
    monkeypatch.setenv("MM_PROVIDER_KEY", secret)
    task = write_task(tmp_path / "tasks")
    with StubServer([COPY, SUBMIT]) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, api_key_env="MM_PROVIDER_KEY")
        assert stub.stats.authorized_calls == 2
    run_dir = tmp_path / "logs"
    (run_dir / "result.json").write_text(out.result.model_dump_json())
    (run_dir / "trajectory.json").write_text(out.trajectory.model_dump_json())
    files = [p for root in (run_dir, tmp_path / "mm-cache") for p in root.rglob("*") if p.is_file()]
    assert len(files) >= 4
    for path in files:
        blob = path.read_bytes()
        found = [word for word in (secret.encode(), b"Authorization", b"Bearer") if word in blob]
        assert found == [], path


def test_sim_personas_give_varied_rewards_steps_and_costs(tmp_path):
    task_dir = _three_step_task(tmp_path / "tasks")
    task = load_task(task_dir)
    results: dict[str, list] = {p: [] for p in PERSONAS}
    with StubServer(tasks={task.id: task}) as stub:
        for persona in PERSONAS:
            for seed in range(6):
                out = _trial(tmp_path, task_dir, f"sim/{persona}", seed=seed,
                             routed_to=sim_api_base(stub.url, task.id, seed))
                assert out.result.simulated
                assert "SIMULATED" in out.trajectory.final_message
                results[persona].append(out)
    rewards = {p: [o.result.reward for o in outs] for p, outs in results.items()}
    assert rewards["expert"] == [1.0] * 6
    assert all(o.result.n_steps == 3 for o in results["expert"])
    assert mean(rewards["quitter"]) < mean(rewards["explorer"]) <= 1.0
    everything = [o for outs in results.values() for o in outs]
    assert len({o.result.reward for o in everything}) >= 3
    assert len({o.result.n_steps for o in everything}) >= 4
    assert len({o.result.cost.usd for o in everything}) >= 18
    assert any(s.exit_code in (2, 127) or (s.exit_code == 1 and "no_such_file" in s.command)
               for o in results["sloppy"] for s in o.trajectory.steps)


def test_model_calls_without_a_step_are_an_agent_error_never_a_clean_zero(tmp_path):
    """An agent that submits at once made a model call and ran nothing: `agent_error` with a reason (every agent
    gets this check in the trial, trial.actionless), not reward 0 with failure mode `none`."""
    task = write_task(tmp_path / "tasks")
    with StubServer([SUBMIT]) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base)
    result = out.result
    assert (len(out.trajectory.model_calls), result.n_steps) == (1, 0)
    assert (result.failure_mode, result.reward, result.raw_verifier_reward) == ("agent_error", 0.0, 0.0)
    assert "made 1 model call(s) but no step was recorded" in (result.error or "")
    assert result.tokens.total > 0  # the call stays metered


def test_without_a_gateway_the_bash_agent_calls_no_model(tmp_path):
    """The bash agent's only road to its model is the gateway: a trial that opens none (a runner that forgot it) is
    an infra error, and the endpoint sees no request. On the old code the agent called the stub directly."""
    task = write_task(tmp_path / "tasks")
    with StubServer([COPY, SUBMIT]) as stub:
        out = _trial(tmp_path, task, "stub/scripted", api_base=stub.api_base, gateway=False)
        assert stub.stats.requests == 0
    assert out.result.failure_mode == "infra_error"
    assert "only through matchmeter's model gateway" in out.result.error
