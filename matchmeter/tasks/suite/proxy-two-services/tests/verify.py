"""proxy-two-services verifier: backend and frontend answer as specified, the pidfiles name the
listening processes, and after the backend is killed the frontend reports 502 / backend false. The
verifier runs the agent's start.sh itself (the instruction says so) and kills everything it started
before writing the reward; 404s and pidfiles pay only next to real answers. Nothing pays when start.sh
does not return (within start_service's wait); beyond the backend's own answers, nothing pays unless
every named case holds: an unknown id is 404 at the backend and through the proxy, and with the backend
killed /api/... is 502 and /health reports backend false."""

import configparser
import http.client
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
    except (OSError, http.client.HTTPException):  # refused, dropped or a broken reply: no answer
        return None, None, {}
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
    return ok * 0.25 + found * 0.5 + (found > 0 and backend_404()) * 0.25


def backend_404():
    return get("backend", "/quotes/nope-404")[0] == 404


def proxied_404():
    """The backend's 404 passed through unchanged, with the proxy's header."""
    status, _, headers = get("frontend", "/api/quotes/nope-404")
    return status == 404 and headers.get("X-Proxied-By") == "frontend"


def proxy():
    good = 0
    for q in sample:
        status, data, headers = get("frontend", f"/api/quotes/{q['id']}")
        good += status == 200 and data == q and headers.get("X-Proxied-By") == "frontend"
    return good / len(sample) * 0.75 + (good > 0 and proxied_404()) * 0.25


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


def backend_killed():
    """(/api/... answers 502, /health says backend false) once the backend's listeners are killed."""
    for pid in listeners(ports["backend"]):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    return (get("frontend", f"/api/quotes/{sample[0]['id']}")[0] == 502,
            get("frontend", "/health")[:2] == (200, {"ok": True, "backend": False}))


def wait_for_ports():
    for _ in range(40):  # start.sh may return before the servers listen
        if all(listeners(p) for p in ports.values()):
            return
        time.sleep(0.25)


def attempt(check, default=0):
    try:
        return check()
    except Exception as exc:  # a broken answer is that check's failure, never a crash
        print(f"{getattr(check, '__name__', 'check')}: raised {exc!r}")
        return default


service = start_service() if (APP / "start.sh").is_file() else None
RETURNED = service is not None and service.poll() is not None  # "returns within a few seconds"
up = {}
if RETURNED:
    wait_for_ports()
    # Everything the running pair must answer is checked before the backend is killed.
    up = {name: attempt(fn) for name, fn in (("backend", backend), ("proxy", proxy), ("pidfiles", pidfiles),
                                               ("health", health), ("backend_404", backend_404),
                                               ("proxied_404", proxied_404))}
    bad_gateway, backend_false = attempt(backend_killed, (False, False))
    # The named cases: an unknown id is 404 at the backend and through the proxy, and with the backend gone
    # /api/... is 502 and /health says so. Only the backend's own answers pay without them.
    NAMED = up["backend_404"] and up["proxied_404"] and bad_gateway and backend_false
    down = (bad_gateway * 0.6 + backend_false * 0.4) if up["health"] and up["proxy"] == 1 else 0


grade({"backend": 0.2, "proxy": 0.3, "pidfiles": 0.15, "health": 0.1, "backend_down": 0.25},
      {"backend": lambda: RETURNED and up["backend"], "proxy": lambda: RETURNED and NAMED and up["proxy"],
       "pidfiles": lambda: RETURNED and NAMED and up["pidfiles"], "health": lambda: RETURNED and NAMED and up["health"],
       "backend_down": lambda: RETURNED and NAMED and down},
      cleanup=lambda: service and stop_service(service))
