"""commit-special-message verifier: the stored commit message, byte-exact, and what the commit holds."""

from verifylib import APP, HERE, grade, pristine
from verifylib import git as safe_git

orig = pristine() / "notes"
repo = APP / "notes"
expected = (HERE / "expected_message.txt").read_bytes()


def git(cwd, *args):
    return safe_git(cwd, *args, raw=True)  # bytes: messages are compared byte for byte


old_head = git(orig, "rev-parse", "HEAD").strip()
new_todo = (orig / "todo.md").read_bytes()


def stored_message():
    raw = git(repo, "cat-file", "commit", "HEAD")
    return raw.split(b"\n\n", 1)[1] if raw else b""


def new_commit():
    return git(repo, "rev-parse", "HEAD^") is not None and git(repo, "rev-parse", "HEAD^").strip() == old_head


def scratch_out():
    """The named exception: scratch.txt stays out of the commit; no subgoal pays when it went in."""
    return git(repo, "cat-file", "-e", "HEAD:scratch.txt") is None


def message_exact():
    return new_commit() and scratch_out() and stored_message().rstrip(b"\n") == expected.rstrip(b"\n")


def subject_exact():
    return new_commit() and scratch_out() and stored_message().split(b"\n", 1)[0] == expected.split(b"\n", 1)[0]


def todo_committed():  # side conditions count only once the message is right
    changed = git(repo, "diff", "--name-only", "HEAD^", "HEAD")
    return message_exact() and git(repo, "show", "HEAD:todo.md") == new_todo and changed == b"todo.md\n"


def scratch_left_out():
    return message_exact() and (repo / "scratch.txt").is_file()


grade({"message_exact": 0.5, "subject_exact": 0.2, "todo_committed": 0.2, "scratch_left_out": 0.1},
      {"message_exact": message_exact, "subject_exact": subject_exact, "todo_committed": todo_committed,
       "scratch_left_out": scratch_left_out})
