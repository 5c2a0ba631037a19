"""A .conf member outside any etc/ directory (share/samples/)."""
import sys
import tarfile
from pathlib import Path

names = []
if Path("backup.tar.xz").is_file():
    with tarfile.open("backup.tar.xz") as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]

found = [n for n in names if n.endswith(".conf") and "/etc/" not in "/" + n]
sys.exit(0 if found else print("no .conf member outside etc/") or 1)
