"""status-service verifier: after `bash start.sh` (run here, as the instruction says), the service
answers /status, /items/<sku> and 404 on the seeded port; everything start.sh started is killed
before the reward is written. A 404 alone (any static server) pays only with a real answer."""

import configparser
import json
import socket
import time
import urllib.error
import urllib.request

from verifylib import APP, grade, pristine, start_service, stop_service

orig = pristine()
conf = configparser.ConfigParser()
conf.read(orig / "service.conf")
name, port = conf["service"]["name"], int(conf["service"]["port"])
items = json.loads((orig / "data" / "inventory.json").read_text())
base = f"http://127.0.0.1:{port}"


def listening():
    for _ in range(10):  # a service started right at the end may need a moment
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.5)
    return False


def get(path):
    """(status, parsed JSON or None)."""
    try:
        with urllib.request.urlopen(base + path, timeout=5) as resp:
            body = resp.read()
            status = resp.status
    except urllib.error.HTTPError as exc:
        return exc.code, None
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def status():
    code, body = get("/status")
    return code == 200 and body == {"service": name, "items": len(items)}


def lookup():
    return sum(get(f"/items/{it['sku']}") == (200, it) for it in items[:3]) / 3


def not_found():
    return (status() or lookup() > 0) and get("/items/NO-SUCH-SKU-0")[0] == 404


service = start_service() if (APP / "start.sh").is_file() else None
UP = service is not None and listening()
grade({"listening": 0.2, "status": 0.35, "item_lookup": 0.3, "unknown_404": 0.15},
      {"listening": lambda: UP, "status": lambda: UP and status(), "item_lookup": lambda: UP and lookup(),
       "unknown_404": lambda: UP and not_found()},
      cleanup=lambda: service and stop_service(service))
