#!/usr/bin/env bash
# Builds a git repository service/ with a seeded history in which one commit (at a seeded position,
# with an innocent-looking message) sets max_connections to 0. Dates and identity are fixed, so the
# commit ids are the same for the same seed. A later commit always changes settings.ini again.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
from seedgit import start

rng, repo = start("service")
git, write = repo.git, repo.write


name = rng.choice(["orders", "billing", "search", "gateway", "ledger"])
conns = rng.choice([64, 128, 200, 256, 400, 512])
settings = [
    "[server]", f"name = {name}", f"port = {rng.randint(8000, 8999)}", "workers = 4", "",
    "[limits]", f"max_connections = {conns}", f"timeout_s = {rng.randint(5, 60)}", "", "",
    "[logging]", "level = info", f"file = /var/log/{name}.log", "",
]
repo.init("Dana Dev", "dana@example.com")


day = [0]


def commit(message):
    day[0] += 1
    git("commit", "-q", "-m", message, date=f"2024-03-{day[0]:02d}T10:{rng.randint(10, 59)}:00+00:00")


write("settings.ini", "\n".join(settings) + "\n")
write("README.md", f"# {name} service\n\nRun with `./run.sh`.\n")
commit("Initial import")
edits = [
    ("README.md", lambda t: t + "\n## Deploy\n\nSee ops/DEPLOY.md.\n", "Document deployment"),
    ("run.sh", lambda t: "#!/bin/sh\nexec python3 -m service\n", "Add run script"),
    ("CHANGELOG.md", lambda t: f"## 1.{rng.randint(0, 9)}.0\n- faster startup\n", "Start a changelog"),
    ("settings.ini", lambda t: t.replace("level = info", "level = warning"), "Quieter logs in production"),
    ("README.md", lambda t: t + "\n## Support\n\nAsk in #ops.\n", "Add support section"),
    ("settings.ini", lambda t: t.replace("workers = 4", f"workers = {rng.choice([2, 8, 16])}"), "Scale workers"),
]
rng.shuffle(edits)
bad_at = rng.randint(1, len(edits) - 2)
bad_message = rng.choice(["Tune connection settings", "Apply review feedback", "Misc config cleanup"])
# settings.ini changes again after the bad commit on every seed: restoring the old file loses that change.
if not any(path == "settings.ini" for path, _, _ in edits[bad_at:]):
    j = next(i for i, (path, _, _) in enumerate(edits) if path == "settings.ini")
    edits[j], edits[-1] = edits[-1], edits[j]
for i, (path, change, message) in enumerate(edits):
    if i == bad_at:
        text = (repo / "settings.ini").read_text()
        write("settings.ini", text.replace(f"max_connections = {conns}", "max_connections = 0"))
        commit(bad_message)
    current = (repo / path).read_text() if (repo / path).exists() else ""
    write(path, change(current))
    commit(message)
PY
