#!/usr/bin/env bash
# Builds repo shop/: main and release/<x.y> diverge from a common base. Both bump package pins in
# requirements.txt (some the same package, sometimes 2.10 vs 2.9 style), each may add a package, both
# add a dated CHANGELOG entry at the top and change VERSION; each also changes a file the other does
# not touch. main is checked out. Identity and dates are fixed.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
from seedgit import start

rng, repo = start("shop", month="2024-07", per_day=6, first_hour=9)
git, write = repo.git, repo.write


def reqs(pins):
    return "".join(f"{name}=={'.'.join(map(str, v))}\n" for name, v in sorted(pins.items()))


def changelog(entries):
    return "# Changelog\n" + "".join(f"\n## {date}\n" + "".join(f"- {b}\n" for b in bullets) for date, bullets in entries)


pool = ["attrs", "certifi", "click", "flask", "gunicorn", "idna", "jinja2", "markupsafe", "psycopg2", "pydantic",
        "redis", "requests", "sqlalchemy", "urllib3", "werkzeug", "alembic", "celery", "boto3"]
names = rng.sample(pool, rng.randint(9, 12))
base_pins = {n: (rng.randint(0, 4), rng.randint(0, 12), rng.randint(0, 9)) for n in names[:-2]}
base_log = [("2024-05-02", ["First public release"]), ("2024-04-11", ["Beta"])]
version = (1, rng.randint(2, 6))
repo.init("Kim Release", "kim@example.com")
write("requirements.txt", reqs(base_pins))
write("CHANGELOG.md", changelog(base_log))
write("VERSION", f"{version[0]}.{version[1]}.0\n")
write("src/app.py", "def main():\n    print('shop')\n")
write("docs/index.md", "# Shop docs\n")
git("commit", "-q", "-m", "Release base")


def bump(v, big):
    major, minor, patch = v
    return (major, max(minor + 1, 10), 0) if big else (major, minor, patch + rng.randint(1, 4))


pinned = sorted(base_pins)
shared = rng.sample(pinned, 2)
only_main = rng.sample([n for n in pinned if n not in shared], 2)
only_rel = rng.sample([n for n in pinned if n not in shared + only_main], 2)
main_pins, rel_pins = dict(base_pins), dict(base_pins)
for n in shared:
    # One side gets a two-digit minor: string comparison would pick the wrong winner.
    big_main = rng.random() < 0.5
    main_pins[n], rel_pins[n] = bump(base_pins[n], big_main), bump(base_pins[n], not big_main)
for n in only_main:
    main_pins[n] = bump(base_pins[n], rng.random() < 0.3)
for n in only_rel:
    rel_pins[n] = bump(base_pins[n], rng.random() < 0.3)
main_pins[names[-2]] = (rng.randint(1, 3), rng.randint(0, 9), 0)
rel_pins[names[-1]] = (rng.randint(1, 3), rng.randint(0, 9), 0)
rel_branch = f"release/{version[0]}.{version[1]}"
git("checkout", "-q", "-b", rel_branch)
rel_date = f"2024-06-{rng.randint(10, 28):02d}"
write("requirements.txt", reqs(rel_pins))
write("CHANGELOG.md", changelog([(rel_date, [f"Fix {rng.choice(['rounding', 'login', 'export', 'timeouts'])}",
                                              "Security updates"])] + base_log))
write("VERSION", f"{version[0]}.{version[1]}.1\n")
write("docs/release.md", f"# Release {version[0]}.{version[1]}.1\n\nBug fixes only.\n")
git("commit", "-q", "-m", f"Prepare {version[0]}.{version[1]}.1")
git("checkout", "-q", "main")
main_date = f"2024-06-{rng.randint(1, 28):02d}"
if main_date == rel_date:
    main_date = "2024-06-29"
write("requirements.txt", reqs(main_pins))
write("CHANGELOG.md", changelog([(main_date, [f"Add {rng.choice(['search', 'wishlists', 'coupons', 'reviews'])}"])] + base_log))
write("VERSION", f"{version[0]}.{version[1] + 1}.0-dev\n")
write("src/app.py", "def main():\n    print('shop', 'v2')\n")
git("commit", "-q", "-m", "Start next development cycle")
PY
