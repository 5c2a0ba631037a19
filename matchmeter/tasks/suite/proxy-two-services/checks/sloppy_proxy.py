"""Writes backend.py, frontend.py and start.sh well except for one named case (argv[1]); the cheap-trap-*.sh
shots share it."""
import sys
from pathlib import Path

SKIP = sys.argv[1]
MISSING = "self.reply(200, {'error': 'no such quote'})" if SKIP == "unknown-404" else "self.reply(404, {'error': 'no such quote'})"
Path("backend.py").write_text(f'''import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

QUOTES = {{q["id"]: q for q in json.load(open("data/quotes.json"))}}

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/health":
            return self.reply(200, {{"ok": True}})
        if self.path.startswith("/quotes/") and self.path[len("/quotes/"):] in QUOTES:
            return self.reply(200, QUOTES[self.path[len("/quotes/"):]])
        {MISSING}

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
''')
# status-unchanged: every failure, a backend 404 included, becomes a 502; backend-down: only HTTP errors caught
CAUGHT = {"status-unchanged": "except Exception:\n        return None, b'', ''",
          "backend-down": "except urllib.error.HTTPError as err:\n        return err.code, err.read(), err.headers.get('Content-Type', 'application/json')"}.get(
    SKIP, "except urllib.error.HTTPError as err:\n        return err.code, err.read(), err.headers.get('Content-Type', 'application/json')\n"
          "    except OSError:\n        return None, b'', ''")
UP = "True" if SKIP == "health-false" else 'fetch("/health")[0] == 200'  # health-false: the backend assumed up
Path("frontend.py").write_text(f'''import json, sys, urllib.error, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BACKEND = f"http://127.0.0.1:{{sys.argv[2]}}"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({{}}))

def fetch(path):
    try:
        with OPENER.open(BACKEND + path, timeout=5) as resp:
            return resp.status, resp.read(), resp.headers.get("Content-Type", "application/json")
    {CAUGHT}

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/health":
            return self.reply(200, json.dumps({{"ok": True, "backend": {UP}}}).encode(), "application/json")
        if self.path.startswith("/api/"):
            status, body, ctype = fetch(self.path[len("/api"):])
            if status is None:
                return self.reply(502, b'{{"error": "backend unreachable"}}', "application/json")
            return self.reply(status, body, ctype)
        self.reply(404, b'{{"error": "not found"}}', "application/json")

    def reply(self, code, data, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Proxied-By", "frontend")
        self.end_headers()
        self.wfile.write(data)

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
''')
if SKIP == "conf-sections":  # the port lines taken in the order the instruction lists the services
    ports = 'ports=($(sed -n "s/^port *= *//p" services.conf)); b=${ports[0]}; f=${ports[1]}'
else:
    ports = ("b=$(sed -n '/^\\[backend\\]/,/^port/s/^port *= *//p' services.conf)\n"
             "f=$(sed -n '/^\\[frontend\\]/,/^port/s/^port *= *//p' services.conf)")
front = ('echo $$ > run/frontend.pid\nexec python3 frontend.py "$f" "$b"' if SKIP == "returns-quickly"  # foreground
         else 'nohup python3 frontend.py "$f" "$b" > frontend.log 2>&1 < /dev/null & echo $! > run/frontend.pid')
Path("start.sh").write_text(f'''#!/usr/bin/env bash
cd "$(dirname "$0")"
mkdir -p run
{ports}
nohup python3 backend.py "$b" > backend.log 2>&1 < /dev/null & echo $! > run/backend.pid
{front}
''')
