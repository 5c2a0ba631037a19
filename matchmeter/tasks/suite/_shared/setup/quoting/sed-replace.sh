#!/usr/bin/env bash
# Seeds templates/page.html (seeded title, nav and body) with one {{FOOTER}} placeholder line.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("templates").mkdir()
title = rng.choice(["Atlas Docs", "Cinder Status", "Dune Portal", "Borealis Wiki"])
nav = rng.sample(["home", "guides", "api", "blog", "pricing", "support"], rng.randint(2, 4))
lines = ["<!doctype html>", "<html>", f"<head><title>{title}</title></head>", "<body>", "  <nav>"]
lines += [f'    <a href="/{n}/">{n.title()}</a>' for n in nav]
lines += ["  </nav>", f"  <main>Updated {rng.randint(1, 28)} May</main>", "  <footer>{{FOOTER}}</footer>",
          "</body>", "</html>"]
Path("templates/page.html").write_text("\n".join(lines) + "\n")
Path("templates/base.html").write_text("<!-- base layout: do not edit -->\n<footer>{{FOOTER}}</footer>\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
