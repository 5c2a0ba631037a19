"""A wanted etc/ .conf member three directories deep (a flattened restore loses its path)."""
import sys
import tarfile
from pathlib import Path

names = []
if Path("backup.tar.xz").is_file():
    with tarfile.open("backup.tar.xz") as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]

found = [n for n in names if n.endswith(".conf") and "/etc/" in n and n.count("/") >= 3]
sys.exit(0 if found else print("no etc/ .conf member three directories deep") or 1)
