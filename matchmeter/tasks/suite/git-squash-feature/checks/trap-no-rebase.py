"""main moved on after the branch point (a rebase would change the base)."""
import subprocess
import sys


def git(*args):
    proc = subprocess.run(["git", "-C", "app", *args], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


branch = git("for-each-ref", "--format=%(refname:short)", "refs/heads/feature/")
base = git("merge-base", "main", branch) if branch else ""
subjects = git("log", "--reverse", "--format=%s", f"{base}..{branch}").splitlines() if base else []

ahead = git("rev-list", "--count", f"{base}..main") if base else ""
sys.exit(0 if ahead and int(ahead) > 0 else print("main has no commit after the branch point") or 1)
