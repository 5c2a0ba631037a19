"""Trap probe: the patch changes settings.ini, which now lives at project/config/settings.ini (no project/settings.ini)."""
import re
import sys
from pathlib import Path

patch = Path("patches/feature.patch")
text = patch.read_text() if patch.is_file() else ""
if not re.search(r"(?m)^\+\+\+ b/settings\.ini", text):
    sys.exit("patches/feature.patch does not change settings.ini")
if Path("project/settings.ini").exists() or not Path("project/config/settings.ini").is_file():
    sys.exit("settings.ini has not moved to project/config/")
