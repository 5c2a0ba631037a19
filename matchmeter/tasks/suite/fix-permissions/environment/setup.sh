#!/usr/bin/env bash
# Seeds site/ (a web root) with files and directories in a mess of modes: world-writable files,
# executable data files, private 700 directories, scripts in site/bin/ without their x bit; and
# vendor/, whose modes must stay as they are. Traps on every seed: a site/bin/*.sh that is not 755, a
# site/bin/README that is not 644, an executable *.sh outside site/bin/ (an upload: 644 like any file).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import os
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
words = ["index", "about", "contact", "style", "app", "logo", "feed", "sitemap", "robots", "team", "faq"]
exts = ["html", "css", "js", "png", "xml", "txt"]
dirs = ["site", "site/bin", "site/static", f"site/static/{rng.choice(['img', 'media'])}", "site/pages",
        f"site/pages/{rng.choice(['blog', 'news', 'docs'])}", "site/uploads"]
file_modes = [0o644, 0o666, 0o777, 0o600, 0o755, 0o640, 0o664, 0o744]
dir_modes = [0o755, 0o777, 0o700, 0o775, 0o750]
made = []
for d in dirs:
    Path(d).mkdir(parents=True, exist_ok=True)
for d in dirs[2:]:
    for w in rng.sample(words, rng.randint(1, 4)):
        p = Path(d, f"{w}.{rng.choice(exts)}")
        p.write_text(f"{p} {rng.randint(1, 10**6)}\n")
        made.append(p)
for w in rng.sample(["deploy", "backup", "rotate", "warm-cache", "reindex"], rng.randint(2, 4)):
    p = Path("site/bin", f"{w}.sh")
    p.write_text(f"#!/bin/sh\necho {w}\n")
    made.append(p)
p = Path("site/bin/README")
p.write_text("helper scripts\n")
made.append(p)
for p in made:
    os.chmod(p, rng.choice(file_modes))
scripts = [p for p in made if p.suffix == ".sh"]
if all(p.stat().st_mode & 0o777 == 0o755 for p in scripts):
    os.chmod(scripts[0], 0o644)
if Path("site/bin/README").stat().st_mode & 0o777 == 0o644:
    os.chmod("site/bin/README", 0o755)
for d in reversed(dirs):
    os.chmod(d, rng.choice(dir_modes))
Path("vendor/lib").mkdir(parents=True)
os.chmod("vendor", 0o755)
os.chmod("vendor/lib", 0o750)
for i, mode in enumerate(rng.sample([0o600, 0o755, 0o700, 0o644, 0o640], 3)):
    p = Path("vendor/lib", f"mod{i}.bin")
    p.write_text(f"vendor {i}\n")
    os.chmod(p, mode)
p = Path("site/uploads", rng.choice(["install.sh", "payload.sh", "cleanup.sh"]))
p.write_text("#!/bin/sh\necho uploaded\n")
os.chmod(p, rng.choice([0o755, 0o777, 0o775]))
PY
