"""The one atomic-write helper: old or new content, never half; no temp file left; the only fsync in the package."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from matchmeter.atomicfile import atomic_path, atomic_write_bytes, atomic_write_text

PACKAGE = Path(__file__).resolve().parent.parent / "matchmeter"


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_write_replaces_the_content_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "deep" / "dir" / "result.json"
    atomic_write_text(target, "old ✓")
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert _leftovers(target.parent) == []


def test_an_error_while_writing_keeps_the_old_file_and_removes_the_temp(tmp_path):
    target = tmp_path / "table.parquet"
    target.write_text("old")

    def write_half() -> None:
        with atomic_path(target) as tmp:
            tmp.write_text("half of the new")
            raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError, match="killed mid-write"):
        write_half()
    assert target.read_text() == "old"
    assert _leftovers(tmp_path) == []


def test_a_path_writer_writes_beside_the_target_then_renames(tmp_path):
    target = tmp_path / "results.parquet"
    with atomic_path(target) as tmp:
        assert tmp.parent == tmp_path
        assert tmp != target
        assert not target.exists()
        tmp.write_text("rows")
    assert target.read_text() == "rows"


def test_new_files_follow_the_umask_like_any_other_file(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "manifest.json", "{}")
    finally:
        os.umask(old)
    assert (tmp_path / "manifest.json").stat().st_mode & 0o777 == 0o644


def test_no_module_but_atomicfile_hand_rolls_a_durable_write():
    """A second fsync or temp-file-rename writer is a copy of this helper; use matchmeter.atomicfile instead."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "suite" in path.parts or "probes" in path.parts or path.name == "atomicfile.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("fsync", "mkstemp"):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.attr}")
            # `tmp.replace(path)`: a temp file renamed over its target by hand
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace" \
                    and isinstance(node.func.value, ast.Name) and "tmp" in node.func.value.id:
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.func.value.id}.replace")
    assert offenders == []
