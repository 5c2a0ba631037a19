"""The generic cheap shots of hand-written tasks, one implementation for all of them.

`python3 write_outputs.py OUTPUTS_JSON MODE` (cwd = the seeded workspace) writes every file named in
OUTPUTS_JSON, a task's checks/oracle-outputs.json: {relative path: the shape of seed 0's oracle output}
(tests/tasks/gen_generic_checks.py derives it). MODE `empty` writes each file empty (the checked paths,
none of the work); MODE `shape` writes the shape text (JSON keys with blank leaves, a CSV header with as
many empty rows, a heading line), structure without content. Both must score <= 0.3.
"""

import json
import sys
from pathlib import Path

if len(sys.argv) != 3 or sys.argv[2] not in ("empty", "shape"):
    sys.exit("write_outputs.py: usage: write_outputs.py OUTPUTS_JSON empty|shape")
outputs = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
for rel, shape in outputs.items():
    path = Path(rel)
    if path.is_absolute() or ".." in path.parts:
        sys.exit(f"write_outputs.py: {rel!r} in {sys.argv[1]} leaves the workspace; name a relative path inside it")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(shape if sys.argv[2] == "shape" else "")
