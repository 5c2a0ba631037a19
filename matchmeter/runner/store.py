"""The run store: per-execution files are the truth, `results.parquet` is rebuilt from them.

    runs/<run-id>/
      manifest.json                 what was asked, versions, task/description digests, price table id
      executions/<execution-key>/   one finished execution, complete or absent (never half-written)
        result.json                 ExecutionResult
        trajectory.json             Trajectory (our schema)
        trajectory.atif.json        ATIF-compatible export
        logs/                       setup / verifier output
      executions/.partial-<key>-<pid>/   an execution in progress; removed on resume
      results.parquet               rebuilt from every result.json

An execution is written into its `.partial-` directory and renamed into place only when complete, so a
kill -9 at any moment leaves either nothing or a whole execution. Every file write is atomic.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from matchmeter.errors import UserError
from matchmeter.schema import ExecutionResult, RunManifest, canonical_json, sha256_text

PARTIAL_PREFIX = ".partial-"


def execution_key(configuration_digest: str, task_digest: str, description_sha256: str, seed: int, attempt: int) -> str:
    """Digest of everything that makes an execution what it is; equal keys are the same execution."""
    payload = canonical_json([configuration_digest, task_digest, description_sha256, seed, attempt])
    return sha256_text(payload)[:24]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write via a temp file in the same directory, fsync, rename: readers see old or new, never torn."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class RunStore:
    """One run directory."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.executions = self.root / "executions"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    @property
    def table_path(self) -> Path:
        return self.root / "results.parquet"

    def exists(self) -> bool:
        return self.manifest_path.exists()

    def read_manifest(self) -> RunManifest:
        try:
            return RunManifest.model_validate_json(self.manifest_path.read_text())
        except FileNotFoundError as exc:
            raise UserError("no run here", str(self.root), "give a directory written by `matchmeter run`") from exc
        except ValueError as exc:
            raise UserError(f"unreadable manifest: {str(exc).splitlines()[0]}", str(self.manifest_path),
                            "restore it or start a new run directory") from exc

    def write_manifest(self, manifest: RunManifest) -> None:
        atomic_write_text(self.manifest_path, manifest.model_dump_json(indent=2))

    def clean_partials(self) -> int:
        """Remove executions that were in progress when a previous process died. Returns how many."""
        if not self.executions.exists():
            return 0
        removed = 0
        for child in self.executions.iterdir():
            if child.name.startswith(PARTIAL_PREFIX):
                shutil.rmtree(child, ignore_errors=True)
                removed += 1
        return removed

    def finished_keys(self) -> set[str]:
        if not self.executions.exists():
            return set()
        return {p.name for p in self.executions.iterdir() if (p / "result.json").exists()}

    def staging_dir(self, key: str) -> Path:
        path = self.executions / f"{PARTIAL_PREFIX}{key}-{os.getpid()}"
        if path.exists():
            shutil.rmtree(path)
        (path / "logs").mkdir(parents=True)
        return path

    def commit(self, staging: Path, result: ExecutionResult, trajectory_json: str, atif: dict) -> Path:
        """Write the result files into the staging dir, then move the whole execution into place."""
        atomic_write_text(staging / "trajectory.json", trajectory_json)
        atomic_write_text(staging / "trajectory.atif.json", json.dumps(atif, indent=2, default=str))
        atomic_write_text(staging / "result.json", result.model_dump_json(indent=2))
        final = self.executions / result.execution_key
        if final.exists():  # an older attempt of the same key that lost its result.json
            shutil.rmtree(final)
        staging.replace(final)
        _fsync_dir(self.executions)
        return final

    def iter_results(self) -> Iterator[ExecutionResult]:
        for key in sorted(self.finished_keys()):
            path = self.executions / key / "result.json"
            try:
                yield ExecutionResult.model_validate_json(path.read_text())
            except ValueError as exc:
                raise UserError(f"corrupt result: {str(exc).splitlines()[0]}", str(path),
                                "delete that execution directory and resume the run") from exc

    def rebuild_table(self) -> Path:
        """Rebuild results.parquet from every result.json (atomic)."""
        import pandas as pd

        rows = [r.to_row() for r in self.iter_results()]
        frame = pd.DataFrame(rows)
        tmp = self.root / f".results.parquet.{os.getpid()}.tmp"
        frame.to_parquet(tmp, index=False)
        tmp.replace(self.table_path)
        _fsync_dir(self.root)
        return self.table_path
