"""An input line starts with export."""
import sys
from pathlib import Path

found = [p for p in Path("config").glob("*.env") if any(ln.lstrip().startswith("export ") for ln in p.read_text().splitlines())]
sys.exit(0 if found else print("no config/*.env line starts with export") or 1)
