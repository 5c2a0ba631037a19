"""Trap probe: applying the patch (its settings path fixed) with `patch -f` in a copy of project/ leaves a .rej
or .orig behind, and project/ holds none yet."""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

patch, project = Path("patches/feature.patch"), Path("project")
if not patch.is_file() or not project.is_dir():
    sys.exit("no patches/feature.patch or project/")
if any(p.name.endswith((".rej", ".orig")) for p in project.rglob("*")):
    sys.exit("project/ already holds .rej/.orig files")
text = re.sub(r"(?m)^(---|\+\+\+) ([ab])/settings\.ini", r"\1 \2/config/settings.ini", patch.read_text())
with tempfile.TemporaryDirectory() as tmp:
    copy = Path(tmp, "project")
    shutil.copytree(project, copy)
    subprocess.run(["patch", "-p1", "-f"], cwd=copy, input=text, text=True, capture_output=True)
    left = [p.name for p in copy.rglob("*") if p.name.endswith((".rej", ".orig"))]
sys.exit(0 if left else "the patch applies without leaving .rej/.orig files")
