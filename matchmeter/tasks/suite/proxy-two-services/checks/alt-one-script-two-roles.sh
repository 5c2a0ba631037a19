# why: one Python file run twice with a role argument; the frontend proxies with http.client; start.sh waits for both ports
cat > services.py <<'PY'
import configparser, http.client, json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
conf = configparser.ConfigParser(); conf.read("services.conf")
role, bport, fport = sys.argv[1], int(conf["backend"]["port"]), int(conf["frontend"]["port"])
quotes = {q["id"]: q for q in json.load(open("data/quotes.json"))}

def upstream(path):
    try:
        c = http.client.HTTPConnection("127.0.0.1", bport, timeout=5)
        c.request("GET", path); r = c.getresponse()
        return r.status, r.read(), r.getheader("Content-Type") or "application/json"
    except OSError:
        return None, b"", ""

class H(BaseHTTPRequestHandler):
    def send(self, code, data, ctype="application/json", extra=()):
        self.send_response(code); self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers(); self.wfile.write(data)

    def do_GET(self):
        if role == "backend":
            qid = self.path.removeprefix("/quotes/")
            if self.path == "/health":
                return self.send(200, b'{"ok": true}')
            if self.path.startswith("/quotes/") and qid in quotes:
                return self.send(200, json.dumps(quotes[qid]).encode())
            return self.send(404, b'{"error": "no such quote"}')
        if self.path == "/health":
            up = upstream("/health")[0] == 200
            return self.send(200, json.dumps({"ok": True, "backend": up}).encode())
        if self.path.startswith("/api/"):
            code, body, ctype = upstream(self.path[4:])
            if code is None:
                return self.send(502, b'{"error": "bad gateway"}', extra=[("X-Proxied-By", "frontend")])
            return self.send(code, body, ctype, extra=[("X-Proxied-By", "frontend")])
        self.send(404, b'{}')

ThreadingHTTPServer(("127.0.0.1", bport if role == "backend" else fport), H).serve_forever()
PY
cat > start.sh <<'SH'
#!/usr/bin/env bash
cd "$(dirname "$0")"
mkdir -p run
for role in backend frontend; do
    python3 services.py "$role" > "run/$role.log" 2>&1 < /dev/null &
    echo $! > "run/$role.pid"
done
for port in $(sed -n 's/^port *= *//p' services.conf); do
    for _ in $(seq 150); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
done
SH
