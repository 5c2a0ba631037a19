"""Trap probe: files in subdirectories of release/ and vendor.sha256 naming them relative to release/."""
import sys
from pathlib import Path

nested = [p for p in Path("release").rglob("*") if p.is_file() and len(p.parts) > 2]
named = [ln.split("  ", 1)[1] for ln in Path("vendor.sha256").read_text().splitlines() if "  " in ln]
ok = nested and named and all((Path("release") / n).is_file() for n in named)
print(len(nested), named[:2])
sys.exit(0 if ok else 1)
