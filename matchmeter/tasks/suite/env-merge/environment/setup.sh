#!/usr/bin/env bash
# Seeds config/defaults.env, config/production.env and config/local.env: overlapping keys, comments,
# blank lines, `export` prefixes, quoted values, values containing '=' and '#', and an override
# to an empty value; on every seed a key in all three files, a key production.env sets twice and a
# value holding '='.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
keys = ["APP_NAME", "APP_PORT", "LOG_LEVEL", "DATABASE_URL", "CACHE_TTL", "WORKERS", "SMTP_HOST", "SMTP_PORT",
        "FEATURE_SEARCH", "FEATURE_EXPORT", "SENTRY_DSN", "TIMEZONE", "MAX_UPLOAD_MB", "REDIS_URL", "API_BASE"]


def value(key):
    choices = {
        "APP_NAME": [f"shop-{rng.randint(1, 99)}", "shop api", "storefront"],
        "LOG_LEVEL": ["info", "debug", "warn", "error"],
        "SMTP_HOST": [f"mail{rng.randint(1, 9)}.example.org", "localhost"],
        "SENTRY_DSN": [f"https://{rng.randint(10**5, 10**6)}@sentry.example.org/{rng.randint(1, 99)}"],
        "TIMEZONE": ["UTC", "Europe/Paris", "America/New_York"],
        "API_BASE": [f"https://api.example.org/v{rng.randint(1, 3)}?client=web&key=k{rng.randint(1, 9)}"],
        "FEATURE_SEARCH": ["on", "off"],
        "FEATURE_EXPORT": ["on", "off", "beta #2"],
    }
    if key.endswith("_URL"):
        scheme = "redis" if key.startswith("REDIS") else "postgres"
        return f"{scheme}://app:{rng.randint(100, 999)}@db{rng.randint(1, 9)}:5432/main?sslmode=require"
    if key in choices:
        return rng.choice(choices[key])
    return str(rng.randint(1, 9000))


def render(name, pairs):
    lines = [f"# {name} settings - edit with care", ""]
    for key, val in pairs:
        style = rng.random()
        if " " in val or "#" in val or style < 0.2:
            text = f'{key}="{val}"'
        elif style < 0.3:
            text = f"{key}='{val}'"
        else:
            text = f"{key}={val}"
        if rng.random() < 0.2 or (name == "production" and key == pairs[0][0]):  # an export on every seed
            text = "export " + text
        lines.append(text)
        if rng.random() < 0.2:
            lines.append(f"# {key.lower()} note")
    return "\n".join(lines) + "\n"


Path("config").mkdir()
base = rng.sample(keys, 10)
files = {"defaults": [(k, value(k)) for k in base]}
files["production"] = [(k, value(k)) for k in rng.sample(base, 4) + rng.sample([k for k in keys if k not in base], 2)]
local = [(k, value(k)) for k in rng.sample(base, 3)]
local.append((rng.choice([k for k, _ in files["production"]]), ""))
files["local"] = local
# Every named case on every seed (tests/tasks/test_traps.py): a key set in all three files (local wins), a key
# production.env sets twice (the later line wins), and a merged value holding "=".
prod = dict(files["production"])
if not any(v and k in prod and prod[k] != v for k, v in local):
    shared = [i for i, (k, v) in enumerate(local) if v and k in prod]
    if shared:
        k = local[shared[0]][0]
        local[shared[0]] = (k, prod[k] + "-local")
    else:
        k = rng.choice([k for k in prod if k in base and k not in dict(local)])
        local.insert(0, (k, prod[k] + "-local"))
prod_keys = [k for k, _ in files["production"]]
again = rng.choice([k for k in prod_keys if k not in dict(local)])
files["production"].append((again, dict(files["production"])[again] + "-late"))
merged = {}
for pairs in files.values():
    merged.update(pairs)
if not any("=" in v for v in merged.values()):
    files["defaults"].append(("STATUS_URL", value("STATUS_URL")))
for name, pairs in files.items():
    Path(f"config/{name}.env").write_text(render(name, pairs))
PY
