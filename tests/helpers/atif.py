"""Validate ATIF documents against tests/data/atif-v1.4.schema.json plus the rules a JSON schema cannot
state. tests/conftest.py runs it on every trajectory.atif.json a test leaves in its temp dirs."""

from __future__ import annotations

import json
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
