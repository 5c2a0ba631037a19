"""A .conf member in a subdirectory of etc/ (etc/conf.d/...)."""
import sys
import tarfile
from pathlib import Path

names = []
if Path("backup.tar.xz").is_file():
    with tarfile.open("backup.tar.xz") as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]

found = [n for n in names if n.endswith(".conf") and "/etc/" in n and "/" in n.split("/etc/", 1)[1]]
sys.exit(0 if found else print("no .conf member below a subdirectory of etc/") or 1)
