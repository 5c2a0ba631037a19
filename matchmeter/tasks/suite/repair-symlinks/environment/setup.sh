#!/usr/bin/env bash
# Seeds assets/ (the new home of the files that used to live in static/) and site/ with symlinks:
# some still work, some point at the old static/ location (relative or absolute /srv/www/static/...),
# and a few point at files that no longer exist anywhere.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import os
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
kinds = {"img": ["png", "svg"], "css": ["css"], "js": ["js"], "fonts": ["woff2"]}
words = ["logo", "hero", "main", "theme", "app", "vendor", "icons", "print", "banner", "menu", "footer", "grid"]
assets = []
for sub in rng.sample(sorted(kinds), 3):
    for w in rng.sample(words, rng.randint(2, 4)):
        rel = f"{sub}/{w}.{rng.choice(kinds[sub])}"
        p = Path("assets", rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"{rel} {rng.randint(1000, 9999)}\n")
        assets.append(rel)
rng.shuffle(assets)
pages = ["site", "site/blog", "site/docs/v2"]
for i, rel in enumerate(assets):
    page = rng.choice(pages)
    Path(page).mkdir(parents=True, exist_ok=True)
    link = Path(page, f"{rel.replace('/', '-')}")
    up = "../" * page.count("/") + "../"
    style = i % 3
    if style == 0:
        target = f"{up}assets/{rel}"  # still working
    elif style == 1:
        target = f"{up}static/{rel}"
    else:
        target = f"/srv/www/static/{rel}"
    os.symlink(target, link)
for page in rng.sample(pages, 2):
    Path(page).mkdir(parents=True, exist_ok=True)
    gone = f"{rng.choice(sorted(kinds))}/old-{rng.choice(words)}.{rng.randint(1, 9)}.png"
    os.symlink(f"{'../' * (page.count('/') + 1)}static/{gone}", Path(page, f"gone-{rng.randint(10, 99)}.png"))
Path("site/index.html").write_text("<html><img src='img-logo.png'></html>\n")
PY
