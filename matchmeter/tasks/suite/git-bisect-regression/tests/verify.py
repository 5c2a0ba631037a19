"""git-bisect-regression verifier: first_bad.txt names the commit that broke the tests (not the
syntax-error one; it pays only while history is not rewritten), and a new commit on top undoes only that
change so check.sh passes. "Passes" is
judged with the ORIGINAL check.sh and test_pricing.py (from the verifier's pristine rebuild) against
HEAD's pricing.py, so a commit that edits the checker or the tests earns nothing; git runs without
the agent's hooks and fsmonitor."""

import io
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path

from verifylib import APP, GIT_SAFE, agent_dir, grade, pristine, read, run_agent_code
from verifylib import git as safe_git

orig = pristine()
repo = APP / "calc"


def git(cwd, *args):
    return safe_git(cwd, *args, strip=False)


def passes(sha):
    """Run the commit's tests in-process: None when pricing.py does not even compile."""
    try:
        code = compile(git(orig / "calc", "show", f"{sha}:pricing.py"), "pricing.py", "exec")
    except SyntaxError:
        return None
    module = types.ModuleType("pricing")
    exec(code, module.__dict__)
    sys.modules["pricing"] = module
    tests = types.ModuleType("test_pricing")
    exec(compile(git(orig / "calc", "show", f"{sha}:test_pricing.py"), "test_pricing.py", "exec"), tests.__dict__)
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    return unittest.TextTestRunner(stream=io.StringIO()).run(suite).wasSuccessful()


commits = git(orig / "calc", "rev-list", "--reverse", "HEAD").split()
first_bad = next(c for c in commits if passes(c) is False)
old_head = commits[-1]
fixed = Path(tempfile.mkdtemp(prefix="mm-bisect-"))
subprocess.run(["git", "clone", "-q", str(orig / "calc"), str(fixed / "calc")], check=True, timeout=60)
subprocess.run([*GIT_SAFE, "-c", "user.name=v", "-c", "user.email=v@v", "revert", "--no-edit", first_bad],
               cwd=fixed / "calc", check=True, capture_output=True, timeout=60)
want_pricing = (fixed / "calc" / "pricing.py").read_text()


def history_kept():
    """Nothing rewritten: the old head is still an ancestor of HEAD (or is HEAD)."""
    return git(repo, "merge-base", "--is-ancestor", old_head, "HEAD") is not None


def hash_found():
    return (read("first_bad.txt") or "").strip() == first_bad and history_kept()


def on_top():
    head = (git(repo, "rev-parse", "HEAD") or "").strip()
    return head not in ("", old_head) and git(repo, "merge-base", "--is-ancestor", old_head, "HEAD") is not None


def check_passes():
    if not on_top():
        return 0
    work = agent_dir("mm-bisect-head-") / "calc"
    work.mkdir()
    pricing = git(repo, "show", "HEAD:pricing.py")
    if pricing is None:
        return 0
    (work / "pricing.py").write_text(pricing)
    for name in ("check.sh", "test_pricing.py"):
        shutil.copy(orig / "calc" / name, work / name)
    return run_agent_code(["sh", "check.sh"], work, timeout=60).returncode == 0


def minimal_fix():
    if not on_top():
        return 0
    files = set((git(repo, "ls-tree", "-r", "--name-only", "HEAD") or "").split())
    old_files = set(git(orig / "calc", "ls-tree", "-r", "--name-only", old_head).split())
    others = all(git(repo, "show", f"HEAD:{f}") == git(orig / "calc", "show", f"{old_head}:{f}")
                 for f in old_files - {"pricing.py"})
    return files == old_files and others and git(repo, "show", "HEAD:pricing.py") == want_pricing


def clean():
    return check_passes() and git(repo, "status", "--porcelain") == "" and not (repo / ".git" / "BISECT_LOG").exists()


shutil.rmtree(fixed, ignore_errors=True)
grade({"first_bad_hash": 0.25, "check_passes": 0.35, "only_that_change": 0.25, "clean": 0.15},
      {"first_bad_hash": hash_found, "check_passes": check_passes, "only_that_change": minimal_fix, "clean": clean})
