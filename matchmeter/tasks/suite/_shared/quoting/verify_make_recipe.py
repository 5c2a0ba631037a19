"""make-recipe verifier: a `stamp:` target after the untouched original Makefile, its one recipe line byte-exact.

A `.PHONY: stamp` line (idiomatic, and not forbidden by the instruction) may be added too.
"""

import re

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

recipe = "\t" + seeded_payload(HERE / "payload.txt", seed()).decode()
original = (pristine() / "Makefile").read_text()


def added():
    text = read("Makefile")
    return text[len(original):].split("\n") if text.startswith(original) else None


def lines():
    return read("Makefile").split("\n")


def target():
    return lines().count("stamp:") == 1


def recipe_exact():
    got = lines()
    return target() and got[got.index("stamp:") + 1] == recipe


PHONY = re.compile(r"\.PHONY\s*:.*(?<![\w.-])stamp(?![\w.-]).*")


def appended():
    return recipe_exact() and [x for x in added() if x and not PHONY.fullmatch(x)] == ["stamp:", recipe]


grade({"stamp_target": 0.2, "recipe_exact": 0.6, "only_appended": 0.2},
      {"stamp_target": target, "recipe_exact": recipe_exact, "only_appended": appended})
