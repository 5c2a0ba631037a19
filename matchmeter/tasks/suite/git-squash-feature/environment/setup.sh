#!/usr/bin/env bash
# Builds repo app/: main with a few commits, a feature/<name> branch of 4-7 messy commits (the first
# one names the feature), and main advanced by 1-2 commits after the branch point. main is checked
# out. Identity and dates are fixed, so commit ids are the same for the same seed.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
from seedgit import start

rng, repo = start("app", month="2024-04", per_day=24)
git, write = repo.git, repo.write
repo.init("Sam Maintainer", "sam@example.com")
feature = rng.choice(["csv-export", "dark-mode", "rate-limit", "search-filters", "audit-log", "webhooks"])
title = {"csv-export": "Add CSV export of orders", "dark-mode": "Add a dark mode theme",
         "rate-limit": "Rate-limit the public API", "search-filters": "Add filters to product search",
         "audit-log": "Record an audit log of admin actions", "webhooks": "Send webhooks on order events"}[feature]
write("README.md", "# shop app\n")
write("app/main.py", "def main():\n    print('shop')\n")
git("commit", "-q", "-m", "Initial commit")
write("app/config.py", f"DEBUG = False\nPAGE_SIZE = {rng.choice([20, 25, 50])}\n")
git("commit", "-q", "-m", "Add configuration module")
git("checkout", "-q", "-b", f"feature/{feature}")
mod = feature.replace("-", "_")
write(f"app/{mod}.py", f'"""{title}."""\n\n\ndef enabled():\n    return True\n')
git("commit", "-q", "-m", title)
messes = ["wip", "fix typo", "more work", "address review comments", "oops", "tests", "cleanup", "wip 2"]
for i, msg in enumerate(rng.sample(messes, rng.randint(3, 6))):
    if i % 2 == 0:
        write(f"app/{mod}.py", (repo / f"app/{mod}.py").read_text() + f"\n\ndef step_{i}():\n    return {rng.randint(1, 99)}\n")
    else:
        write(f"tests/test_{mod}.py", f"from app.{mod} import enabled\n\n\ndef test_enabled_{i}():\n    assert enabled()\n")
    git("commit", "-q", "-m", msg)
git("checkout", "-q", "main")
for msg in rng.sample(["Update README", "Bump page size", "Document configuration"], rng.randint(1, 2)):
    write("README.md", (repo / "README.md").read_text() + f"\n{msg}.\n")
    git("commit", "-q", "-m", msg)
PY
