"""`python -m tests.tasks.quoting_gen [DEST]`: write the 56 quoting tasks into DEST (default: the built-in suite)."""

import sys
from pathlib import Path

from matchmeter.tasks.loader import builtin_suite_dir
from tests.tasks.quoting_gen import generate

dest = Path(sys.argv[1]) if len(sys.argv) > 1 else builtin_suite_dir()
dest.mkdir(parents=True, exist_ok=True)
for task_dir in generate(dest):
    print(f"wrote {task_dir}")
