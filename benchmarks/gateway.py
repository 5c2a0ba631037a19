"""Benchmark: what the model gateway adds per call, and the calls/s it sustains for 16 executions.

Run: `.venv/bin/python benchmarks/gateway.py [--calls 200] [--executions 16] [--per-execution 25]`.

Latency (same run, interleaved so machine load hits every path alike; cache off everywhere):
  direct-http   one POST straight to the loopback stub (httpx, keep-alive)
  direct-client `LMClient.complete` to the stub: what the bash agent did before the gateway
  gateway       one POST to the gateway (token, TCP loopback), which forwards through LMClient to the stub
  direct-stream `LMClient.stream` to the stub (SSE, usage from the final chunk), read to the end
  gateway-stream one streamed POST to the gateway, SSE relayed delta by delta, read to the end
Prints the median of each and the median added latency of the gateway over the direct paths, plain and
streamed (`--no-stream` skips the streamed pair).
Throughput: `--executions` sessions, one thread each, each making `--per-execution` sequential calls
through the gateway at once; prints calls/s over the whole wall time and the p50/p95 call latency.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from matchmeter.llm.client import LMClient  # noqa: E402
from matchmeter.llm.gateway import Gateway, Upstream  # noqa: E402
from matchmeter.llm.stub_server import StubServer  # noqa: E402

MESSAGES = [{"role": "system", "content": "You run shell commands."},
            {"role": "user", "content": "List the files in the working directory, please."}]
REPLY = "THOUGHT: list them.\n\n```bash\nls -la\n```"


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _read_stream(http: httpx.Client, url: str, body: dict, auth: dict) -> None:  # type: ignore[type-arg]
    with http.stream("POST", url, json={**body, "stream": True}, headers=auth) as response:
        response.raise_for_status()
        for _ in response.iter_bytes():
            pass


def latency(stub: StubServer, gateway: Gateway, cache_dir: Path, calls: int, streamed: bool = True) \
        -> dict[str, list[float]]:
    session = gateway.open_session("bench-latency", Upstream(model="stub/scripted", api_base=stub.api_base,
                                                               use_cache=False, cache_dir=cache_dir))
    client = LMClient("stub/scripted", api_base=stub.api_base, use_cache=False, cache_dir=cache_dir)
    body = {"model": "stub/scripted", "messages": MESSAGES}
    auth = {"Authorization": f"Bearer {session.token}"}
    out: dict[str, list[float]] = {"direct-http": [], "direct-client": [], "gateway": []}
    if streamed:
        out.update({"direct-stream": [], "gateway-stream": []})
    url = f"{gateway.url}/v1/chat/completions"
    with httpx.Client(timeout=30) as http:
        for _ in range(5):  # warm-up: litellm import, connection pools
            client.complete(MESSAGES)
            http.post(url, json=body, headers=auth).raise_for_status()
            if streamed:
                client.stream(MESSAGES, lambda _t, _m: None)
                _read_stream(http, url, body, auth)
        for _ in range(calls):
            out["direct-http"].append(_timed(lambda: http.post(f"{stub.api_base}/chat/completions", json=body)
                                             .raise_for_status()))
            out["direct-client"].append(_timed(lambda: client.complete(MESSAGES)))
            out["gateway"].append(_timed(lambda: http.post(f"{gateway.url}/v1/chat/completions", json=body,
                                                           headers=auth).raise_for_status()))
            if streamed:
                out["direct-stream"].append(_timed(lambda: client.stream(MESSAGES, lambda _t, _m: None)))
                out["gateway-stream"].append(_timed(lambda: _read_stream(http, url, body, auth)))
    client.close()
    meter = gateway.close_session(session)
    assert len(meter.answered) == (calls + 5) * (2 if streamed else 1), "every gateway call must be metered"
    assert all(c.tokens.total > 0 for c in meter.answered), "streamed calls must be metered from the usage chunk"
    return out


def throughput(stub: StubServer, gateway: Gateway, cache_dir: Path, executions: int, per_execution: int) \
        -> tuple[float, list[float]]:
    sessions = [gateway.open_session(f"bench-{i}", Upstream(model="stub/scripted", api_base=stub.api_base,
                                                           use_cache=False, cache_dir=cache_dir))
                for i in range(executions)]
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(executions + 1)

    def run(token: str) -> None:
        mine = []
        with httpx.Client(timeout=60) as http:
            start.wait()
            for _ in range(per_execution):
                mine.append(_timed(lambda: http.post(f"{gateway.url}/v1/chat/completions",
                                                     json={"model": "m", "messages": MESSAGES},
                                                     headers={"Authorization": f"Bearer {token}"}).raise_for_status()))
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=run, args=(s.token,)) for s in sessions]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    metered = sum(len(gateway.close_session(s).answered) for s in sessions)
    assert metered == executions * per_execution, "every call of every execution must be metered"
    return metered / wall, latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--executions", type=int, default=16)
    parser.add_argument("--per-execution", type=int, default=25)
    parser.add_argument("--no-stream", action="store_true", help="Skip the streamed pair.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mm-gw-bench-") as tmp, StubServer(lambda _req: REPLY) as stub, \
            Gateway(socket_path=Path(tmp) / "gw.sock") as gateway:
        lat = latency(stub, gateway, Path(tmp) / "cache", args.calls, streamed=not args.no_stream)
        med = {k: statistics.median(v) * 1000 for k, v in lat.items()}
        for name, value in med.items():
            print(f"median latency {name:14s} {value:8.2f} ms  (n={len(lat[name])})")
        print(f"gateway adds {med['gateway'] - med['direct-http']:.2f} ms per call over direct HTTP to the stub, "
              f"{med['gateway'] - med['direct-client']:.2f} ms over the in-process LMClient path")
        if not args.no_stream:
            print(f"streamed: gateway adds {med['gateway-stream'] - med['direct-stream']:.2f} ms per call over "
                  f"LMClient.stream (plain: {med['gateway'] - med['direct-client']:.2f} ms)")
        rate, lats = throughput(stub, gateway, Path(tmp) / "cache", args.executions, args.per_execution)
        lats.sort()
        print(f"{args.executions} concurrent executions x {args.per_execution} calls: {rate:.1f} calls/s sustained, "
              f"p50 {lats[len(lats) // 2] * 1000:.1f} ms, p95 {lats[int(len(lats) * 0.95)] * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
