"""DESIGN.md's dependency direction, enforced on every import in the package (static, by AST).

cli → pipeline → report → optimizer / metrics → runner / gate → llm / tasks → schema / errors.
A module may import its own package and any lower layer; nothing imports cli; metrics and report read
stored tables and never import the runner. Report sits just above metrics because it presents them.
One same-layer edge is allowed: llm → tasks, because the sim personas act on a task's reference path.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "matchmeter"
LAYER = {
    "cli": 5, "pipeline": 4, "report": 3.5, "optimizer": 3, "metrics": 3, "runner": 2, "gate": 2,
    "llm": 1, "tasks": 1, "schema": 0, "errors": 0, "__init__": 0,
}
FORBIDDEN = {("metrics", "runner"), ("report", "runner")}
ALLOWED_SIDEWAYS = {("llm", "tasks")}


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "matchmeter" and len(parts) > 1 else ("__init__" if module == "matchmeter" else None)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def test_imports_follow_the_layers():
    violations = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent)
        if "suite" in rel.parts or "probes" in rel.parts:
            continue
        own = rel.parts[1].removesuffix(".py")
        for module in _imports(path):
            target = _top(module)
            if target is None or target == own or (own, target) in ALLOWED_SIDEWAYS:
                continue
            if target == "cli" or LAYER[target] > LAYER[own] or (LAYER[target] == LAYER[own] and own != target) \
                    or (own, target) in FORBIDDEN:
                violations.append(f"{rel}: imports {module}")
    assert violations == []
