"""A commit after the bad one changes settings.ini again (restoring the old file loses it)."""
import subprocess
import sys


def git(*args):
    proc = subprocess.run(["git", "-C", "service", *args], capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else ""


commits = git("rev-list", "--reverse", "HEAD").split()
bad = next((c for c in commits if "max_connections = 0" in git("show", f"{c}:settings.ini")), None)
later = commits[commits.index(bad) + 1:] if bad else []
touching = set(git("log", "--format=%H", "--", "settings.ini").split())

found = [c for c in later if c in touching]
sys.exit(0 if found else print("no commit after the bad one changes settings.ini") or 1)
