"""A real CLI (mini-swe-agent from PyPI) through the model gateway: the in-sandbox forwarder, the token as
its only key, the gateway's metering as the trajectory's model calls, and the CLI's own report beside it."""

from __future__ import annotations

import socket

import pytest

from matchmeter.llm.gateway import Gateway
from matchmeter.llm.stub_server import StubServer
from tests.helpers.clis import machine_clis_dir
from tests.helpers.gateway import run_through_gateway
from tests.runner.adapters.test_live_cli import MINI_REPLIES, expected_cost_usd, expected_tokens

pytestmark = [pytest.mark.live_cli, pytest.mark.slow]


@pytest.fixture
def mini_installed(monkeypatch):
    from matchmeter.runner.agents.adapters.install import ensure_installed

    root = machine_clis_dir()
    ensure_installed("mini-swe-agent", "2.4.6", "mini", root)
    monkeypatch.setenv("MATCHMETER_CLIS_DIR", str(root))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Through the in-sandbox forwarder and the gateway's Unix socket (bound by bwrap; the host path under local),
# with no network at all under bwrap.
@pytest.mark.parametrize("backend", ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_mini_swe_agent_through_the_gateway_is_metered_at_the_door(mini_installed, tmp_path, monkeypatch, backend):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-HOST-KEY-0d9a2b")  # must never reach the CLI
    with StubServer(MINI_REPLIES) as stub, Gateway(socket_path=tmp_path / "gw.sock") as gateway:
        run = run_through_gateway(tmp_path, gateway, "mini-swe-agent", stub, model="openai/stub/scripted",
                                  backend=backend, forwarder_port=_free_port(), agent_s=240)
        usages = stub.stats.usages
        assert stub.stats.authorized_calls == len(MINI_REPLIES)
    assert run.failure is None, run.session.agent_output[-2000:]
    assert run.out_txt.strip() == "seed-0"
    trajectory = run.session.trajectory
    assert [c.tokens for c in trajectory.model_calls] == [expected_tokens(u) for u in usages]
    assert [c.cost.usd for c in trajectory.model_calls] == [expected_cost_usd(expected_tokens(u)) for u in usages]
    assert trajectory.reported_models == ["stub/scripted"]  # the gateway's "model answered"
    # mini's own log reports the same usage the gateway metered: kept beside it, no disagreement
    assert [c.tokens for c in trajectory.cli_model_calls] == [c.tokens for c in trajectory.model_calls]
    assert trajectory.metering_disagreements == []
    assert "sk-live-HOST-KEY" not in run.session.agent_output
    assert len(trajectory.steps) == 3
