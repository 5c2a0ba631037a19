# why: read .git/logs/HEAD directly in Python (old sha of the last "moving from X" entry is X's tip), skip merged ones
python3 - <<'PY'
import subprocess
def git(*a):
    return subprocess.run(["git", "-C", "project", *a], capture_output=True, text=True)
tips = {}
for line in open("project/.git/logs/HEAD"):
    head, _, msg = line.rstrip("\n").partition("\t")
    if msg.startswith("checkout: moving from "):
        tips[msg.split()[3]] = head.split()[0]
for name, sha in sorted(tips.items()):
    if git("rev-parse", "-q", "--verify", f"refs/heads/{name}").returncode == 0:
        continue
    if git("merge-base", "--is-ancestor", sha, "main").returncode == 0:
        continue
    git("branch", name, sha)
PY
