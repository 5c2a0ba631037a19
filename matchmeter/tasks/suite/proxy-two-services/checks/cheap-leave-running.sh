# why: the old contract: start a correct backend and leave it running, no start.sh (frontend not even written)
set -e
port_b=$(sed -n '/^\[backend\]/,/^port/s/^port *= *//p' services.conf)
mkdir -p run
cat > backend.py <<PY
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
Q = {q["id"]: q for q in json.load(open("data/quotes.json"))}
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        key = self.path[len("/quotes/"):]
        code, body = (200, {"ok": True}) if self.path == "/health" else (200, Q[key]) if key in Q else (404, {})
        data = json.dumps(body).encode()
        self.send_response(code); self.send_header("Content-Length", str(len(data))); self.end_headers()
        self.wfile.write(data)
ThreadingHTTPServer(("127.0.0.1", $port_b), H).serve_forever()
PY
nohup python3 backend.py > backend.log 2>&1 < /dev/null & echo $! > run/backend.pid
sleep 1
