"""A stretch of commits whose pricing.py does not compile, before the first failing commit and fixed later."""
import io
import subprocess
import sys
import types
import unittest


def git(*args):
    proc = subprocess.run(["git", "-C", "calc", *args], capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else None


def state(sha):
    """None when pricing.py does not compile, else whether the commit's tests pass."""
    try:
        code = compile(git("show", f"{sha}:pricing.py") or "", "pricing.py", "exec")
    except SyntaxError:
        return None
    module = types.ModuleType("pricing")
    exec(code, module.__dict__)
    sys.modules["pricing"] = module
    tests = types.ModuleType("test_pricing")
    exec(compile(git("show", f"{sha}:test_pricing.py") or "", "test_pricing.py", "exec"), tests.__dict__)
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    return unittest.TextTestRunner(stream=io.StringIO()).run(suite).wasSuccessful()


commits = (git("rev-list", "--reverse", "HEAD") or "").split()
states = [state(c) for c in commits]
bad = states.index(False) if False in states else None

ok = bad is not None and None in states[:bad] and states[0] is True
sys.exit(0 if ok else print(f"no syntax-error stretch before the first failing commit: {states}") or 1)
