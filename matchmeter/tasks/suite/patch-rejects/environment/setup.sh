#!/usr/bin/env bash
# Builds project/ (the current tree) and patches/feature.patch, a unified diff made against an older
# tree. Since then: util.py gained a function at the top and server.py an import (their hunks only
# move), settings.ini moved to config/settings.ini (the patch still names settings.ini), and the line
# right before one seeded hunk (TIMEOUT_S in server.py or parse_qty in util.py) was edited, so that
# hunk no longer applies. Values are seeded.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import difflib
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
port, timeout, timeout2 = rng.randint(8000, 8999), rng.choice([5, 10, 15]), rng.choice([20, 30, 45])
workers, workers2, max_body = rng.choice([2, 4]), rng.choice([6, 8, 12]), rng.choice([65536, 131072])
version = f"{rng.randint(1, 3)}.{rng.randint(0, 9)}"
server = f'''"""Tiny order API server."""

import json
import logging
from http.server import BaseHTTPRequestHandler, HTTPServer

LOG = logging.getLogger("orders")
HOST = "127.0.0.1"
PORT = {port}
TIMEOUT_S = {timeout}
MAX_BODY = {max_body}


class Handler(BaseHTTPRequestHandler):
    routes = {{
        "/health": "health",
        "/orders": "list_orders",
    }}

    def do_GET(self):
        name = self.routes.get(self.path)
        if name is None:
            self.send_error(404)
            return
        getattr(self, name)()

    def health(self):
        self.reply({{"ok": True}})

    def list_orders(self):
        self.reply({{"orders": []}})

    def reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data)


def main():
    LOG.info("listening on %s:%d", HOST, PORT)
    HTTPServer((HOST, PORT), Handler).serve_forever()
'''
util = '''"""Small helpers shared by the order service."""


def money(cents):
    return f"{cents / 100:.2f}"


def parse_qty(text):
    return int(text)


def sku_prefix(sku):
    return sku.split("-", 1)[0]
'''
settings = f"""[server]
host = 127.0.0.1
port = {port}
workers = {workers}

[limits]
max_body = {max_body}
timeout_s = {timeout}

[logging]
level = info
file = orders.log
"""
base = {"app/server.py": server, "app/util.py": util, "settings.ini": settings}
new = dict(base)
new["app/server.py"] = (server.replace(f"TIMEOUT_S = {timeout}\n", f"TIMEOUT_S = {timeout2}\n")
                        .replace('        "/orders": "list_orders",\n', '        "/orders": "list_orders",\n        "/version": "version",\n')
                        .replace('    def list_orders(self):\n', f'    def version(self):\n        self.reply({{"version": "{version}"}})\n\n    def list_orders(self):\n'))
new["app/util.py"] = util.replace("    return int(text)\n", "    return max(0, int(text.strip()))\n")
new["settings.ini"] = (settings.replace(f"workers = {workers}\n", f"workers = {workers2}\n")
                       .replace(f"timeout_s = {timeout}\n", f"timeout_s = {timeout2}\n"))
Path("patches").mkdir()
with open("patches/feature.patch", "w") as out:
    out.write(f"Subject: [PATCH] Version endpoint, longer timeouts, more workers\n\n"
              f"Adds GET /version ({version}), raises the timeout to {timeout2}s and workers to {workers2},\n"
              f"and makes parse_qty tolerant of whitespace and negative input.\n---\n")
    for path in base:
        out.writelines(difflib.unified_diff(base[path].splitlines(True), new[path].splitlines(True),
                                            f"a/{path}", f"b/{path}", n=3))
# The current tree drifted from the base the patch was made against.
current = dict(base)
broken = rng.choice(["timeout", "util"])
srv = server.replace("import logging\n", "import logging\nimport os\n")
utl = util.replace('"""\n\n\ndef money', '"""\n\n\ndef cents(amount):\n    return round(amount * 100)\n\n\ndef money', 1)
if broken == "timeout":
    srv = srv.replace(f"PORT = {port}\n", f'PORT = int(os.environ.get("ORDERS_PORT", "{port}"))\n')
else:
    utl = utl.replace("def parse_qty(text):\n", "def parse_qty(text: str) -> int:\n")
current["app/server.py"] = srv
current["app/util.py"] = utl
for path, text in current.items():
    dest = Path("project", "config/settings.ini" if path == "settings.ini" else path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text)
Path("project/README.md").write_text("# orders service\n\nSettings live in config/settings.ini.\n")
PY
