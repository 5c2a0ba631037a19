"""Trap probe: config/profile.env to append to, and the two lines hold $HOME and backslashes (exit 0 iff so)."""
import sys
from pathlib import Path

lines = (Path(__file__).resolve().parents[1] / "tests" / "expected_lines.txt").read_text()
profile = Path("config/profile.env")
if not profile.is_file() or not profile.read_text().endswith("\n") or "$HOME" not in lines or "\\$" not in lines:
    print("no config/profile.env ending with a newline, or the lines lack $HOME and \\$")
    sys.exit(1)
