#!/usr/bin/env bash
# Seeds site/: index.html linking (href/src) to local pages, images and scripts, some of which are
# missing, plus external, mailto and fragment-only links and one percent-encoded name that exists.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
pages = ["about.html", "guide.html", "faq.html", "pricing.html", "contact.html", "blog/index.html",
         "blog/2024-launch.html", "docs/install.html", "docs/api.html", "legal/terms.html"]
assets = ["img/logo.png", "img/hero.jpg", "css/site.css", "js/app.js", "img/team.png", "files/brochure.pdf"]
site = Path("site")
links = []  # (tag, attr, value, exists)
for target in rng.sample(pages, rng.randint(6, 9)):
    exists = rng.random() < 0.7
    value = target + (rng.choice(["#top", "#install", "?ref=home"]) if rng.random() < 0.25 else "")
    links.append(("a", "href", rng.choice(["", "./"]) + value, exists, target))
for target in rng.sample(assets, rng.randint(4, 6)):
    exists = rng.random() < 0.65
    tag, attr = ("script", "src") if target.endswith(".js") else ("link", "href") if target.endswith(".css") \
        else ("img", "src") if target.startswith("img/") else ("a", "href")
    links.append((tag, attr, target, exists, target))
links.append(("a", "href", "release%20notes.html", True, "release notes.html"))
# Traps planted on every seed (task.toml): an existing page behind a fragment or query, a missing image
# (a src attribute); the percent-encoded name above and the external links below are on every seed too.
links.append(("a", "href", f"news.html{rng.choice(['#latest', '?page=2'])}", True, "news.html"))
links.append(("img", "src", f"img/{rng.choice(['banner', 'chart', 'map'])}.png", False, None))
if not any(not e for *_, e, _t in links):
    links[0] = links[0][:3] + (False, links[0][4])
links += [("a", "href", "https://example.com/docs", None, None), ("a", "href", "mailto:team@example.com", None, None),
          ("a", "href", "#main", None, None), ("a", "href", "//cdn.example.net/lib.js", None, None)]
rng.shuffle(links)
body = []
for tag, attr, value, exists, target in links:
    if exists:
        p = site / target
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"<!-- {target} -->\n")
    if tag == "img":
        body.append(f'  <p><img src="{value}" alt="picture"></p>')
    elif tag == "script":
        body.append(f'  <script src="{value}"></script>')
    elif tag == "link":
        body.append(f'  <link rel="stylesheet" href="{value}">')
    else:
        body.append(f'  <p><a class="nav" href="{value}">{value.split("/")[-1] or "link"}</a></p>')
site.mkdir(exist_ok=True)
(site / "index.html").write_text("<!doctype html>\n<html>\n<head><title>Home</title></head>\n<body id=\"main\">\n"
                                 + "\n".join(body) + "\n</body>\n</html>\n")
PY
