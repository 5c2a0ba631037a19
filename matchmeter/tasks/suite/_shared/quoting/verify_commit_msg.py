"""commit-msg verifier: one new commit holding the CHANGELOG change, its stored message byte-exact."""

from quoting import payload as seeded_payload
from verifylib import APP, HERE, grade, pristine, seed
from verifylib import git as safe_git

payload = seeded_payload(HERE / "payload.txt", seed())
orig = pristine() / "repo"
repo = APP / "repo"


def git(cwd, *args):
    return safe_git(cwd, *args, raw=True)  # bytes: messages are compared byte for byte


old_head = git(orig, "rev-parse", "HEAD").strip()
changelog = (orig / "CHANGELOG.md").read_bytes()


def new_commit():
    parent = git(repo, "rev-parse", "HEAD^")
    return parent is not None and parent.strip() == old_head


def message_exact():
    raw = git(repo, "cat-file", "commit", "HEAD")
    return new_commit() and raw.split(b"\n\n", 1)[1].rstrip(b"\n") == payload.rstrip(b"\n")


def content():
    changed = git(repo, "diff", "--name-only", "HEAD^", "HEAD")
    return message_exact() and changed == b"CHANGELOG.md\n" and git(repo, "show", "HEAD:CHANGELOG.md") == changelog


grade({"new_commit": 0.2, "message_exact": 0.6, "change_committed": 0.2},
      {"new_commit": new_commit, "message_exact": message_exact, "change_committed": content})
