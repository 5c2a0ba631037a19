"""proxy-two-services verifier: backend and frontend answer as specified, the pidfiles name the
listening processes, and after the backend is killed the frontend reports 502 / backend false. The
verifier runs the agent's start.sh itself (the instruction says so) and kills everything it started
before writing the reward; 404s and pidfiles pay only next to real answers."""

import configparser
import json
import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

from verifylib import APP, grade, pristine, start_service, stop_service

orig = pristine()
conf = configparser.ConfigParser()
conf.read(orig / "services.conf")
ports = {name: int(conf[name]["port"]) for name in ("backend", "frontend")}
quotes = json.loads((orig / "data" / "quotes.json").read_text())
sample = quotes[:3]
# No proxy from the environment may sit between us and loopback.
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(name, path):
    """(status, parsed JSON or None, headers) of GET 127.0.0.1:<port of name><path>."""
    try:
        with opener.open(f"http://127.0.0.1:{ports[name]}{path}", timeout=5) as resp:
            status, body, headers = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as err:
        status, body, headers = err.code, err.read(), err.headers
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    return status, data, headers


def listeners(port):
    """PIDs owning a listening TCP socket on port (IPv4 or IPv6)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{cols[9]}]")
    pids = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if any(str(fd.readlink()) in inodes for fd in (proc / "fd").iterdir()):
                    pids.add(int(proc.name))
            except OSError:
                continue
    return pids


def family(pid):
    """pid and all its descendants."""
    parents = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = {pid}, [pid]
    while todo:
        cur = todo.pop()
        kids = [p for p, pp in parents.items() if pp == cur and p not in out]
        out.update(kids)
        todo.extend(kids)
    return out


def backend():
    ok = get("backend", "/health")[:2] == (200, {"ok": True})
    found = sum(get("backend", f"/quotes/{q['id']}")[:2] == (200, q) for q in sample) / len(sample)
    return ok * 0.25 + found * 0.5 + (found > 0 and get("backend", "/quotes/nope-404")[0] == 404) * 0.25


def proxy():
    good = 0
    for q in sample:
        status, data, headers = get("frontend", f"/api/quotes/{q['id']}")
        good += status == 200 and data == q and headers.get("X-Proxied-By") == "frontend"
    missing = get("frontend", "/api/quotes/nope-404")
    return good / len(sample) * 0.75 + (good > 0 and missing[0] == 404 and missing[2].get("X-Proxied-By") == "frontend") * 0.25


def pidfiles():
    if not (backend() == 1 and proxy() > 0):
        return 0
    score = 0
    for name in ports:
        pid = int((APP / "run" / f"{name}.pid").read_text().strip())
        score += bool(listeners(ports[name]) & family(pid)) / 2
    return score


def health():
    return get("frontend", "/health")[:2] == (200, {"ok": True, "backend": True})


def backend_down():
    if not (health() and proxy() == 1):
        return 0
    for pid in listeners(ports["backend"]):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    bad_gateway = get("frontend", f"/api/quotes/{sample[0]['id']}")[0] == 502
    return bad_gateway * 0.6 + (get("frontend", "/health")[:2] == (200, {"ok": True, "backend": False})) * 0.4


def wait_for_ports():
    for _ in range(40):  # start.sh may return before the servers listen
        if all(listeners(p) for p in ports.values()):
            return
        time.sleep(0.25)


service = start_service() if (APP / "start.sh").is_file() else None
if service is not None:
    wait_for_ports()


def started(check):
    return lambda: service is not None and check()


grade({"backend": 0.2, "proxy": 0.3, "pidfiles": 0.15, "health": 0.1, "backend_down": 0.25},
      {"backend": started(backend), "proxy": started(proxy), "pidfiles": started(pidfiles),
       "health": started(health), "backend_down": started(backend_down)},
      cleanup=lambda: service and stop_service(service))
