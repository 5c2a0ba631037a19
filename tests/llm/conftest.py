"""Fixtures for the LM layer: a scripted stub server and a client with tiny retry waits."""

from __future__ import annotations

import pytest

from matchmeter.llm.client import LMClient, RetryPolicy
from matchmeter.llm.stub_server import StubServer

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
