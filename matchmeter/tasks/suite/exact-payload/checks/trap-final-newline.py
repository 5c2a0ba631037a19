"""Trap probe: an outdated out/payload.sh to replace, and a payload whose last line ends with one newline."""
import sys
from pathlib import Path

payload = (Path(__file__).resolve().parents[1] / "tests" / "expected_payload.txt").read_bytes()
if not Path("out/payload.sh").is_file() or not payload.endswith(b"!\n"):
    print("no outdated out/payload.sh to replace, or the payload's last line is not ended by one newline")
    sys.exit(1)
