"""Trap probe: next to a change the patch makes, the current file has a line the patch's context does not (an
edit made since), so writing the hunk over its place would undo it."""
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
for path, hunks in files.items():
    target = Path("project", path)
    if not target.is_file():
        continue
    lines = target.read_text().splitlines(True)
    for h in hunks:
        removed = [l[1:] for l in h if l[0] == "-"]
        lead = next(i for i, l in enumerate(h) if l[0] != " ")
        at = [i for i in range(len(lines)) if removed and lines[i:i + len(removed)] == removed]
        if len(at) == 1 and lead and at[0] >= lead:
            before = [l[1:] for l in h[:lead]]
            if lines[at[0] - lead:at[0]] != before:
                sys.exit(0)
sys.exit("no change of the patch sits next to a line edited since the patch was made")
