"""The in-sandbox egress forwarder: TCP inside the sandbox → the gateway's Unix socket, and nothing else.

Plain subprocess; a real bwrap sandbox with a private network namespace (`--unshare-net`) and the
socket bound in by a test-only bwrap invocation (what the backends will do); and the harness-side
`start_egress_forwarder` helper against a real local sandbox.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from matchmeter.errors import SandboxError
from matchmeter.llm.gateway import Gateway, Upstream
from matchmeter.llm.stub_server import StubServer
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.sandbox import egress_forwarder as fwd
from matchmeter.schema import ModelEndpoint

SCRIPT = Path(fwd.__file__)
MSGS = [{"role": "user", "content": "hi"}]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def door(tmp_path):
    """(gateway on a Unix socket only, a session, the stub behind it)."""
    with StubServer(["one", "two", "three"]) as stub, Gateway(socket_path=tmp_path / "gw.sock", tcp=False) as gw:
        session = gw.open_session("exec-fwd", Upstream(model="stub/scripted", cache_dir=tmp_path / "cache",
                                                       endpoint=ModelEndpoint(api_base=stub.api_base, use_cache=False)))
        yield gw, session, stub


def test_forwarder_subprocess_carries_plain_and_streaming_requests(door, tmp_path):
    import openai

    gw, session, stub = door
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--listen", "127.0.0.1:0", "--socket",
                             str(gw.socket_path), "--ready", str(ready)])
    try:
        for _ in range(100):
            if ready.exists() and ready.read_text():
                break
            time.sleep(0.05)
        port = int(ready.read_text())
        sdk = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=session.token, max_retries=0)
        assert sdk.chat.completions.create(model="m", messages=MSGS).choices[0].message.content == "one"
        streamed = sdk.chat.completions.create(model="m", messages=MSGS, stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == "two"
    finally:
        proc.terminate()
        proc.wait(10)
    assert [c.status for c in session.meter.calls] == [200, 200]
    assert stub.stats.http_calls == 2


CLIENT = """
import json, sys, urllib.request, urllib.error
port, token, stub_port = sys.argv[1], sys.argv[2], sys.argv[3]
out = {}
req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", method="POST",
    data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
    headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
out["reply"] = json.load(urllib.request.urlopen(req, timeout=20))["choices"][0]["message"]["content"]
try:
    urllib.request.urlopen(f"http://127.0.0.1:{stub_port}/v1/models", timeout=3)
    out["host_loopback"] = "reached"
except (urllib.error.URLError, OSError) as exc:
    out["host_loopback"] = type(exc).__name__
print(json.dumps(out))
"""


@pytest.mark.bwrap
def test_bwrap_private_netns_reaches_only_the_gateway(door, tmp_path):
    gw, session, stub = door
    (tmp_path / "client.py").write_text(CLIENT)
    # The base interpreter, not the venv's: the sandbox's tmpfs /tmp hides a checkout (and its .venv) under /tmp.
    python = getattr(sys, "_base_executable", sys.executable)
    inner = (f"{python} {fwd.IN_SANDBOX_SCRIPT} --listen 127.0.0.1:{fwd.DEFAULT_PORT} "
             f"--ready /tmp/ready & "
             "for i in $(seq 100); do [ -s /tmp/ready ] && break; sleep 0.05; done; "
             f"{python} /tmp/client.py {fwd.DEFAULT_PORT} {session.token} {stub.port}")
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
            "--ro-bind", str(SCRIPT), fwd.IN_SANDBOX_SCRIPT, "--ro-bind", str(tmp_path / "client.py"), "/tmp/client.py",
            "--bind", str(gw.socket_path), fwd.IN_SANDBOX_SOCKET,
            "--unshare-all", "--die-with-parent", "bash", "-c", inner]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["reply"] == "one"
    assert out["host_loopback"] == "URLError"  # the host's loopback stub is not reachable from the netns
    assert stub.stats.requests == 1  # only the gateway's forwarded call arrived
    assert stub.stats.http_calls == 1


def test_start_egress_forwarder_in_a_local_sandbox_returns_a_working_base_url(door, tmp_path):
    gw, session, _ = door
    backend = get_backend("local")
    env_dir = tmp_path / "env"
    env_dir.mkdir()
    sandbox = backend.create(SandboxRequest(task_id="fwd", environment_dir=env_dir, label="fwd-test"))
    try:
        port = _free_port()
        base = fwd.start_egress_forwarder(sandbox, socket_path=str(gw.socket_path), port=port, python=sys.executable)
        assert base == f"http://127.0.0.1:{port}"
        call = sandbox.exec(
            f"curl -s -H 'Authorization: Bearer {session.token}' -H 'Content-Type: application/json' "
            f"-d '{json.dumps({'messages': MSGS})}' {base}/v1/chat/completions", 30)
        assert json.loads(call.output)["choices"][0]["message"]["content"] == "one"
    finally:
        sandbox.destroy()


def test_the_forwarder_restarts_from_a_work_dir_after_a_restart(door, tmp_path):
    """A later step of a multi-step task: the sandbox was restarted (the forwarder died with the agent) and
    $MM_LOGS is no longer the agent's, so the script travels in the command into a dir the agent owns."""
    gw, session, _ = door
    env_dir = tmp_path / "env"
    env_dir.mkdir()
    sandbox = get_backend("local").create(SandboxRequest(task_id="fwd", environment_dir=env_dir, label="fwd-test"))
    try:
        port = _free_port()
        fwd.start_egress_forwarder(sandbox, socket_path=str(gw.socket_path), port=port, python=sys.executable)
        sandbox.restart()
        work_dir = sandbox.exec("mktemp -d", 30).output.strip()
        base = fwd.start_egress_forwarder(sandbox, socket_path=str(gw.socket_path), port=port, python=sys.executable,
                                          work_dir=work_dir)
        assert sandbox.exec(f"cmp {work_dir}/.mm-egress-forwarder.py {SCRIPT}", 30).exit_code == 0
        assert sandbox.exec('ls -A "$MM_LOGS"', 30).output.strip() == ""  # nothing of it in the logs dir
        call = sandbox.exec(
            f"curl -s -H 'Authorization: Bearer {session.token}' -H 'Content-Type: application/json' "
            f"-d '{json.dumps({'messages': MSGS})}' {base}/v1/chat/completions", 30)
        assert json.loads(call.output)["choices"][0]["message"]["content"] == "one"
        sandbox.exec(f"rm -rf {work_dir}", 30)
    finally:
        sandbox.destroy()


def test_two_local_sandboxes_on_the_hosts_loopback_get_distinct_forwarder_ports(door, tmp_path):
    """The local backend shares the host's network: a fixed port made the second of two concurrent trials fail
    with 'Address already in use' (CI stop 45). Port 0 binds a free port and the base URL names it; both work,
    and a port already taken makes the start fail loudly, not hand back a URL to someone else's listener."""
    gw, session, _ = door
    sandboxes = []
    try:
        bases = []
        for i in range(2):
            env_dir = tmp_path / f"env{i}"
            env_dir.mkdir()
            sandboxes.append(get_backend("local").create(
                SandboxRequest(task_id="fwd", environment_dir=env_dir, label=f"fwd-{i}")))
            bases.append(fwd.start_egress_forwarder(sandboxes[-1], socket_path=str(gw.socket_path), port=0,
                                                    python=sys.executable))
        ports = [int(b.rpartition(":")[2]) for b in bases]
        assert ports[0] != ports[1]
        assert 0 not in ports
        replies = []
        for sandbox, base in zip(sandboxes, bases, strict=True):
            call = sandbox.exec(
                f"curl -s -H 'Authorization: Bearer {session.token}' -H 'Content-Type: application/json' "
                f"-d '{json.dumps({'messages': MSGS})}' {base}/v1/chat/completions", 30)
            replies.append(json.loads(call.output)["choices"][0]["message"]["content"])
        assert replies == ["one", "two"]
        with pytest.raises(SandboxError, match="Address already in use"):
            fwd.start_egress_forwarder(sandboxes[0], socket_path=str(gw.socket_path), port=ports[1],
                                       python=sys.executable)
    finally:
        for sandbox in sandboxes:
            sandbox.destroy()
