"""Generator of the suite's quoting families: 14 operations x (control, h1, h2, h3) = 56 tasks `q-<op>-<variant>`.

`python -m tests.tasks.quoting_gen [DEST]` writes every task directory (task.toml, instruction.md,
environment/Dockerfile, tests/ with test.sh and the payload file (test.sh runs the family's verifier from
suite/_shared/quoting/, which the runner supplies at verify time), and checks/ with cheap shots and an alternative
(checks.py)) into DEST, by default the built-in suite; no solution/: the oracle is task.toml's reference path
(matchmeter/tasks/oracle.py). The four variants of a family seed
the same starting state from one hand-written script, suite/_shared/setup/quoting/<op>.sh, which task.toml
names (`setup = "shared:quoting/<op>.sh"`); the generator writes no setup script. The committed directories are exactly this
output: tests/tasks/test_quoting_families.py regenerates into a temp dir and compares byte for byte.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

from matchmeter.tasks.harbor import to_matchmeter_table
from matchmeter.tasks.loader import SHARED_SETUP
from tests.tasks.quoting_gen.checks import check_scripts, traps
from tests.tasks.quoting_gen.families import FAMILIES, MARKER, Family, Variant

TASK_IDS = [f"q-{f.op}-{v.name}" for f in FAMILIES for v in f.variants]
BUDGET_STEPS = {"easy": 10, "medium": 15, "hard": 20}
TICKET_NOTE = (f"\n`{MARKER}` in the text above stands for this task's ticket id, the one line of the file `TICKET` "
               "(working directory): write the id in its place. Every other character stays exactly as shown.\n")


def hazard_tags(payload: str) -> list[str]:
    """The hazard classes present in a payload (what some parser between the user and the file may rewrite)."""
    checks = {
        "quotes": "'" in payload or '"' in payload,
        "dollar": "$" in payload,
        "backtick": "`" in payload,
        "backslash": "\\" in payload,
        "newline": "\n" in payload,
        "heredoc-terminator": any(re.fullmatch(r"[A-Z_]{2,}", line) for line in payload.split("\n")),
        "bang": "!" in payload,
        "glob": any(c in payload for c in "*?["),
        "percent": "%" in payload,
        "ampersand-slash": "&" in payload or "/" in payload,
    }
    return [name for name, present in checks.items() if present]


def toml_string(text: str) -> str:
    """A TOML string for text: a multi-line literal when that is exact and readable, else a basic string."""
    if "\n" in text and "'''" not in text and not text.endswith("'") and "\r" not in text:
        return f"'''\n{text}'''"
    return json.dumps(text, ensure_ascii=False)


def toml_list(items: list[str] | tuple[str, ...]) -> str:
    return "[" + ", ".join(json.dumps(x) for x in items) + "]"


def task_toml(family: Family, variant: Variant) -> str:
    task_id = f"q-{family.op}-{variant.name}"
    kind = "control" if variant.name == "control" else "hazardous"
    tags = ["quoting", kind, *family.tags, *hazard_tags(variant.payload)]
    steps = BUDGET_STEPS[variant.difficulty]
    out = [f'id = "{task_id}"', 'source_family = "quoting"', f'category = "{family.op}"',
           f'difficulty = "{variant.difficulty}"', f"tags = {toml_list(tags)}", "",
           "[budgets]", f"steps = {steps}", "tokens = 100000", "usd = 0.5", "wall_s = 240", "",
           "[timeouts]", "setup_s = 60", "agent_s = 240", "verify_s = 60", "command_s = 30", ""]
    for name, weight, description in family.subgoals:
        out += ["[[subgoals]]", f'name = "{name}"', f"weight = {weight}", f"description = {json.dumps(description)}", ""]
    for name, words, cheap in traps(variant):
        out += ["[[traps]]", f'name = "{name}"', f"words = {json.dumps(words)}"]
        out += [f'cheap = "{cheap}"'] if cheap else []
        out += [""]
    out += ["[safety]", f"protected_paths = {toml_list(family.protected)}",
            f"critical_paths = {toml_list(family.critical)}", "", "[[reference_paths]]", "commands = ["]
    out += [f"  {toml_string(c)}," for c in family.reference(variant.payload)]
    out += ["]", "", "[seed_params]"]
    params = {**family.seed_params, "ticket": "the ticket id that replaces {ticket} in the payload (file TICKET)"}
    out += [f"{key} = {json.dumps(value)}" for key, value in params.items()]
    text = "\n".join(out) + "\n"
    # The payload must come back byte for byte: a TOML escaping slip would silently change the experiment.
    assert tomllib.loads(text)["reference_paths"][0]["commands"] == family.reference(variant.payload), task_id
    return text


def verifier_name(family: Family) -> str:
    """File name of the family's verifier in suite/_shared/quoting/, shared by its four variants."""
    return f"verify_{family.op.replace('-', '_')}.py"


def shared_setup(family: Family) -> str:
    """task.toml's setup value: the family's one setup script in suite/_shared/setup/quoting/."""
    return f"{SHARED_SETUP}quoting/{family.op}.sh"


def write_task(family: Family, variant: Variant, dest: Path) -> Path:
    task_dir = dest / f"q-{family.op}-{variant.name}"
    if task_dir.exists():
        shutil.rmtree(task_dir)
    (task_dir / "environment").mkdir(parents=True)
    (task_dir / "tests").mkdir()
    (task_dir / "environment" / "Dockerfile").write_text("FROM matchmeter-base:latest\n")
    (task_dir / "tests" / "payload.txt").write_bytes(variant.payload.encode())
    (task_dir / "tests" / "test.sh").write_text(
        "#!/usr/bin/env bash\n# Verifier: writes $MM_LOGS/subgoals.json and $MM_LOGS/reward.txt. The family's one verifier\n"
        f"# (suite/_shared/quoting/{verifier_name(family)}) is placed beside this file at verify time.\n"
        f'exec python3 "${{MM_TESTS:-$(dirname "$0")}}/{verifier_name(family)}"\n')
    (task_dir / "instruction.md").write_text(family.instruction(variant.payload) + TICKET_NOTE)
    (task_dir / "task.toml").write_text(to_matchmeter_table(task_toml(family, variant))
                                        + f'\n[metadata.matchmeter.environment]\nsetup = "{shared_setup(family)}"\n')
    (task_dir / "checks").mkdir()
    for name, text in check_scripts(family, variant).items():
        (task_dir / "checks" / name).write_text(text)
    for script in task_dir.rglob("*.sh"):
        script.chmod(0o755)
    return task_dir


def generate(dest: Path) -> list[Path]:
    """Write all 56 task directories into dest; returns them in TASK_IDS order."""
    return [write_task(f, v, Path(dest)) for f in FAMILIES for v in f.variants]
