# why: a detached daemon (setsid, own session) built on socketserver, port passed by start.sh from sed
cat > inventory_server.py <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
name, port = sys.argv[1], int(sys.argv[2])
with open("data/inventory.json") as f:
    by_sku = {it["sku"]: it for it in json.load(f)}
count = len(by_sku)
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/status":
            self.send(200, {"service": name, "items": count})
        elif self.path.startswith("/items/") and self.path[7:] in by_sku:
            self.send(200, by_sku[self.path[7:]])
        else:
            self.send(404, {"error": "unknown sku"})
    def send(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
HTTPServer(("127.0.0.1", port), H).serve_forever()
PY
cat > start.sh <<'SH'
#!/usr/bin/env bash
cd "$(dirname "$0")"
name=$(sed -n 's/^name *= *//p' service.conf)
port=$(sed -n 's/^port *= *//p' service.conf)
setsid python3 inventory_server.py "$name" "$port" < /dev/null > inventory.log 2>&1 &
for _ in $(seq 150); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && exit 0; sleep 0.1; done
SH
