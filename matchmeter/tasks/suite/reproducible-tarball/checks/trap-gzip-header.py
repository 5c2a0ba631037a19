"""Trap probe: in this workspace a plain `gzip` stores the file's name and modification time in the header (the
defaults the task asks to turn off); release.conf is compressed to a pipe to see it."""
import subprocess
import sys
from pathlib import Path

if not Path("release.conf").is_file() or not Path("src").is_dir():
    sys.exit("no release.conf or src/")
head = subprocess.run(["gzip", "-c", "release.conf"], capture_output=True).stdout[:10]
named, timed = len(head) == 10 and bool(head[3] & 0x08), head[4:8] != b"\0\0\0\0"
sys.exit(0 if named and timed else f"plain gzip stores no name ({named}) or no time ({timed})")
