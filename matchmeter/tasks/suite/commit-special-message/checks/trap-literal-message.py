"""Trap probe: the message a shell would rewrite ($ variables, backticks, quotes, a backslash) and the repository
notes/ with todo.md changed to commit (exit 0 iff both)."""
import subprocess
import sys
from pathlib import Path

message = (Path(__file__).resolve().parents[1] / "tests" / "expected_message.txt").read_text()
status = subprocess.run(["git", "-C", "notes", "status", "--porcelain"], capture_output=True, text=True)
hazards = [c for c in '$`"\\' if c not in message]
if status.returncode != 0 or " M todo.md" not in status.stdout.splitlines() or hazards:
    print(f"no changed todo.md in notes/ ({status.stdout!r} {status.stderr.strip()}) or message lacks {hazards}")
    sys.exit(1)
