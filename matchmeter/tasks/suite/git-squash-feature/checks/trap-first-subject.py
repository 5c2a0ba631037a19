"""The branch's newest subject differs from its first commit's."""
import subprocess
import sys


def git(*args):
    proc = subprocess.run(["git", "-C", "app", *args], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


branch = git("for-each-ref", "--format=%(refname:short)", "refs/heads/feature/")
base = git("merge-base", "main", branch) if branch else ""
subjects = git("log", "--reverse", "--format=%s", f"{base}..{branch}").splitlines() if base else []

ok = len(subjects) > 1 and subjects[0] != subjects[-1]
sys.exit(0 if ok else print(f"branch subjects {subjects}: newest is not distinct from the first") or 1)
