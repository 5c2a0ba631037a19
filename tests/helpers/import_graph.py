"""Every import of a package, resolved to the module it loads (static, by AST).

Python has several ways to load a module; each one resolves here to a real module of the package:

- `import a.b.c`                      → a.b.c
- `from a.b import c`                 → a.b.c when that is a module (a package attribute naming a submodule,
                                         e.g. `from matchmeter import runner`), else a.b
- `from . import x`, `from ..a import b` → resolved against the importing module's package
- `importlib.import_module("a.b")`, `import_module(".b", package="a")`, `__import__("a.b")` with literal strings
- a registry string `"a.b.c:Name"` (the `module:attribute` form that agent and backend registries load)

Imports inside functions, classes and `if TYPE_CHECKING:` blocks count like any other. A name under the
package that is no module of it is an `UnknownModule` error naming the file and line, never a KeyError.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

REGISTRY_STRING = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):[A-Za-z_]\w*$")


class UnknownModule(Exception):
    """An import names a module of the package that does not exist."""


@dataclass(frozen=True)
class Import:
    source: str        # importing module, dotted
    target: str        # imported module of the package, dotted
    path: Path         # importing file
    line: int
    local: bool        # inside a function body (runs on call, not on import)
    form: str          # how it was written, for messages


def package_modules(package_dir: Path) -> dict[str, Path]:
    """Dotted name → file for every importable module (each directory on the way has an __init__.py)."""
    package_dir = Path(package_dir)
    root = package_dir.parent
    modules: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(root)
        if not all((root / Path(*rel.parts[:i]) / "__init__.py").is_file() for i in range(1, len(rel.parts))):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if all(p.isidentifier() for p in parts):
            modules[".".join(parts)] = path
    return modules


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, path: Path, is_package: bool, modules: dict[str, Path], top: str) -> None:
        self.module, self.path, self.modules, self.top = module, path, modules, top
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[Import] = []
        self._depth = 0  # function nesting

    # -- where an import sits
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    # -- the import forms
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node, f"import {alias.name}", exact=True)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        dots = "." * node.level
        base = self._absolute(dots + (node.module or ""), node)
        for alias in node.names:
            form = f"from {dots}{node.module or ''} import {alias.name}"
            candidate = f"{base}.{alias.name}"
            if alias.name != "*" and self._ours(candidate) and candidate in self.modules:
                self._add(candidate, node, form, exact=True)
            else:
                self._add(base, node, form, exact=True)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name in ("import_module", "__import__") and node.args and _literal(node.args[0]) is not None:
            target = _literal(node.args[0])
            assert target is not None
            if target.startswith("."):
                anchor = next((_literal(k.value) for k in node.keywords if k.arg == "package"), None)
                if anchor is None and len(node.args) > 1:
                    anchor = _literal(node.args[1])
                target = self._absolute(target, node, anchor)
            self._add(target, node, f"{name}({_literal(node.args[0])!r})", exact=True)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and (m := REGISTRY_STRING.match(node.value)):
            self._add(m.group(1), node, f"registry string {node.value!r}", exact=True)

    # -- resolution
    def _ours(self, name: str) -> bool:
        return name == self.top or name.startswith(self.top + ".")

    def _absolute(self, name: str, node: ast.AST, anchor: str | None = None) -> str:
        level = len(name) - len(name.lstrip("."))
        if level == 0:
            return name
        parts = (anchor or self.package).split(".")
        if level - 1 >= len(parts):
            raise UnknownModule(f"{self.path}:{getattr(node, 'lineno', 0)}: relative import {name!r} goes above "
                                f"the package {self.top!r}")
        base = ".".join(parts[: len(parts) - (level - 1)])
        rest = name[level:]
        return f"{base}.{rest}" if rest else base

    def _add(self, target: str, node: ast.AST, form: str, exact: bool) -> None:
        if not self._ours(target):
            return
        if target not in self.modules:
            raise UnknownModule(f"{self.path}:{getattr(node, 'lineno', 0)}: `{form}` names {target!r}, which is no "
                                f"module of {self.top!r}: fix the import or add the module")
        self.found.append(Import(self.module, target, self.path, getattr(node, "lineno", 0), self._depth > 0, form))


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def package_imports(package_dir: Path) -> list[Import]:
    """Every import of the package's own modules made anywhere in the package."""
    modules = package_modules(package_dir)
    top = Path(package_dir).name
    found: list[Import] = []
    for name, path in modules.items():
        collector = _Collector(name, path, path.name == "__init__.py", modules, top)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found += collector.found
    return found


def cycles(imports: list[Import]) -> list[list[str]]:
    """Strongly connected groups of more than one module (import loops), each sorted, in sorted order."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if imp.source != imp.target and not imp.target.startswith(imp.source + "."):
            graph.setdefault(imp.source, set()).add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(groups)
