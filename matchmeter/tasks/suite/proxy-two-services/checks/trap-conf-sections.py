"""Trap probe: in services.conf the [frontend] section comes before [backend], so taking the port lines in the
order the instruction lists the services swaps them."""
import re
import sys
from pathlib import Path

text = Path("services.conf").read_text() if Path("services.conf").is_file() else ""
sections = re.findall(r"(?m)^\[(\w+)\]", text)
ports = re.findall(r"(?m)^port\s*=\s*(\d+)", text)
ok = sections[:2] == ["frontend", "backend"] and len(ports) == 2 and ports[0] != ports[1]
sys.exit(0 if ok else f"services.conf sections {sections} / ports {ports}: [frontend] is not first")
