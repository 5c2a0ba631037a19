"""Members under etc/ named *.conf.<something> (.conf.bak, .conf.example: not .conf files)."""
import sys
import tarfile
from pathlib import Path

names = []
if Path("backup.tar.xz").is_file():
    with tarfile.open("backup.tar.xz") as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]

found = [n for n in names if "/etc/" in n and ".conf." in n.rsplit("/", 1)[-1]]
sys.exit(0 if found else print("no *.conf.* member under etc/") or 1)
