"""The model endpoint as one typed model (schema.ModelEndpoint): made once at the CLI, carried in the configuration
to the gateway; runs stored when its settings were string agent options still load, with the same digests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from matchmeter.runner.context import endpoint_resolver
from matchmeter.runner.executor import PlannedExecution
from matchmeter.runner.gateway_link import upstream_for
from matchmeter.runner.run import configuration_from_flags
from matchmeter.schema import (
    AgentSpec,
    Configuration,
    Description,
    ModelEndpoint,
    canonical_json,
    sha256_text,
)
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task
from tests.helpers.warm_cli import run_matchmeter

REACH = ("api_base", "api_key_env", "cache", "prices")  # the options the old digest left out


def legacy(options: dict[str, str], agent: str = "bash") -> dict:
    """A configuration as runs stored it before the endpoint had its own field."""
    return {"id": f"openai/coder+{agent}", "model": "openai/coder", "agent": {"name": agent, "version": "",
            "options": options}, "harness": {"approval_mode": "auto", "sandbox": "external", "flags": []},
            "contract": "raw", "transport": "raw"}


def legacy_digest(stored: dict) -> str:
    """The digest those runs computed (schema.Configuration.digest before ModelEndpoint), written out here."""
    data = json.loads(json.dumps(stored))
    data["agent"]["options"] = {k: v for k, v in data["agent"]["options"].items() if k not in REACH}
    return sha256_text(canonical_json(data))


def test_a_stored_configuration_with_endpoint_options_reads_into_the_endpoint_with_its_old_digest():
    stored = legacy({"api_base": "http://127.0.0.1:8000/v1", "api_key_env": "MY_KEY", "prices": "/p.toml",
                     "cache": "off", "trajectory": "/t.json", "temperature": "0.7", "timeout_s": "30",
                     "retry_attempts": "2", "cache_salt": "b"})
    config = Configuration.model_validate(stored)
    assert config.endpoint == ModelEndpoint(api_base="http://127.0.0.1:8000/v1", api_key_env="MY_KEY",
                                            prices="/p.toml", use_cache=False, temperature=0.7, timeout_s=30.0,
                                            retry_attempts=2, cache_salt="b")
    assert config.agent.options == {"trajectory": "/t.json"}  # the agent's own option stays the agent's
    assert config.digest() == legacy_digest(stored)
    assert Configuration.model_validate_json(config.model_dump_json()) == config  # the new form round-trips


def test_the_cli_made_configuration_keeps_the_digest_of_the_one_stored_before():
    """What `run --agent bash --model M --api-base U --api-key-env K --no-cache` made then and makes now hash alike,
    so `--resume` and `--reuse` find the executions an older matchmeter stored."""
    stored = legacy({"api_base": "http://h/v1", "api_key_env": "K", "cache": "off"})
    made = configuration_from_flags("bash", "openai/coder", endpoint=ModelEndpoint(api_base="http://h/v1",
                                                                                   api_key_env="K", use_cache=False))
    assert made.digest() == legacy_digest(stored) == Configuration.model_validate(stored).digest()


def test_where_a_model_is_reached_is_not_in_the_digest_how_it_is_sampled_is():
    base = configuration_from_flags("bash", "openai/coder")
    elsewhere = configuration_from_flags("bash", "openai/coder", endpoint=ModelEndpoint(
        api_base="http://other/v1", api_key_env="K2", prices="/q.toml", use_cache=False))
    assert elsewhere.digest() == base.digest()
    for changed in (ModelEndpoint(temperature=0.5), ModelEndpoint(max_tokens=64), ModelEndpoint(cache_salt="x")):
        assert configuration_from_flags("bash", "openai/coder", endpoint=changed).digest() != base.digest()


def test_endpoint_settings_in_agent_options_are_refused():
    with pytest.raises(ValidationError, match="agent option 'api_base' is a model endpoint setting"):
        AgentSpec(name="bash", options={"api_base": "http://h/v1"})
    with pytest.raises(ValidationError, match="both in agent.options and in endpoint"):
        Configuration.model_validate({**legacy({"api_base": "http://h/v1"}), "endpoint": {"api_key_env": "K"}})
    with pytest.raises(ValidationError, match="timeout_s"):
        Configuration.model_validate(legacy({"timeout_s": "soon"}))


def test_the_gateway_gets_the_configurations_endpoint_or_the_executions(tmp_path):
    task = load_task(write_task(tmp_path / "tasks"))
    endpoint = ModelEndpoint(api_base="http://h/v1", api_key_env="K", retry_attempts=2, cache_salt="s")
    config = configuration_from_flags("bash", "openai/coder", endpoint=endpoint)
    upstream = upstream_for(config, task, 3, 1)
    assert (upstream.model, upstream.endpoint, upstream.salt) == ("openai/coder", endpoint, f"{task.id}:3:1:s")
    routed = endpoint.model_copy(update={"api_base": "http://stub/sim/t/3/v1"})
    assert upstream_for(config, task, 3, 1, routed).endpoint == routed
    # The executor's endpoint_for: a sim model's base URL is the stub's path for the task and seed, the rest of
    # its endpoint is the configuration's; any other model keeps its configuration's endpoint.
    sim = configuration_from_flags("bash", "sim/expert", endpoint=ModelEndpoint(use_cache=False))
    desc = Description.original(task)
    endpoint_for = endpoint_resolver("http://127.0.0.1:5")
    item = PlannedExecution(key="k", configuration=sim, task=task, description=desc, seed=2, attempt=0)
    assert endpoint_for(item) == ModelEndpoint(use_cache=False, api_base=f"http://127.0.0.1:5/sim/{task.id}/2/v1")
    plain = PlannedExecution(key="k", configuration=config, task=task, description=desc, seed=2, attempt=0)
    assert endpoint_for(plain) is endpoint


def _to_legacy(path: Path) -> None:
    """Rewrite a stored configuration the way an older matchmeter wrote it (endpoint settings as agent options)."""
    data = json.loads(path.read_text())
    configs = data["configurations"] if "configurations" in data else [data["configuration"]]
    for c in configs + data.get("request", {}).get("configurations", []):
        endpoint = c.pop("endpoint")
        c["agent"]["options"].update({"api_base": endpoint["api_base"], "cache": "off"})
    path.write_text(json.dumps(data))


def test_a_run_stored_before_the_endpoint_field_resumes_without_rerunning(tmp_path):
    """The CLI parses --api-base/--no-cache into the stored configuration's endpoint; a run whose manifest and
    results hold them the old way (agent options) resumes with nothing to redo, and its results still load."""
    tasks, out = tmp_path / "tasks", tmp_path / "run"
    write_task(tasks)
    args = ("run", "--tasks", str(tasks), "--agent", "oracle", "--backend", "local", "--out", str(out), "--quiet",
            "--api-base", "http://127.0.0.1:9/v1", "--no-cache")
    first = run_matchmeter(*args)
    assert first.returncode == 0, first.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    [stored] = manifest["configurations"]
    assert stored["endpoint"]["api_base"] == "http://127.0.0.1:9/v1"
    assert stored["endpoint"]["use_cache"] is False
    assert stored["agent"]["options"] == {}
    _to_legacy(out / "manifest.json")
    for result in out.glob("executions/*/result.json"):
        _to_legacy(result)
    again = run_matchmeter(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert "executed 0, skipped (already stored) 1" in " ".join(again.stdout.split())
