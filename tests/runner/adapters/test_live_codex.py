"""Codex CLI 0.163.0, the real binary from the wheel openai-codex-cli-bin, live through the model gateway.

Full trials (runner/trial.py) of built-in tasks (and of a multi-step Harbor task) on docker and bwrap, the CLI from its pypi-binary image layer
(built once per machine, exported once for bwrap), the `sim/<persona>` model behind the gateway: the persona
answers Codex's Responses request with calls of its `exec_command` tool, Codex runs them in the sandbox and
sends the outputs back, and the gateway's meter is the trajectory's model calls. All the tests here share the
session fixture `codex_layer`, so tests/conftest.py puts them on one xdist worker and the layer is made once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from matchmeter.llm.gateway import Gateway, Upstream
from matchmeter.llm.pricing import PriceTable
from matchmeter.llm.sim import build_plan, sim_api_base
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.agents.adapters import codex
from matchmeter.runner.agents.adapters.install import ensure_unpacked
from matchmeter.runner.agents.adapters.model_check import TRUST_FLAG
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.trial import TrialOutcome, TrialRequest, run_trial
from matchmeter.schema import AgentSpec, Description, ModelEndpoint, TaskSpec, TokenUsage
from matchmeter.tasks.loader import builtin_suite_dir, load_task, load_tasks
from tests.helpers.clis import machine_clis_dir
from tests.helpers.steps import STEPS_TASK, assert_both_steps_solved
from tests.helpers.steps import sim_trial as steps_sim_trial
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter
from tests.runner.adapters.conftest import layers_on_base

pytestmark = [pytest.mark.live_cli, pytest.mark.slow]
BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), pytest.param("bwrap", marks=[pytest.mark.docker,
                                                                                          pytest.mark.bwrap])]
TASKS = ["cleanup-old-tmp", "commit-special-message"]
HOST_KEY = "sk-live-HOST-KEY-c0dex-5e1f"  # in the host's environment: must reach neither the sandbox nor a file


@pytest.fixture(scope="session")
def codex_layer() -> dict[str, Any]:
    """Codex's wheel (pip download) and its layer on the base image, once per machine (~40 s cold)."""
    found = layers_on_base(["codex"], "sim/expert")
    cli, _tag = found["codex"]
    assert (cli.kind, cli.version) == ("pypi-binary", "0.163.0")
    return found


@pytest.fixture
def layer(codex_layer, monkeypatch):
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(codex_layer["root"]))
    monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
    return codex_layer


class SimRun(NamedTuple):
    outcome: TrialOutcome
    usages: list[dict[str, Any]]
    task: TaskSpec
    logs: Path


def _builtin(task_id: str) -> TaskSpec:
    return next(t for t in load_tasks([builtin_suite_dir()]) if t.id == task_id)


def sim_trial(tmp_path: Path, backend: str, task_id: str, persona: str) -> SimRun:
    task = _builtin(task_id)
    with StubServer(tasks={task.id: task}) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        outcome = run_trial(TrialRequest(
            run_id="live-codex", execution_key=f"k-{task_id}-{persona}-{backend}",
            configuration=configuration_from_flags("codex", f"sim/{persona}"), task=task,
            description=Description.original(task), seed=0, attempt=0, backend=get_backend(backend),
            logs_dir=tmp_path / "logs", endpoint=ModelEndpoint(api_base=sim_api_base(stub.url, task.id, 0)),
            gateway=gateway))
        return SimRun(outcome, stub.stats.usages, task, tmp_path / "logs")


def _tokens(usage: dict[str, Any]) -> TokenUsage:
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
    return TokenUsage(input=usage["prompt_tokens"] - cached, cached_input=cached,
                      output=usage["completion_tokens"] - reasoning, reasoning=reasoning)


def _sim_cost(tokens: TokenUsage, persona: str) -> float:
    rate = PriceTable.load().lookup(f"sim/{persona}")
    assert rate is not None
    assert rate.simulated
    amount = sum(Decimal(n) * Decimal(str(r)) for n, r in (
        (tokens.input, rate.input), (tokens.cached_input, rate.cached_input),
        (tokens.output, rate.output), (tokens.reasoning, rate.reasoning)))
    return float(amount / 1_000_000)


def host_codex(monkeypatch: pytest.MonkeyPatch) -> str:
    """The wheel's codex binary unpacked in the machine's CLI cache (no layer): what the local backend runs."""
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(machine_clis_dir()))
    spec = codex.CodexAdapter.PROFILE.install
    return str(ensure_unpacked(spec.package, spec.version, spec.payload, spec.binary))


def local_trial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: Any, model: str, task_dir: Path,
                key: str) -> tuple[TrialOutcome, int]:
    """One trial of write_task's copy-file task on the local backend: the host's codex binary (cli_path) through
    the gateway to the stub playing `script`; (outcome, the stub's HTTP calls)."""
    task = load_task(task_dir)
    with StubServer(script) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        config = configuration_from_flags("codex", model, options={"cli_path": host_codex(monkeypatch)})
        outcome = run_trial(TrialRequest(
            run_id="codex-local", execution_key=key, configuration=config, task=task,
            description=Description.original(task), seed=0, attempt=0, backend=get_backend("local"),
            logs_dir=tmp_path / "logs", endpoint=ModelEndpoint(api_base=stub.api_base), gateway=gateway))
        return outcome, stub.stats.http_calls


def _assert_no_secret_stored(logs: Path) -> None:
    files = [p for p in logs.rglob("*") if p.is_file()]
    assert files
    for path in files:
        text = path.read_text(errors="replace")
        assert HOST_KEY not in text, path
        assert "mmgw-" not in text, path  # nor the execution's gateway token (scrubbed from the CLI's output)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("task_id", TASKS)
def test_codex_solves_a_builtin_task_with_sim_expert_through_the_gateway(layer, tmp_path, backend, task_id):
    run = sim_trial(tmp_path, backend, task_id, "expert")
    result, trajectory = run.outcome.result, run.outcome.trajectory
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0), run.outcome.result.error
    # Codex ran the persona's plan: one exec_command per reference command, each a recorded step, exit 0
    plan = build_plan(run.task, 0, "expert", Description.original(run.task).text.strip())
    commands = [a.command for a in plan if a.kind == "command"]
    assert commands
    assert [s.command for s in trajectory.steps] == commands
    assert [s.exit_code for s in trajectory.steps] == [0] * len(commands)
    # one request per plan item (the last a text-only reply that ends Codex's turn), metered at the gateway
    assert len(run.usages) == len(plan) == len(trajectory.model_calls)
    assert [c.tokens for c in trajectory.model_calls] == [_tokens(u) for u in run.usages]
    assert [c.cost.usd for c in trajectory.model_calls] == [_sim_cost(_tokens(u), "expert") for u in run.usages]
    assert result.tokens.total > 0
    # Codex's own per-turn usage agrees with the meter; the gateway saw the configured model answer
    assert sum(c.tokens.total for c in trajectory.cli_model_calls) == result.tokens.total
    assert trajectory.metering_disagreements == []
    assert trajectory.reported_models == ["sim/expert"]
    assert result.trust_flags[TRUST_FLAG] is True
    assert result.simulated is True
    assert trajectory.final_message.startswith("THOUGHT (SIMULATED sim/expert)")
    _assert_no_secret_stored(run.logs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_codex_with_sim_quitter_scores_zero_as_the_agents_own_failure(layer, tmp_path, backend):
    run = sim_trial(tmp_path, backend, "cleanup-old-tmp", "quitter")
    result, trajectory = run.outcome.result, run.outcome.trajectory
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 0.0)  # it gave up: no infra fault
    plan = build_plan(run.task, 0, "quitter", Description.original(run.task).text.strip())
    assert [s.command for s in trajectory.steps] == [a.command for a in plan if a.kind == "command"]
    assert len(run.usages) == len(trajectory.model_calls) == len(plan)
    assert result.tokens.total > 0
    assert result.trust_flags[TRUST_FLAG] is True
    assert "give up" in trajectory.final_message
    _assert_no_secret_stored(run.logs)


# ------------------------------------------------------------------ traffic that is not a model call


def _hosts_codex_names(binary: str, config: str, tmp_path: Path) -> set[str]:
    """Run the wheel's codex binary on the host once (RUST_LOG=debug) against a gateway, with `config` as its
    config.toml; the https hosts its debug log names."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(parents=True)
    work.mkdir()
    with StubServer(["done"]) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        session = gateway.open_session("hosts", Upstream(model="stub/scripted", endpoint=ModelEndpoint(api_base=stub.api_base)))
        (home / "config.toml").write_text(config.replace("GATEWAY", f"{gateway.url}/v1"))
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home),
               codex.TOKEN_ENV: session.token, "RUST_LOG": "debug"}
        proc = subprocess.run([binary, "exec", "--json", "--skip-git-repo-check",
                               "--dangerously-bypass-approvals-and-sandbox", "--model", "gpt-5", "say done"],
                              cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
        assert stub.stats.authorized_calls == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    log = proc.stdout + proc.stderr
    # the only mention of chatgpt.com left with the switches on is the auth config's dump, not a request
    log = log.replace('chatgpt_base_url: Some("https://chatgpt.com/backend-api/")', "")
    return set(re.findall(r"https://([a-z0-9.\-]+)", log))


@pytest.mark.docker
def test_the_config_switches_leave_the_gateway_as_codexs_only_destination(layer, tmp_path, monkeypatch):
    """With the adapter's config.toml Codex names no host but the gateway (http on loopback); with only the
    provider section, it goes for GitHub and chatgpt.com (analytics at ab.chatgpt.com) at start-up. Fails when
    any of the analytics/plugins/apps switches is dropped. Which GitHub hosts a short run gets to name varies
    (its plugin fetch runs in the background; a CI run saw github.com without api.github.com), so one of them
    is enough."""
    binary = host_codex(monkeypatch)
    ours = _hosts_codex_names(binary, codex.config_toml("GATEWAY"), tmp_path / "on")
    provider_only = codex.config_toml("GATEWAY")
    provider_only = 'model_provider = "matchmeter"\n\n' + provider_only[provider_only.index("[model_providers"):]
    bare = _hosts_codex_names(binary, provider_only, tmp_path / "off")
    assert ours == set()
    assert "ab.chatgpt.com" in bare
    assert bare & {"github.com", "api.github.com"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_codex_reaching_for_other_hosts_is_refused_and_the_trial_still_ends(layer, tmp_path, backend, monkeypatch):
    """The switches off (the provider section only), Codex tries GitHub and chatgpt.com from inside the sandbox:
    the sandbox has no route but the gateway's forwarder, so those fail at once and the trial ends as usual,
    neither hung until the agent deadline nor scored as the agent's error."""
    config = codex.config_toml

    def provider_only(api_base: str | None) -> str:
        text = config(api_base)
        return 'model_provider = "matchmeter"\n\n' + text[text.index("[model_providers"):]

    monkeypatch.setattr(codex, "config_toml", provider_only)
    run = sim_trial(tmp_path, backend, "cleanup-old-tmp", "expert")
    result = run.outcome.result
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    assert run.outcome.trajectory.steps


# ------------------------------------------------------------------ Codex's custom tool, scripted


PATCH = "*** Begin Patch\n*** Add File: out.txt\n+seed-0\n*** End Patch\n"
SCRIPT = [{"text": "", "tool_calls": [{"id": "call_p", "type": "function", "function": {
              "name": "apply_patch", "arguments": json.dumps({"input": PATCH})}}]},
          {"text": "", "tool_calls": [{"id": "call_c", "type": "function", "function": {
              "name": "exec_command", "arguments": json.dumps({"cmd": "cat out.txt"})}}]},
          "out.txt holds the input."]


def test_codex_runs_its_freeform_apply_patch_through_the_gateway(tmp_path, monkeypatch):
    """Model gpt-5.5 makes Codex offer `apply_patch` as a custom (freeform) tool. The scripted upstream calls it
    (as the function the gateway made of it), Codex applies the patch and sends a custom_tool_call_output, which
    reaches the upstream as a tool message; then an exec_command. The local backend runs the wheel's binary
    (cli_path) through the gateway. Fails on the function-only wire: the upstream was offered no apply_patch."""
    requests: list[dict[str, Any]] = []

    def script(request: dict[str, Any]) -> Any:
        requests.append(request)
        return SCRIPT[len(requests) - 1]

    outcome, _calls = local_trial(tmp_path, monkeypatch, script, "openai/gpt-5.5",
                                  write_task(tmp_path / "tasks", steps=10, agent_s=240), "k-patch")
    result, trajectory = outcome.result, outcome.trajectory
    assert (result.failure_mode, result.error, result.reward) == ("none", None, 1.0)
    assert len(requests) == 3
    offered = {t["function"]["name"]: t["function"] for t in requests[0]["tools"]}
    assert offered["apply_patch"]["parameters"]["required"] == ["input"]
    assert "web_search" not in offered
    patch_result = requests[1]["messages"][-1]
    assert (patch_result["role"], patch_result["tool_call_id"]) == ("tool", "call_p")
    assert "Success. Updated the following files:\nA out.txt" in patch_result["content"]
    assert requests[1]["messages"][-2]["tool_calls"][0]["function"] == SCRIPT[0]["tool_calls"][0]["function"]
    assert "seed-0" in requests[2]["messages"][-1]["content"]
    assert [(s.tool_call or {}).get("name") for s in trajectory.steps] == ["apply_patch", None]
    assert trajectory.steps[0].tool_call["arguments"]["changes"][0]["kind"] == "add"
    assert (trajectory.steps[1].command, trajectory.steps[1].output) == ("cat out.txt", "seed-0\n")
    assert trajectory.final_message == "out.txt holds the input."
    assert len(trajectory.model_calls) == 3


def test_a_gateway_refusal_ends_codex_after_its_bounded_retries_as_budget_exceeded(tmp_path, monkeypatch):
    """A token budget that one request nearly fills: the gateway answers Codex's second request 402. Codex retries
    it as often as the adapter's config allows (RETRIES; its own defaults are larger), then ends its turn; the
    trial is budget_exceeded, not the agent's error, with the first call's tokens metered."""
    task_dir = write_task(tmp_path / "tasks", steps=10, agent_s=240)
    toml = task_dir / "task.toml"
    toml.write_text(toml.read_text().replace("steps = 10", "steps = 10\ntokens = 8000", 1))  # Codex's prompt: ~5k
    replies = [{"text": "", "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {
        "name": "exec_command", "arguments": json.dumps({"cmd": cmd})}}]} for i, cmd in enumerate(["ls", "ls data"])]
    outcome, stub_calls = local_trial(tmp_path, monkeypatch, [*replies, "done"], "openai/stub/scripted", task_dir,
                                      "k-402")
    assert stub_calls == 1
    result = outcome.result
    assert result.failure_mode == "budget_exceeded"
    assert "tokens budget exceeded" in (result.error or "")
    calls = [json.loads(line) for line in (tmp_path / "logs" / "gateway.jsonl").read_text().splitlines()]
    assert [c["status"] for c in calls] == [200] + [402] * (codex.RETRIES + 1)
    assert result.tokens.total == sum(c["tokens"]["input"] + c["tokens"]["output"] for c in calls) > 0
    assert [s.command for s in outcome.trajectory.steps] == ["ls"]


def test_an_unreachable_gateway_is_an_infra_error_in_seconds(tmp_path, monkeypatch):
    """Codex's endpoint refuses connections (a closed port stands in for a dead forwarder). By default Codex
    waits for it forever ("Reconnecting... waiting for network"), so the trial used to sit until the agent
    deadline and be scored agent_error ("ended without a single model call"); with `unbounded_connection_retries = false` it gives up after its
    retries, and a turn that failed to connect before any call reached the gateway is infra_error."""
    config_toml = codex.config_toml
    monkeypatch.setattr(codex, "config_toml", lambda api_base: config_toml("http://127.0.0.1:9/v1"))
    outcome, stub_calls = local_trial(tmp_path, monkeypatch, ["unused"], "openai/stub/scripted",
                                      write_task(tmp_path / "tasks", steps=10, agent_s=90), "k-dead")
    assert stub_calls == 0
    result = outcome.result
    assert result.failure_mode == "infra_error", result.error
    assert "codex could not connect to the model gateway (Connection failed" in (result.error or "")


def _matchmeter_run(out: Path, agent: str, persona: str, seeds: int) -> dict[tuple[str, int], tuple[dict, dict]]:
    """`matchmeter run` of both built-in tasks on bwrap: {(task, seed): (result.json, trajectory.json)}."""
    proc = run_matchmeter("run", "--agent", agent, "--model", f"sim/{persona}", "--backend", "bwrap", "--seeds",
                          seeds, *[a for t in TASKS for a in ("--task", t)], "--out", out, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SIMULATED" in proc.stdout
    runs = {}
    for execution in (out / "executions").iterdir():
        result = json.loads((execution / "result.json").read_text())
        runs[(result["task_id"], result["seed"])] = (result, json.loads((execution / "trajectory.json").read_text()))
    assert len(runs) == len(TASKS) * seeds
    return runs


@pytest.mark.bwrap
def test_sim_sloppy_plays_the_same_plan_through_codex_as_through_the_bash_agent(layer, tmp_path):
    """`matchmeter run --agent codex`, 3 seeds of both tasks: the commands Codex ran are the bash agent's
    (mistakes, corrections and skips included) and every reward is the same. A reply without a code block is an
    exec_command call without `cmd`: Codex answers it with its own validation error, which records no step."""
    codex_runs = _matchmeter_run(tmp_path / "codex", "codex", "sloppy", 3)
    bash_runs = _matchmeter_run(tmp_path / "bash", "bash", "sloppy", 3)
    assert sorted(codex_runs) == sorted(bash_runs)
    rewards, noformats = [], 0
    for key, (result, trajectory) in codex_runs.items():
        bash_result, bash_trajectory = bash_runs[key]
        assert [s["command"] for s in trajectory["steps"]] == [s["command"] for s in bash_trajectory["steps"]], key
        assert (result["reward"], result["failure_mode"]) == (bash_result["reward"], "none"), key
        assert result["trust_flags"][TRUST_FLAG] is True
        rewards.append(result["reward"])
        plan = build_plan(_builtin(key[0]), key[1], "sloppy", Description.original(_builtin(key[0])).text)
        assert len(trajectory["model_calls"]) == len(plan), key  # one request per plan item, calls without cmd too
        noformats += sum(a.kind == "noformat" for a in plan)
    assert noformats > 0
    assert 0 < sum(rewards) < len(rewards)  # the sloppy persona both fails and succeeds here
    _assert_no_secret_stored(tmp_path / "codex")


# ------------------------------------------------------------------ a multi-step Harbor task


@pytest.mark.parametrize("backend", BACKENDS)
def test_codex_solves_each_step_of_a_harbor_task_through_one_gateway_session(layer, backend):
    """tests/tasks/data/harbor-steps: Codex runs once per step with that step's instruction, in the same sandbox,
    under the execution's one gateway session (the forwarder restarted after step 1's verifier); the persona
    plans each step from its own solve.sh; both steps score 1.0, every call stamped with its step."""
    task = load_task(STEPS_TASK)
    outcome, gateway_log = steps_sim_trial(backend, task, "expert", 0, agent=AgentSpec(name="codex"))
    assert_both_steps_solved(outcome, gateway_log)
    trajectory = outcome.trajectory
    # Codex's own account of both runs agrees with the gateway's
    assert sum(c.tokens.total for c in trajectory.cli_model_calls) == outcome.result.tokens.total
