"""status-service verifier: after `bash start.sh` (run here, as the instruction says), the service
answers /status, /items/<sku> and 404 on the seeded port; everything start.sh started is killed
before the reward is written. Nothing pays when start.sh does not return (within start_service's wait);
status, lookup and 404 pay only when the odd inventory entries come back as they appear in the file and
every unknown SKU (a real SKU's prefix included) gets a 404, and the 404 only beside a right /status."""

import configparser
import http.client
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
    except (OSError, http.client.HTTPException):  # connection dropped or refused, a broken reply: no answer
        return None, None
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def status():
    code, body = get("/status")
    return code == 200 and body == {"service": name, "items": len(items)}


USUAL = {"sku", "name", "qty", "price"}
odd = [it for it in items if set(it) != USUAL]  # entries that must come back as they appear, extra fields and all
# an unknown SKU outright, and a real SKU's leading part (a prefix match is not a match)
unknown = ["NO-SUCH-SKU-0"] + [s for s in (items[0]["sku"].rsplit("-", 1)[0],) if s not in {it["sku"] for it in items}]


def lookup():
    checked = items[:3] + [it for it in odd if it not in items[:3]]
    return sum(get(f"/items/{it['sku']}") == (200, it) for it in checked) / len(checked)


def named_cases():
    """Every entry as it appears in the file (the odd ones included) and a 404 for every unknown SKU."""
    return all(get(f"/items/{it['sku']}") == (200, it) for it in odd) and all(get(f"/items/{s}")[0] == 404 for s in unknown)


service = start_service() if (APP / "start.sh").is_file() else None
RETURNED = service is not None and service.poll() is not None  # "returns within a few seconds"
UP = RETURNED and listening()
NAMED = UP and named_cases()
grade({"listening": 0.2, "status": 0.35, "item_lookup": 0.3, "unknown_404": 0.15},
      {"listening": lambda: UP, "status": lambda: NAMED and status(), "item_lookup": lambda: NAMED and lookup(),
       "unknown_404": lambda: NAMED and status()},
      cleanup=lambda: service and stop_service(service))
