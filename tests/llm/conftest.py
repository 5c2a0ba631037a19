"""Fixtures for the LM layer: a scripted stub server and a client with tiny retry waits."""

from __future__ import annotations

import pytest

from matchmeter.llm.client import LMClient, RetryPolicy
from matchmeter.llm.gateway import Gateway, Upstream
from matchmeter.llm.stub_server import StubServer
from matchmeter.schema import ModelEndpoint

FAST_RETRY = RetryPolicy(attempts=3, wait_initial_s=0.01, wait_max_s=0.02)


@pytest.fixture
def make_stub():
    servers: list[StubServer] = []

    def make(script=None, **kwargs) -> StubServer:
        stub = StubServer(script, **kwargs).start()
        servers.append(stub)
        return stub

    yield make
    for stub in servers:
        stub.stop()


@pytest.fixture
def make_client(tmp_path):
    clients: list[LMClient] = []

    def make(stub: StubServer, model: str = "stub/scripted", **kwargs) -> LMClient:
        kwargs.setdefault("retry", FAST_RETRY)
        kwargs.setdefault("cache_dir", tmp_path / "cache")
        kwargs.setdefault("timeout_s", 5.0)
        client = LMClient(model, api_base=stub.api_base, **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def gateway(tmp_path):
    with Gateway(socket_path=tmp_path / "gw.sock") as gw:
        yield gw


@pytest.fixture
def upstream(tmp_path):
    """The gateway's upstream for a stub: its scripted model, tiny retry waits, a cache under tmp_path."""

    def make(stub: StubServer, timeout_s: float = 5, salt: str = "", **endpoint) -> Upstream:
        return Upstream(model="stub/scripted", salt=salt, cache_dir=tmp_path / "cache", endpoint=ModelEndpoint(
            api_base=stub.api_base, retry_wait_s=0.01, timeout_s=timeout_s, **endpoint))

    return make
