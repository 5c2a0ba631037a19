# why: the old contract: start a correct server and leave it running, no start.sh
cat > server.py <<'PY'
import configparser, json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
conf = configparser.ConfigParser(); conf.read("service.conf")
NAME, PORT = conf["service"]["name"], int(conf["service"]["port"])
ITEMS = json.load(open("data/inventory.json"))
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        body, code = None, 404
        if self.path == "/status":
            body, code = {"service": NAME, "items": len(ITEMS)}, 200
        for it in ITEMS:
            if self.path == "/items/" + it["sku"]:
                body, code = it, 200
        data = json.dumps(body or {}).encode()
        self.send_response(code); self.send_header("Content-Length", str(len(data))); self.end_headers()
        self.wfile.write(data)
ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
PY
nohup python3 server.py > server.log 2>&1 &
sleep 1
