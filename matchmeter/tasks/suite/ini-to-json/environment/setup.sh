#!/usr/bin/env bash
# Seeds conf/app.ini: seeded sections and options mixing integers, decimals, true/false, version
# strings, paths, and a logging format with %(...)s placeholders that must stay literal.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
app = rng.choice(["orion", "vega", "lyra", "atlas"])
sections = {
    "server": [("host", rng.choice(["0.0.0.0", "127.0.0.1", f"{app}.internal"])), ("port", str(rng.randint(1024, 65000))),
               ("debug", rng.choice(["true", "false"])), ("version", f"{rng.randint(1, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}")],
    "database": [("url", f"sqlite:///var/lib/{app}/db.sqlite"), ("pool_size", str(rng.randint(2, 30))),
                 ("timeout", f"{rng.randint(1, 9)}.{rng.randint(0, 9)}{rng.randint(1, 9)}"), ("echo", "false")],
    "cache": [("enabled", rng.choice(["true", "false"])), ("ttl_seconds", str(rng.randint(30, 3600))),
              ("ratio", f"0.{rng.randint(10, 99)}"), ("backend", rng.choice(["redis", "memory"]))],
    "logging": [("level", rng.choice(["INFO", "DEBUG", "WARNING"])),
                ("format", rng.choice(["%(asctime)s %(levelname)s %(message)s", "[%(name)s] %(message)s"])),
                ("path", f"/var/log/{app}/app.log"), ("rotate_mb", str(rng.randint(5, 100)))],
}
extra = rng.choice(["metrics", "mail"])
sections[extra] = [("enabled", rng.choice(["true", "false"])), ("endpoint", f"https://{extra}.example.com/v{rng.randint(1, 3)}"),
                   ("retries", str(rng.randint(0, 9))), ("weight", f"{rng.randint(1, 9)}.5")]
# Traps planted on every seed (task.toml): typed values (ports, booleans, decimals, above), and a string
# that Python's int() or float() would take (a version, and one of these) that must stay a string.
sections["cache"].append(rng.choice([("max_items", "inf"), ("max_items", "1e6"), ("batch", "1_000"), ("batch", "nan")]))
order = list(sections)
rng.shuffle(order)
lines = [f"; {app} configuration"]
for name in order:
    lines.append(f"\n[{name}]")
    lines += [f"{k} = {v}" for k, v in sections[name]]
Path("conf").mkdir(exist_ok=True)
Path("conf/app.ini").write_text("\n".join(lines) + "\n")
PY
