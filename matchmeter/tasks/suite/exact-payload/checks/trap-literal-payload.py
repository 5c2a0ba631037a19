"""Trap probe: an outdated out/payload.sh to replace, and a payload with what a shell expands ($VAR, ${VAR},
backticks, $(...), backslashes) (exit 0 iff both)."""
import sys
from pathlib import Path

payload = (Path(__file__).resolve().parents[1] / "tests" / "expected_payload.txt").read_text()
missing = [s for s in ("$TOTAL", "${HOME}", "`uname -a`", "$(id -u)", "\\t") if s not in payload]
if not Path("out/payload.sh").is_file() or Path("out/payload.sh").read_text() == payload or missing:
    print(f"no outdated out/payload.sh to replace, or the payload lacks {missing}")
    sys.exit(1)
