"""Builds the release tarball well except for one named case (argv[1]); the cheap-trap-*.sh shots share it."""
import re
import subprocess
import sys
from pathlib import Path

SKIP = sys.argv[1]
conf = dict(re.findall(r"^(\w+) *= *(\S+)$", Path("release.conf").read_text(), re.M))
prefix = f"{conf['name']}-{conf['version']}"
Path("dist").mkdir(exist_ok=True)
args = ["tar", "--format=gnu"]
args += [] if SKIP == "sort-by-name" else ["--sort=name"]
args += [] if SKIP == "mtime" else [f"--mtime=@{conf['source_date_epoch']}"]
args += [] if SKIP == "owner" else ["--owner=0", "--group=0", "--numeric-owner"]
args += [] if SKIP == "editor-backups" else ["--exclude=*~"]
args += [] if SKIP == "pycache" else ["--exclude=__pycache__"]
# top-level-dir: the contents of src/ at the archive's root
args += ["-C", "src", "-cf", f"dist/{prefix}.tar", "."] if SKIP == "top-level-dir" else [
    "--transform", f"s,^src,{prefix},", "-cf", f"dist/{prefix}.tar", "src"]
subprocess.run(args, check=True)
# gzip-header: plain gzip keeps the file's name and time in the header
subprocess.run(["gzip", "-f", f"dist/{prefix}.tar"] if SKIP == "gzip-header" else ["gzip", "-n", "-f", f"dist/{prefix}.tar"], check=True)
