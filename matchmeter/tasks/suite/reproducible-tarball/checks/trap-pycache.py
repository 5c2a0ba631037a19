"""Trap probe: src/ holds a __pycache__ directory with a file in it."""
import sys
from pathlib import Path

caches = [p for p in Path("src").rglob("__pycache__") if p.is_dir() and any(p.iterdir())] if Path("src").is_dir() else []
sys.exit(0 if caches else "src/ has no non-empty __pycache__ directory")
