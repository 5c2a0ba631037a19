"""status-service verifier: the service answers /status, /items/<sku> and 404 on the seeded port."""

import configparser
import json
import socket
import time
import urllib.error
import urllib.request

from verifylib import grade, pristine

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
    return listening() and get("/items/NO-SUCH-SKU-0")[0] == 404


UP = listening()
grade({"listening": 0.2, "status": 0.35, "item_lookup": 0.3, "unknown_404": 0.15},
      {"listening": lambda: UP, "status": status, "item_lookup": lookup, "unknown_404": not_found})
