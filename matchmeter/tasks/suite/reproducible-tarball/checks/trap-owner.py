"""Trap probe: src/ belongs to a non-root user and group, so an archive that keeps owners is not owner 0."""
import sys
from pathlib import Path

if not Path("src").is_dir():
    sys.exit("no src/")
owned = [p for p in [Path("src"), *Path("src").rglob("*")] if p.lstat().st_uid == 0 or p.lstat().st_gid == 0]
sys.exit(0 if not owned else f"{len(owned)} src/ entries belong to uid or gid 0, e.g. {owned[0]}")
