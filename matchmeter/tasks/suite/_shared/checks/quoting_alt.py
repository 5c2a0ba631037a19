"""The quoting tasks' correct alternative (`checks/alt-python.sh`), one implementation per operation family.

`python3 quoting_alt.py OP < payload` (cwd = the seeded workspace): the payload arrives on stdin from a
quoted heredoc, which adds one final newline (removed here), so no shell parser touches its bytes; `{ticket}`
becomes this trial's id from the workspace file TICKET, then Python does the operation itself, by another
tool and order than the reference path (jq-free JSON, the sqlite3 module, git commit -F FILE, crontab FILE,
an in-place .env edit, an extra `.PHONY: stamp`, ...). Generated alt-python.sh scripts call it
(tests/tasks/quoting_gen/checks.py).
"""

import json
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

MARKER = "{ticket}"


def write_bytes(p):
    Path("out/message.txt").write_bytes(p.encode() + b"\n")


def json_value(p):
    path = Path("config/settings.json")
    data = json.loads(path.read_text())
    data["app"]["motd"] = p
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def append_line(p):
    with open("conf/app.conf", "ab") as fh:
        fh.write(p.encode() + b"\n")


def remote_argv(p):
    subprocess.run(["bin/remote", "record " + shlex.quote(p)], check=True)


def commit_msg(p):
    msg = Path("../commit-msg.txt")
    msg.write_bytes(p.encode())
    subprocess.run(["git", "-C", "repo", "add", "CHANGELOG.md"], check=True)
    subprocess.run(["git", "-C", "repo", "commit", "-q", "--cleanup=verbatim", "-F", str(msg.resolve())], check=True)
    msg.unlink()


def sed_replace(p):
    page = Path("templates/page.html")
    page.write_text(page.read_text().replace("{{FOOTER}}", p, 1))


def env_line(p):
    env = Path(".env")
    lines = ["API_TOKEN=" + p if x.startswith("API_TOKEN=") else x for x in env.read_text().splitlines()]
    env.write_text("\n".join(lines) + "\n")


def crontab_line(p):
    old = subprocess.run(["bin/crontab", "-l"], capture_output=True, text=True).stdout
    old = old if not old or old.endswith("\n") else old + "\n"
    new = Path("../new.cron")
    new.write_text(old + p + "\n")
    subprocess.run(["bin/crontab", str(new)], check=True)
    new.unlink()


def sqlite_insert(p):
    db = sqlite3.connect("db/app.sqlite")
    db.execute("INSERT INTO notes (author, body) VALUES (?, ?)", ("ops", p))
    db.commit()


def make_recipe(p):
    with open("Makefile", "a") as fh:
        fh.write("\n.PHONY: stamp\nstamp:\n\t" + p + "\n")


def awk_literal(p):
    esc = p.replace("\\", "\\\\").replace('"', '\\"')
    Path("tools/stamp.awk").write_text('BEGIN { printf "%s\\n", "' + esc + '" }\n{ print }\n')


def printf_format(p):
    Path("conf/notify.fmt").write_bytes(p.encode() + b"\n")


def heredoc_file(p):
    Path("snippets/block.txt").write_bytes(p.encode() + b"\n")


def odd_filename(p):
    Path("inbox", p).touch()


OPS = {name.replace("_", "-"): fn for name, fn in list(globals().items())
       if callable(fn) and getattr(fn, "__module__", None) == __name__}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in OPS:
        sys.exit(f"quoting_alt.py: usage: quoting_alt.py OP < payload, OP one of {', '.join(sorted(OPS))}")
    payload = sys.stdin.buffer.read().decode("utf-8")  # bytes as written: no newline translation
    if not payload.endswith("\n"):
        sys.exit("quoting_alt.py: the payload must come from a heredoc (it ends with the heredoc's newline)")
    OPS[sys.argv[1]](payload[:-1].replace(MARKER, Path("TICKET").read_text().strip()))
