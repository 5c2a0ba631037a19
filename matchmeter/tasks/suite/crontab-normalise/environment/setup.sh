#!/usr/bin/env bash
# Seeds crontab.txt: variable lines, comments, blank lines and a shuffled mix of valid job lines
# (irregular spacing, tabs, @macros, month/weekday names in any case, weekday 7, steps, lists,
# commands with inner spacing) and invalid ones (out-of-range values, step 0, too few fields,
# unknown macro, unknown name); each named case at least once on every seed.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
cmds = ["/usr/local/bin/backup.sh --full", "/opt/app/bin/report  --format  csv", "curl -fsS http://127.0.0.1:8080/ping",
        "find /tmp -name '*.part' -mtime +2 -delete", "/usr/bin/rotate-logs >> /var/log/rotate.log 2>&1",
        "cd /srv/site && ./bin/rebuild   --quiet", "echo 'disk check' | logger -t cron", "/opt/sync/run --since=1d"]


def sp():
    return rng.choice([" ", "  ", "\t", " \t ", "   "])


def job(fields, cmd):
    return sp().join(fields) + sp() + cmd


valid = [
    lambda: job([f"*/{rng.choice([5, 10, 15, 20])}", "*", "*", "*", "*"], rng.choice(cmds)),
    lambda: f"{rng.choice(['@daily', '@hourly', '@weekly', '@monthly', '@yearly', '@midnight', '@annually'])}{sp()}{rng.choice(cmds)}",
    lambda: job([str(rng.randint(0, 59)), str(rng.randint(0, 23)), "*", "*", rng.choice(["mon-fri", "MON-FRI", "Mon-Thu", "tue,thu"])], rng.choice(cmds)),
    lambda: job(["0", str(rng.randint(0, 23)), str(rng.randint(1, 28)), rng.choice(["jan", "Jun", "DEC", "mar,sep"]), "*"], rng.choice(cmds)),
    lambda: job([str(rng.randint(0, 59)), str(rng.randint(0, 23)), "*", "*", "7"], rng.choice(cmds)),
    lambda: job(["0", f"{rng.randint(6, 9)}-{rng.randint(17, 22)}/{rng.randint(2, 3)}", "*", "*", "*"], rng.choice(cmds)),
    lambda: job([f"{rng.randint(0, 9)},{rng.randint(30, 39)}", "*", "*", "*", rng.choice(["sat,SUN", "Sun", "fri,sat"])], rng.choice(cmds)),
    lambda: job([str(rng.randint(0, 59)), "*/4", f"1-{rng.randint(7, 15)}", "*", "*"], rng.choice(cmds)),
]
invalid = [
    lambda: job([str(rng.randint(60, 99)), "*", "*", "*", "*"], rng.choice(cmds)),
    lambda: job(["0", str(rng.randint(24, 30)), "*", "*", "*"], rng.choice(cmds)),
    lambda: job(["*", "*", "*"], rng.choice(cmds).split()[0]),
    lambda: job(["*/0", "*", "*", "*", "*"], rng.choice(cmds)),
    lambda: job(["0", "0", str(rng.choice([0, 32, 40])), "*", "*"], rng.choice(cmds)),
    lambda: job(["0", "0", "*", str(rng.randint(13, 20)), "*"], rng.choice(cmds)),
    lambda: f"@every{sp()}{rng.choice(cmds)}",
    lambda: job(["0", "0", "*", "*", rng.choice(["funday", "mon-fry", "8"])], rng.choice(cmds)),
    lambda: job([f"1-{rng.randint(60, 75)}", "*", "*", "*", "*"], rng.choice(cmds)),
]
body = [f() for f in rng.sample(valid, 6) + rng.sample(valid, 2)] + [f() for f in rng.sample(invalid, rng.randint(3, 5))]
# Every named case on every seed (tests/tasks/test_traps.py): a macro, upper-case names, weekday 7, a command
# with inner spacing, tabs between fields, a value out of range, an unknown name and macro, too few fields.
spaced = [c for c in cmds if "  " in c]
body += [valid[1](), valid[4](),
         job(["0", str(rng.randint(0, 23)), "*", rng.choice(["JAN", "Dec", "MAR,Sep"]), rng.choice(["MON-FRI", "Tue,THU"])],
             rng.choice(cmds)),
         job([str(rng.randint(0, 59)), str(rng.randint(0, 23)), "*", "*", "*"], rng.choice(spaced)),
         "\t".join(["*/" + str(rng.choice([10, 30])), "*", "*", "*", "*", rng.choice(cmds)]),
         invalid[0](), invalid[2](), invalid[6](), job(["0", "0", "*", "*", rng.choice(["funday", "mon-fry"])], rng.choice(cmds))]
rng.shuffle(body)
lines = ["# crontab for the app host", "SHELL=/bin/bash", f"MAILTO=ops{rng.randint(1, 9)}@example.com", ""]
for i, line in enumerate(body):
    if i == len(body) // 2:
        lines += ["", "# --- maintenance ---", "PATH=/usr/local/bin:/usr/bin:/bin"]
    if rng.random() < 0.15:
        lines.append(rng.choice(["   # disabled for now", "#0 3 * * * /old/job", ""]))
    lines.append(line + rng.choice(["", "", " "]))
Path("crontab.txt").write_text("\n".join(lines) + "\n")
PY
