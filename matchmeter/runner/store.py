"""The run store: per-execution files are the truth, `results.parquet` is rebuilt from them.

    runs/<run-id>/
      manifest.json                 what was asked, versions, task/description digests, price table id
      executions/<execution-key>/   one finished execution, complete or absent (never half-written)
        result.json                 ExecutionResult
        trajectory.json             Trajectory (our schema); absent for an imported trial that recorded none
        trajectory.atif.json        ATIF-compatible export (an imported trial's own ATIF)
        logs/                       setup / verifier output
      executions/.partial-<key>-<pid>/   an execution in progress; removed on resume
      results.parquet               rebuilt from every result.json whose key is its directory's name
      .writer.lock                  flock held by the one process writing this run

An execution is written into its `.partial-` directory and renamed into place only when complete, so a
kill -9 at any moment leaves either nothing or a whole execution. Every file write is atomic. Before
an execution is committed, every secret value the harness knows (API keys in its environment) is
replaced by `[REDACTED]` in every file of it.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from matchmeter.atomicfile import atomic_path, atomic_write_bytes, atomic_write_text, fsync_dir
from matchmeter.errors import UserError
from matchmeter.schema import ExecutionResult, RunManifest, canonical_json, sha256_text

PARTIAL_PREFIX = ".partial-"
KEY_PATTERN = re.compile(r"[0-9a-f]{24}")
# Environment variables whose values are secrets wherever they appear (provider keys, tokens, passwords).
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)
REDACTED = b"[REDACTED]"
# Run directories this process already holds the writer lock of (a second RunStore on the same dir, e.g.
# an optimizer re-run in one process, must not lock itself out): resolved path -> lock fd.
_HELD: dict[Path, int] = {}


def check_out_dir(path: Path, own: tuple[str, ...], flag: str = "--out") -> None:
    """Refuse an --out that would lose or mix data, before anything is written: a file, an unwritable place,
    or an existing non-empty directory holding none of `own` (the files that make it this command's output;
    a lone writer lock is what a process killed before binding left). One line each, exit 2."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{flag} is a file, not a directory", str(path), f"give {flag} a directory path")
    if path.is_dir():
        names = {p.name for p in path.iterdir()} - {".writer.lock"}
        others = names & {"manifest.json", "evaluation.json", "optimize.json"}
        if others and not names & set(own):
            raise UserError(f"{flag} holds another matchmeter command's output ({', '.join(sorted(others))}), not "
                            f"this command's ({', '.join(own)})", str(path), f"choose another {flag}")
        if names and not names & set(own):
            raise UserError(f"{flag} is a directory that holds files but no matchmeter output ({len(names)} "
                            "entries; nothing of it would be kept apart from what matchmeter writes)", str(path),
                            f"choose a new or empty directory for {flag}")
        if not os.access(path, os.W_OK | os.X_OK):
            raise UserError(f"{flag} is not writable", str(path), f"fix its permissions or choose another {flag}")
        return
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{flag} cannot be created: {parent} is not a writable directory", str(path),
                        f"choose another {flag}")


def known_secrets() -> list[bytes]:
    """Values of the harness's secret-looking environment variables (8+ characters), longest first."""
    values = {v for k, v in os.environ.items() if SECRET_NAME.search(k) and len(v) >= 8}
    return sorted((v.encode() for v in values), key=len, reverse=True)


def redact_tree(root: Path, secrets: list[bytes]) -> int:
    """Replace every secret value in every regular file under root; returns how many files changed."""
    changed = 0
    if not secrets:
        return 0
    for path in root.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        clean = data
        for secret in secrets:
            clean = clean.replace(secret, REDACTED)
        if clean != data:
            atomic_write_bytes(path, clean)
            changed += 1
    return changed


def execution_key(configuration_digest: str, task_digest: str, description_sha256: str, seed: int, attempt: int) -> str:
    """Digest of everything that makes an execution what it is; equal keys are the same execution."""
    payload = canonical_json([configuration_digest, task_digest, description_sha256, seed, attempt])
    return sha256_text(payload)[:24]


class RunStore:
    """One run directory."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.executions = self.root / "executions"
        self._lock_fd: int | None = None

    def claim(self) -> None:
        """Become the one writer of this run directory (an OS lock held until the process ends).

        Raises:
            UserError: another process holds it (two `run --resume` on one --out would delete each
                other's live work).
        """
        if self._lock_fd is not None:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        held = _HELD.get(self.root.resolve())
        if held is not None:
            self._lock_fd = held
            return
        fd = os.open(self.root / ".writer.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise UserError(f"another matchmeter process (pid {holder}) is writing this run", str(self.root),
                            "wait for it to finish (or stop it), then resume; use another --out to run in parallel") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = _HELD[self.root.resolve()] = fd

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

    def clean_partials(self, keys: set[str] | None = None) -> int:
        """Remove executions that were in progress when a previous process died (only those of `keys` when
        given: plans running side by side in one store, as optimize units do, keep each other's). Returns how many."""
        if not self.executions.exists():
            return 0
        removed = 0
        for child in self.executions.iterdir():
            key = child.name[len(PARTIAL_PREFIX):len(PARTIAL_PREFIX) + 24]
            if child.name.startswith(PARTIAL_PREFIX) and (keys is None or key in keys):
                shutil.rmtree(child, ignore_errors=True)
                removed += 1
        return removed

    def finished_keys(self) -> set[str]:
        """Execution dirs with a result; only names shaped like a key count (a copied dir does not)."""
        if not self.executions.exists():
            return set()
        return {p.name for p in self.executions.iterdir() if KEY_PATTERN.fullmatch(p.name) and (p / "result.json").exists()}

    def staging_dir(self, key: str) -> Path:
        path = self.executions / f"{PARTIAL_PREFIX}{key}-{os.getpid()}"
        if path.exists():
            shutil.rmtree(path)
        (path / "logs").mkdir(parents=True)
        return path

    def commit(self, staging: Path, result: ExecutionResult, trajectory_json: str | None,
               atif: dict[str, Any] | None) -> Path:
        """Write the result files into the staging dir, redact secrets, then move the whole execution into place.
        A trajectory of None (an imported trial that recorded none) writes no trajectory file."""
        if trajectory_json is not None:
            atomic_write_text(staging / "trajectory.json", trajectory_json)
        if atif is not None:
            atomic_write_text(staging / "trajectory.atif.json", json.dumps(atif, indent=2, default=str))
        atomic_write_text(staging / "result.json", result.model_dump_json(indent=2))
        redact_tree(staging, known_secrets())
        final = self.executions / result.execution_key
        if final.exists():  # an older attempt of the same key that lost its result.json
            shutil.rmtree(final)
        staging.replace(final)
        fsync_dir(self.executions)
        return final

    def iter_results(self) -> Iterator[ExecutionResult]:
        for key in sorted(self.finished_keys()):
            path = self.executions / key / "result.json"
            try:
                result = ExecutionResult.model_validate_json(path.read_text())
            except ValueError as exc:
                raise UserError(f"corrupt result: {str(exc).splitlines()[0]}", str(path),
                                "delete that execution directory and resume the run") from exc
            if result.execution_key == key:  # a directory copied under another key's name is not a result
                yield result

    def rebuild_table(self) -> Path:
        """Rebuild results.parquet from every result.json (atomic).

        Written with pyarrow's JSON reader, not pandas: every `matchmeter run` ends here, and pandas (which
        `pyarrow.array` itself imports on first use) cost more than the rest of a one-trial run (about 0.9 s of a
        bwrap oracle run's 2 s, issue 35). Column types are what pandas makes of the rows (int with a null reads
        back as float64); readers (metrics/table.py) still read it with pandas. A column of any other kind falls
        back to pandas."""
        rows = [r.to_row() for r in self.iter_results()]
        table = _arrow_table(rows)
        with atomic_path(self.table_path) as tmp:
            if table is not None:
                import pyarrow.parquet as pq

                pq.write_table(table, tmp)
            else:
                import pandas as pd

                pd.DataFrame(rows).to_parquet(tmp, index=False)
        return self.table_path


def warm_table_writer() -> None:
    """Import what rebuild_table writes with (pyarrow, about a quarter of a one-trial run's CPU) on a daemon thread,
    while the trials run: they wait on their sandboxes, so the import costs the run no wall time of its own.
    rebuild_table's own import waits for this one to finish (the import lock)."""
    import importlib
    import threading

    def load() -> None:
        for name in ("pyarrow", "pyarrow.json", "pyarrow.parquet"):
            importlib.import_module(name)

    threading.Thread(target=load, name="warm-table-writer", daemon=True).start()


def _arrow_table(rows: list[dict[str, Any]]) -> Any:
    """The rows (every one with the same keys, `ExecutionResult.to_row`) as a pyarrow Table, or None when a column
    holds values other than None, bool, int, float and str (or a non-finite float)."""
    import io

    import pyarrow as pa
    import pyarrow.json as pa_json

    # the dtype pandas would give each column, as pyarrow names it (int with a null: float64 once read back)
    arrow = {frozenset(): pa.null(), frozenset({bool}): pa.bool_(), frozenset({int}): pa.int64(),
             frozenset({float}): pa.float64(), frozenset({int, float}): pa.float64(), frozenset({str}): pa.string()}
    fields = []
    for name in list(rows[0]) if rows else []:
        kind = arrow.get(frozenset(type(row[name]) for row in rows if row[name] is not None))
        if kind is None:
            return None
        fields.append(pa.field(name, kind))
    if not rows:
        return pa.table({})
    try:
        lines = [json.dumps(row, allow_nan=False).encode() for row in rows]
    except ValueError:
        return None
    block = max(1 << 20, 2 * max(len(line) for line in lines))
    return pa_json.read_json(io.BytesIO(b"\n".join(lines)), read_options=pa_json.ReadOptions(block_size=block),
                             parse_options=pa_json.ParseOptions(explicit_schema=pa.schema(fields)))
