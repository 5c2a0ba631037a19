"""Trap probe: the work never ends on its own (worker.py polls an empty queue forever and must be restarted after
every deliberate exit), so a supervisor run in start.sh's foreground never lets it return; there is no start.sh yet."""
import re
import sys
from pathlib import Path

src = Path("worker.py").read_text() if Path("worker.py").is_file() else ""
forever = "while True:" in src and re.search(r"if not jobs:\s*\n\s*time\.sleep", src)
sys.exit(0 if forever and not Path("start.sh").exists() else "worker.py does not run forever, or start.sh exists")
