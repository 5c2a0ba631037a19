"""The newest commit touching settings.ini is not the bad one, and the bad one's message names no max_connections."""
import subprocess
import sys


def git(*args):
    proc = subprocess.run(["git", "-C", "service", *args], capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else ""


commits = git("rev-list", "--reverse", "HEAD").split()
bad = next((c for c in commits if "max_connections = 0" in git("show", f"{c}:settings.ini")), None)
later = commits[commits.index(bad) + 1:] if bad else []
touching = set(git("log", "--format=%H", "--", "settings.ini").split())

newest = git("log", "-1", "--format=%H", "--", "settings.ini").strip()
ok = bad is not None and newest != bad and "max_connections" not in git("log", "-1", "--format=%B", bad)
sys.exit(0 if ok else print("the bad commit is the newest settings.ini commit or names max_connections") or 1)
