"""Benchmark: what the model gateway adds per call, and the calls/s it passes at 16 concurrent, per path.

Run: `.venv/bin/python benchmarks/gateway.py [--calls 200] [--executions 16] [--per-execution 40] [--rounds 3]`.

Separate processes, as in a run: the upstream (llm/canned_upstream.py, a fast canned OpenAI-compatible server), the
gateway (this file with --serve-gateway: one Gateway on loopback TCP, sessions opened for both paths), a bare
aiohttp relay (--serve-relay: server + one pooled client forwarding the bytes, with no session, metering or check:
the floor any aiohttp-based gateway pays on this machine, measured beside it) and the client (this process).
Cache off everywhere. Two gateway paths, to the same upstream and model (stub/canned):
    pass-through   the request forwarded as it is on the gateway's event loop (llm/gateway_passthrough.py)
    translated     the same request through litellm in the gateway's thread pool (Upstream(passthrough=False))
Latency: for each of --calls rounds, one call direct to the upstream and one through each path, in a shuffled
order (so machine load hits every path alike), plain and streamed (SSE read to the end); the added latency of a
path is the median over rounds of (its call - that round's direct call).
Throughput: --executions concurrent clients (one gateway session each) making --per-execution sequential calls;
calls/s over the wall time, direct and per path, in --rounds interleaved rounds; the ratio of a path is the
median over rounds of (path calls/s / that round's direct calls/s). The gateway checks at the end that every
call it answered was metered with tokens. CPU per call of the upstream and gateway processes (from /proc) is
printed too: on a shared, loaded machine it is steadier than wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MODEL = "stub/canned"
MESSAGES = [{"role": "system", "content": "You run shell commands."},
            {"role": "user", "content": "List the files in the working directory, please."}]
PATHS = ("pass-through", "translated")
RELAY = "relay floor"  # a bare aiohttp relay, no matchmeter in it: the transport's own cost (serve_relay)


# ---------------------------------------------------------------------- the gateway process


def serve_gateway(api_base: str, sessions: int, out: Path) -> int:
    """Open `sessions` + 1 sessions per path, write their tokens to `out`, serve until stdin closes, then print
    what each path metered (JSON) and exit."""
    from matchmeter.atomicfile import atomic_write_text
    from matchmeter.llm.gateway import Gateway, Upstream
    from matchmeter.schema import ModelEndpoint

    with Gateway(tcp=True) as gateway:
        opened = {path: [gateway.open_session(f"{path}-{i}", Upstream(
            model=MODEL, passthrough=path == "pass-through",
            endpoint=ModelEndpoint(api_base=api_base, use_cache=False))) for i in range(sessions + 1)]
            for path in PATHS}
        atomic_write_text(out, json.dumps({"url": gateway.url, **{p: [s.token for s in ss] for p, ss in opened.items()}}))
        sys.stdin.read()
        calls = {p: [c for s in ss for c in gateway.close_session(s).calls] for p, ss in opened.items()}
    print(json.dumps({p: {"answered": sum(c.status == 200 for c in cs), "failed": sum(c.status != 200 for c in cs),
                          "metered": sum(c.status == 200 and c.tokens.total > 0 for c in cs)}
                      for p, cs in calls.items()}), flush=True)
    return 0


def serve_relay(api_base: str, out: Path) -> int:
    """The floor: a bare aiohttp relay (server + one pooled client, the transport the pass-through path uses) that
    forwards each chat request to the upstream and returns its bytes, with no session, metering or check at all.
    What the gateway costs beyond it is matchmeter's; what it costs is aiohttp's on this machine."""
    import aiohttp
    from aiohttp import web

    from matchmeter.atomicfile import atomic_write_text

    async def main() -> None:
        http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

        async def relay(request: web.Request) -> web.Response:
            async with http.post(f"{api_base}/chat/completions", data=await request.read(),
                                 headers={"Content-Type": "application/json"}) as up:
                return web.Response(body=await up.read(), status=up.status, content_type="application/json")

        app = web.Application()
        app.add_routes([web.post("/v1/chat/completions", relay)])
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        atomic_write_text(out, f"http://127.0.0.1:{port}/v1/chat/completions")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await runner.cleanup()
        await http.close()

    asyncio.run(main())
    return 0


# ---------------------------------------------------------------------- the client


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process used so far: what a call costs it, whatever the machine's load."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_file(path: Path, proc: subprocess.Popen, what: str) -> str:
    deadline = time.monotonic() + 120
    while not path.exists() or not path.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the {what} process did not start (exit {proc.poll()})")
        time.sleep(0.05)
    return path.read_text()


def latency(targets: dict[str, tuple[str, str | None]], calls: int, stream: bool) -> dict[str, list[float]]:
    """Per round: one call to each target in a shuffled order; seconds per call."""
    import httpx

    body = {"model": "agent-model", "messages": MESSAGES, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    out: dict[str, list[float]] = {name: [] for name in targets}
    with httpx.Client(timeout=60) as http:
        def one(url: str, token: str | None) -> float:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            t0 = time.perf_counter()
            with http.stream("POST", url, json=body, headers=headers) as response:
                response.raise_for_status()
                for _ in response.iter_raw():
                    pass
            return time.perf_counter() - t0

        for _ in range(10):  # warm-up: connections, first-call paths
            for url, token in targets.values():
                one(url, token)
        for _ in range(calls):
            order = list(targets.items())
            random.shuffle(order)
            for name, (url, token) in order:
                out[name].append(one(url, token))
    return out


async def _throughput(url: str, tokens: list[str | None], per_execution: int) -> float:
    import aiohttp

    body = json.dumps({"model": "agent-model", "messages": MESSAGES}).encode()

    async def execution(http: aiohttp.ClientSession, token: str | None) -> None:
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        for _ in range(per_execution):
            async with http.post(url, data=body, headers=headers) as response:
                assert response.status == 200, await response.text()
                await response.read()

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        await asyncio.gather(*(execution(http, tokens[0]) for _ in range(2)))  # warm-up
        t0 = time.perf_counter()
        await asyncio.gather(*(execution(http, token) for token in tokens))
        return len(tokens) * per_execution / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="Latency rounds (each: direct + both paths).")
    parser.add_argument("--executions", type=int, default=16)
    parser.add_argument("--per-execution", type=int, default=40, help="Sequential calls per execution (pass-through "
                        "and direct; the translated path makes a quarter as many: it is ~30x slower).")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-stream", action="store_true", help="Skip the streamed latency rounds.")
    parser.add_argument("--serve-gateway", nargs=3, metavar=("API_BASE", "SESSIONS", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--serve-relay", nargs=2, metavar=("API_BASE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_gateway:
        return serve_gateway(args.serve_gateway[0], int(args.serve_gateway[1]), Path(args.serve_gateway[2]))
    if args.serve_relay:
        return serve_relay(args.serve_relay[0], Path(args.serve_relay[1]))

    with tempfile.TemporaryDirectory(prefix="mm-gw-bench-") as tmp:
        port_file, tokens_file, relay_file = Path(tmp) / "port", Path(tmp) / "tokens.json", Path(tmp) / "relay"
        upstream = subprocess.Popen([sys.executable, "-m", "matchmeter.llm.canned_upstream", "--port-file",
                                     str(port_file)])
        gateway = relay = None
        try:
            api_base = f"http://127.0.0.1:{_wait_file(port_file, upstream, 'upstream')}/v1"
            gateway = subprocess.Popen([sys.executable, __file__, "--serve-gateway", api_base, str(args.executions),
                                        str(tokens_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            info = json.loads(_wait_file(tokens_file, gateway, "gateway"))
            gw = f"{info['url']}/v1/chat/completions"
            relay = subprocess.Popen([sys.executable, __file__, "--serve-relay", api_base, str(relay_file)],
                                     stdin=subprocess.PIPE, text=True)
            relay_url = _wait_file(relay_file, relay, "relay")
            targets = {"direct": (f"{api_base}/chat/completions", None), RELAY: (relay_url, None),
                       **{path: (gw, info[path][-1]) for path in PATHS}}
            # what each measured path is: its server process, its URL and the tokens of its concurrent executions
            served = {RELAY: (relay.pid, relay_url, [None] * args.executions),
                      **{path: (gateway.pid, gw, info[path][:args.executions]) for path in PATHS}}
            for stream in (False, True) if not args.no_stream else (False,):
                lat = latency(targets, args.calls, stream)
                label = "streamed" if stream else "plain"
                print(f"latency, {label} (median of {args.calls} interleaved rounds):")
                for name, values in lat.items():
                    print(f"  {name:13s} {statistics.median(values) * 1000:8.2f} ms per call")
                for path in served:
                    added = [p - d for p, d in zip(lat[path], lat["direct"], strict=True)]
                    print(f"  {path:13s} adds {statistics.median(added) * 1000:6.2f} ms (paired median; "
                          f"p90 {sorted(added)[int(len(added) * 0.9)] * 1000:.2f} ms)")
            rates: dict[str, list[float]] = {"direct": [], **{p: [] for p in served}}
            cpu: dict[str, list[float]] = {"upstream": [], **{p: [] for p in served}}  # ms per call
            for _ in range(args.rounds):
                before = cpu_s(upstream.pid)
                rates["direct"].append(asyncio.run(_throughput(targets["direct"][0], [None] * args.executions,
                                                               args.per_execution)))
                cpu["upstream"].append((cpu_s(upstream.pid) - before) * 1000 / (args.executions + 2) / args.per_execution)
                for path, (pid, url, tokens) in served.items():
                    per = args.per_execution if path != "translated" else max(args.per_execution // 4, 2)
                    before = cpu_s(pid)
                    rates[path].append(asyncio.run(_throughput(url, tokens, per)))
                    cpu[path].append((cpu_s(pid) - before) * 1000 / (args.executions + 2) / per)
            print(f"throughput, {args.executions} concurrent (median of {args.rounds} interleaved rounds):")
            print(f"  upstream direct {statistics.median(rates['direct']):8.1f} calls/s")
            for path in served:
                ratios = [r / d for r, d in zip(rates[path], rates["direct"], strict=True)]
                print(f"  {path:15s} {statistics.median(rates[path]):8.1f} calls/s = "
                      f"{statistics.median(ratios):.3f}x the upstream's own (per-round ratios "
                      f"{', '.join(f'{x:.3f}' for x in ratios)})")
            print(f"CPU per call (median of rounds; /proc, 10 ms ticks): upstream {statistics.median(cpu['upstream']):.2f} ms, "
                  + ", ".join(f"{p} {statistics.median(cpu[p]):.2f} ms" for p in served))
            out, _ = gateway.communicate("", timeout=120)
            metered = json.loads(out.strip().splitlines()[-1])
            print(f"gateway meters: {metered}")
            for path, counts in metered.items():
                assert counts["failed"] == 0, (path, counts)
                assert counts["metered"] == counts["answered"] > 0, (path, counts)
        finally:
            for proc in (relay, gateway, upstream):
                if proc is not None and proc.poll() is None:
                    proc.terminate()
                    proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
