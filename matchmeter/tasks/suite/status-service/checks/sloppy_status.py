"""Writes the inventory service (server.py + start.sh) well except for one named case (argv[1]); the
cheap-trap-*.sh shots share it."""
import sys
from pathlib import Path

SKIP = sys.argv[1]
FIELDS = '{k: item[k] for k in ("sku", "name", "qty", "price")}' if SKIP == "as-in-file" else "item"
MISSING = "self.reply(200, {'error': 'unknown sku'})" if SKIP == "unknown-404" else "self.reply(404, {'error': 'unknown sku'})"
Path("server.py").write_text(f'''import configparser, json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

conf = configparser.ConfigParser()
conf.read("service.conf")
NAME, PORT = conf["service"]["name"], int(sys.argv[1])
ITEMS = json.load(open("data/inventory.json"))

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/status":
            return self.reply(200, {{"service": NAME, "items": len(ITEMS)}})
        if self.path.startswith("/items/"):
            for item in ITEMS:
                if item["sku"] == self.path[len("/items/"):]:
                    return self.reply(200, {FIELDS})
        {MISSING}

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
''')
# conf-port: the first line that mentions a port, digits only
port = ("$(grep -m1 port service.conf | tr -dc 0-9)" if SKIP == "conf-port"
        else "$(sed -n 's/^port *= *//p' service.conf)")
# returns-quickly: the server run in the foreground, so start.sh never returns
run = f'exec python3 server.py "{port}"' if SKIP == "returns-quickly" else f'nohup python3 server.py "{port}" > server.log 2>&1 &\nsleep 1'
Path("start.sh").write_text(f'#!/usr/bin/env bash\ncd "$(dirname "$0")"\n{run}\n')
