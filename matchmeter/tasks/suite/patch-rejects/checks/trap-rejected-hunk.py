"""Trap probe: a hunk of the patch does not apply even with patch's default fuzz (its context, two outer lines
dropped, is not in the current file), while the lines it changes are still there exactly once."""
import re
import sys
from pathlib import Path

patch = Path("patches/feature.patch")
files, hunk = {}, None
for line in (patch.read_text().splitlines(True) if patch.is_file() else []):
    if line.startswith("--- a/"):
        hunk = None  # the next file's header, not a removed line
    elif line.startswith("+++ b/"):
        path, hunk = line[6:].strip(), None
        files[path] = []
    elif line.startswith("@@"):
        hunk = []
        files[path].append(hunk)
    elif hunk is not None and line[:1] in " -+":
        hunk.append(line)


def found(block, lines):
    return [i for i in range(len(lines) - len(block) + 1) if lines[i:i + len(block)] == block]


for path, hunks in files.items():
    target = Path("project", path)
    if not target.is_file():
        continue
    lines = target.read_text().splitlines(True)
    for h in hunks:
        old = [l[1:] for l in h if l[0] in " -"]
        lead = next(i for i, l in enumerate(h) if l[0] != " ")
        trail = next(i for i, l in enumerate(reversed(h)) if l[0] != " ")
        fuzzed = old[min(2, lead):len(old) - min(2, trail)]
        removed = [l[1:] for l in h if l[0] == "-"]
        if removed and not found(fuzzed, lines) and len(found(removed, lines)) == 1:
            sys.exit(0)
sys.exit("every hunk applies to the current tree (or its changed lines are gone)")
