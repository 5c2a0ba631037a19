"""patch-rejects verifier: every file the patch touches equals the current (drifted) file with the
patch's changes applied by content (each removed block or insertion anchor is unique), the renamed
settings file included; no .rej/.orig leftovers, the patch unedited. Every subgoal pays only when all of
that holds (all-or-nothing): running `patch -f` and deleting the rejects is not the task, and neither is
getting the files right but leaving the rejects or editing the patch."""

import re

from verifylib import APP, grade, pristine

orig = pristine()
project = orig / "project"


def parse(patch_text):
    """{path: [hunk lines]} from a unified diff (paths with the a/ b/ prefix stripped)."""
    files, path, hunk = {}, None, None
    lines = patch_text.splitlines(True)
    for i, line in enumerate(lines):
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            hunk = None  # the next file's header, not a removed line
        elif line.startswith("+++ ") and hunk is None:
            path = re.sub(r"^b/", "", line[4:].split("\t")[0].strip())
            files[path] = []
        elif line.startswith("@@") and path:
            hunk = []
            files[path].append(hunk)
        elif hunk is not None and line[:1] in (" ", "-", "+"):
            hunk.append(line)
    return files


def groups(hunk):
    """(context line before, removed lines, added lines) for each run of changes in a hunk."""
    out, before, cur = [], None, None
    for ln in hunk:
        if ln[0] == " ":
            cur, before = None, ln[1:]
            continue
        if cur is None:
            cur = (before, [], [])
            out.append(cur)
        cur[1 if ln[0] == "-" else 2].append(ln[1:])
    return out


def apply(text, hunks):
    lines = text.splitlines(True)
    for hunk in hunks:
        for anchor, removed, added in groups(hunk):
            if removed:
                (start,) = [i for i in range(len(lines)) if lines[i:i + len(removed)] == removed]  # unique by construction
                lines[start:start + len(removed)] = added
            else:
                (start,) = [i for i, ln in enumerate(lines) if ln == anchor]
                lines[start + 1:start + 1] = added
    return "".join(lines)


def locate(path):
    if (project / path).is_file():
        return path
    (moved,) = [p.relative_to(project).as_posix() for p in project.rglob(path.rsplit("/", 1)[-1])]
    return moved


expected = {}
for path, hunks in parse((orig / "patches" / "feature.patch").read_text()).items():
    where = locate(path)
    expected[where] = apply((project / where).read_text(), hunks)


def correct(rel):
    p = APP / "project" / rel
    return p.is_file() and p.read_text() == expected[rel]


def settings():
    (rel,) = [r for r in expected if r.endswith("settings.ini")]
    return correct(rel) and not (APP / "project" / "settings.ini").exists()


def tidy():
    leftovers = [p for p in (APP / "project").rglob("*") if p.name.endswith((".rej", ".orig"))]
    patch_kept = (APP / "patches" / "feature.patch").read_bytes() == (orig / "patches" / "feature.patch").read_bytes()
    readme_kept = (APP / "project" / "README.md").read_bytes() == (project / "README.md").read_bytes()
    return all(correct(r) for r in expected) and settings() and not leftovers and patch_kept and readme_kept


# Each named case (the moved file, the hunk that no longer applies, the drift kept, no leftovers, the patch
# unedited) alone leaves the others right, so every subgoal needs all of them: the gates are all-or-nothing.
grade({"server_py": 0.25, "util_py": 0.25, "settings_ini": 0.25, "tidy": 0.25},
      {"server_py": lambda: correct("app/server.py") and tidy(), "util_py": lambda: correct("app/util.py") and tidy(),
       "settings_ini": lambda: settings() and tidy(), "tidy": tidy})
