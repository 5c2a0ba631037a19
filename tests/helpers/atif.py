"""Validate ATIF documents against tests/data/atif-v1.4.schema.json plus the rules a JSON schema cannot
state. tests/conftest.py runs it on every trajectory.atif.json a test leaves in its temp dirs, and at the
session's end, when MM_HARBOR_PYTHON names a Python with Harbor (tests/tasks/harbor_venv.sh), Harbor's
own ATIF model on all of them (one subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "data" / "atif-v1.4.schema.json"


@cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def atif_problems(doc: Any) -> list[str]:
    """Every way doc breaks ATIF (empty when it conforms)."""
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in _validator().iter_errors(doc)]
    if problems:
        return problems
    for i, step in enumerate(doc["steps"]):
        if step["step_id"] != i + 1:
            problems.append(f"steps/{i}/step_id: expected {i + 1} (sequential from 1), got {step['step_id']}")
        if step.get("timestamp"):
            try:
                datetime.fromisoformat(step["timestamp"].replace("Z", "+00:00"))
            except ValueError:
                problems.append(f"steps/{i}/timestamp: not ISO 8601: {step['timestamp']!r}")
        ids = {c["tool_call_id"] for c in step.get("tool_calls") or []}
        for j, result in enumerate((step.get("observation") or {}).get("results", [])):
            ref = result.get("source_call_id")
            if ref is not None and ref not in ids:
                problems.append(f"steps/{i}/observation/results/{j}/source_call_id: {ref!r} names no tool call")
    return problems


def check_atif_files(root: Path) -> list[str]:
    """Problems of every trajectory.atif.json under root, prefixed with the file."""
    out = []
    for path in sorted(root.rglob("trajectory.atif.json")):
        out += [f"{path}: {p}" for p in atif_problems(json.loads(path.read_text()))]
    return out


_HARBOR_CHECK = """
import json, sys
from harbor.models.trajectories import Trajectory
for path in sys.stdin.read().split("\\0"):
    if path:
        try:
            Trajectory.model_validate(json.load(open(path)))
        except Exception as exc:
            print(f"{path}: Harbor's ATIF model: " + " | ".join(str(exc).splitlines())[:500])
"""


def harbor_problems(root: Path) -> list[str]:
    """Every trajectory.atif.json under root that Harbor's own ATIF model rejects (empty without Harbor)."""
    python = os.environ.get("MM_HARBOR_PYTHON")
    paths = sorted(str(p) for p in root.rglob("trajectory.atif.json"))
    if not python or not paths:
        return []
    proc = subprocess.run([python, "-c", _HARBOR_CHECK], input="\0".join(paths), capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        return [f"Harbor's ATIF check failed to run: {proc.stderr.strip()[-300:]}"]
    return proc.stdout.splitlines()
