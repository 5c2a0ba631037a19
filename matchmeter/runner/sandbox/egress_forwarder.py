"""The sandbox's only way out: a TCP listener inside the sandbox piped to the gateway's Unix socket.

Run inside the sandbox's private network namespace (stdlib only, Python >= 3.8, no matchmeter import):

    python3 egress_forwarder.py --listen 127.0.0.1:PORT --socket /run/matchmeter/gateway.sock [--ready FILE]

Every accepted TCP connection is connected to the Unix socket (bind-mounted into the sandbox by the
backend) and bytes are copied both ways until each side closes, so HTTP, keep-alive and SSE pass
unchanged; the gateway authenticates each request by its per-execution token. `--ready FILE` is
written (with the bound port) once the listener is bound; port 0 takes any free one. The module also
holds `start_egress_forwarder`, the harness-side helper that copies this file into a sandbox, starts
it in the background and returns the base URL.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matchmeter.runner.sandbox import Sandbox

IN_SANDBOX_SOCKET = "/run/matchmeter/gateway.sock"  # where backends bind the gateway's socket
IN_SANDBOX_SCRIPT = "/run/matchmeter/egress_forwarder.py"  # where backends may bind this file read-only
DEFAULT_PORT = 18080
CHUNK = 65536


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    """Copy until EOF, then half-close the destination so the peer sees the end of the request/reply."""
    try:
        while True:
            data = src.recv(CHUNK)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _serve_one(client: socket.socket, socket_path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError as exc:
        sys.stderr.write(f"egress forwarder: cannot reach the gateway at {socket_path}: {exc}\n")
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
    back.start()
    _pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve(listen: str, socket_path: str, ready: str | None = None) -> None:
    host, _, port = listen.rpartition(":")
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host or "127.0.0.1", int(port)))
    server.listen(128)
    if ready:
        Path(ready).write_text(str(server.getsockname()[1]))
    while True:
        client, _ = server.accept()
        threading.Thread(target=_serve_one, args=(client, socket_path), daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Pipe TCP connections to the matchmeter gateway's Unix socket.")
    parser.add_argument("--listen", default=f"127.0.0.1:{DEFAULT_PORT}", help="host:port to accept on")
    parser.add_argument("--socket", default=IN_SANDBOX_SOCKET, help="the gateway's Unix socket")
    parser.add_argument("--ready", default=None, help="file written (with the port) once listening")
    args = parser.parse_args(argv)
    serve(args.listen, args.socket, args.ready)
    return 0


def start_egress_forwarder(sandbox: Sandbox, *, socket_path: str = IN_SANDBOX_SOCKET, port: int = DEFAULT_PORT,
                           python: str = "python3", script_path: str | None = None, timeout_s: float = 10.0,
                           work_dir: str | None = None) -> str:
    """Start the forwarder in the sandbox's background and return the in-sandbox base URL.

    The backend must already have bound the gateway's socket at `socket_path`. `script_path` names a
    copy of this file the backend already placed (read-only bind at IN_SANDBOX_SCRIPT); when None, the
    file is uploaded to `$MM_LOGS/.mm-egress-forwarder.py` (a shared dir on every backend; the trial
    empties it before verifying, which does not stop the running process). `work_dir`: a directory the
    agent's identity may write (a later step of a multi-step task: after a verifier $MM_LOGS is the
    verifier's alone and takes no upload for the agent); the script then travels inside the command and,
    with its ready file and log, goes there. `port` 0 binds any free port (a sandbox that shares the
    host's network, where a fixed port would collide with a concurrent trial). Returns
    `http://127.0.0.1:<bound port>` (OpenAI clients append /v1; Anthropic clients use it as is).

    Raises:
        SandboxError: the forwarder did not start listening within `timeout_s`.
    """
    import base64
    import shlex

    from matchmeter.errors import SandboxError

    q = shlex.quote
    prepare = ""
    if work_dir is not None:
        logs = work_dir
        if script_path is None:
            script_path = f"{work_dir}/.mm-egress-forwarder.py"
            packed = base64.b64encode(Path(__file__).read_bytes()).decode()
            prepare = f"mkdir -p {q(work_dir)} && printf %s {packed} | base64 -d > {q(script_path)} && "
    else:
        logs = sandbox.exec('printf %s "$MM_LOGS"', 30).output.strip()
    if script_path is None:
        script_path = f"{logs}/.mm-egress-forwarder.py"
        sandbox.upload(Path(__file__), script_path)
    state = f"{logs}/.mm-egress-{port}"  # ready file and log; inside the sandbox's own dirs on every backend
    ready = f"{state}.ready"
    start = (f"{prepare}rm -f {q(ready)}; nohup {q(python)} {q(script_path)} --listen 127.0.0.1:{port} "
             f"--socket {q(socket_path)} --ready {q(ready)} > {q(state)}.log 2>&1 < /dev/null &")
    wait = (f"i=0; while [ ! -s {q(ready)} ] && [ $i -lt {int(timeout_s * 10)} ]; do sleep 0.1; i=$((i+1)); done; "
            f"[ -s {q(ready)} ] || {{ cat {q(state)}.log; exit 1; }}; printf '\\n%s' \"$(cat {q(ready)})\"")
    result = sandbox.exec(f"{start} {wait}", timeout_s + 5)
    bound = result.output.strip().rpartition("\n")[2].strip()
    if result.exit_code != 0 or not bound.isdigit():
        raise SandboxError(f"the egress forwarder did not start in the sandbox: {result.output.strip()[-300:]}")
    return f"http://127.0.0.1:{int(bound)}"


if __name__ == "__main__":
    raise SystemExit(main())
