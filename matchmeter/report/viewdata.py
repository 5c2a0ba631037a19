"""What `matchmeter view` reads: run directories, description sets and calibration files, read-only.

Every path given on the command line is classified once (`open_library`):

    run directory          results.parquet and/or executions/<key>/result.json (+ manifest.json,
                           conditions.parquet, trajectory.json, logs/, any *.diff beside them)
    description set        descriptions.json and/or state/<task>/<source>.json (optimizer audit)
    calibration file       a JSON file with `reference_digest` and `strata`

A run's execution index is results.parquet when present (one read, cached until the file changes), or
else a scan of its result.json files. Nothing here writes. A file that cannot be read becomes an
`error` string on the record it belongs to, never an exception that takes the page down: a single
broken execution must not hide the thousands beside it. Records are read as plain JSON on purpose,
so fields added later (e.g. a gate's contract items) show up without a schema change here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter.errors import UserError
from matchmeter.schema import Description
from matchmeter.tasks.loader import load_tasks

if TYPE_CHECKING:
    import pandas as pd

INDEX_COLUMNS = ("execution_key", "configuration_id", "task_id", "reward", "cost_usd", "tokens_total", "n_steps",
                 "failure_mode", "trusted", "simulated", "description_origin", "description_source", "seed", "attempt",
                 "wall_s")


def read_json(path: Path) -> tuple[Any, str]:
    """(document, "") or (None, one-line error)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), ""
    except FileNotFoundError:
        return None, f"{path.name} is missing"
    except (OSError, ValueError) as exc:
        return None, f"{path.name} is unreadable: {str(exc).splitlines()[0][:200]}"


@dataclass
class Run:
    name: str
    root: Path
    _index: pd.DataFrame | None = None
    _stamp: float = -1.0
    _descriptions: dict[str, dict[str, Any]] | None = None

    @property
    def manifest(self) -> dict[str, Any]:
        doc, _ = read_json(self.root / "manifest.json")
        return doc if isinstance(doc, dict) else {}

    def index(self) -> pd.DataFrame:
        """One row per stored execution (INDEX_COLUMNS + `error`), cached while results.parquet is unchanged."""
        table = self.root / "results.parquet"
        stamp = table.stat().st_mtime if table.is_file() else 0.0
        if self._index is None or stamp != self._stamp:
            self._index, self._stamp = (_read_table(table) if table.is_file() else _scan(self.root)), stamp
        return self._index


def _read_table(path: Path) -> pd.DataFrame:
    import pandas as pd

    frame = pd.read_parquet(path)
    out = frame[[c for c in INDEX_COLUMNS if c in frame.columns]].copy()
    for col in INDEX_COLUMNS:
        if col not in out.columns:
            out[col] = None
    out["error"] = ""
    return out[[*INDEX_COLUMNS, "error"]]


def _scan(root: Path) -> pd.DataFrame:
    """Index from result.json files (a run whose results.parquet was never rebuilt)."""
    import pandas as pd

    rows = []
    base = root / "executions"
    for exe in sorted(base.iterdir()) if base.is_dir() else []:
        if exe.name.startswith(".") or not exe.is_dir():
            continue
        doc, error = read_json(exe / "result.json")
        row = dict.fromkeys(INDEX_COLUMNS)
        row["execution_key"] = exe.name
        if isinstance(doc, dict):
            cost = doc.get("cost") or {}
            tokens = doc.get("tokens") or {}
            row.update({k: doc.get(k) for k in INDEX_COLUMNS if k in doc})
            row["cost_usd"] = cost.get("usd")
            row["tokens_total"] = sum(v for v in tokens.values() if isinstance(v, int | float))
            row["trusted"] = all((doc.get("trust_flags") or {}).values())
        row["error"] = error or ("" if isinstance(doc, dict) else "result.json is not an object")
        rows.append(row)
    return pd.DataFrame(rows, columns=[*INDEX_COLUMNS, "error"])


@dataclass
class Library:
    runs: dict[str, Run] = field(default_factory=dict)
    descsets: dict[str, Path] = field(default_factory=dict)
    calibrations: dict[str, Path] = field(default_factory=dict)


def _unique(name: str, taken: dict[str, Any]) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name}-{n}", n + 1
    return out


def open_library(paths: Sequence[Path]) -> Library:
    """Classify each path; a directory that is none of the three is searched for them (`discover`: e.g. the
    `demo` output directory, or runs/ holding many runs).

    Raises:
        UserError: a path that is neither a run directory, a description set nor a calibration file, and
            (a directory) holds none of them.
    """
    lib = Library()
    for path in map(Path, paths):
        kind = classify(path)
        found = [(kind, path)] if kind else discover(path) if path.is_dir() else []
        if not found:
            raise UserError("not a run directory, description set or calibration file, and holds none", str(path),
                            "pass runs/<run-id>, an `optimize --out` directory, a `calibrate --out` file or a "
                            "directory holding them (e.g. a demo output)")
        for kind, item in found:
            if kind == "calibration":
                lib.calibrations[_unique(item.stem, lib.calibrations)] = item
            elif kind == "run":
                name = _unique(item.name, lib.runs)
                lib.runs[name] = Run(name, item)
            else:
                lib.descsets[_unique(item.name, lib.descsets)] = item
    return lib


def classify(path: Path) -> str:
    """'run', 'descset', 'calibration' or '' (none of them)."""
    if path.is_file() and path.suffix == ".json":
        doc, _ = read_json(path)
        return "calibration" if isinstance(doc, dict) and "reference_digest" in doc and "strata" in doc else ""
    if path.is_dir():
        if (path / "results.parquet").is_file() or (path / "executions").is_dir():
            return "run"
        if (path / "descriptions.json").is_file() or (path / "state").is_dir():
            return "descset"
    return ""


def discover(root: Path, depth: int = 3) -> list[tuple[str, Path]]:
    """Runs, description sets and calibration files under `root`, `depth` levels down at most, sorted by path.
    A run is not searched further (its executions are not runs); a description set is, for its source-side runs."""
    found: list[tuple[str, Path]] = []
    try:
        children = sorted(p for p in root.iterdir() if not p.name.startswith("."))
    except OSError:
        return found
    for child in children:
        kind = classify(child)
        if kind:
            found.append((kind, child))
        if child.is_dir() and kind != "run" and depth > 1:
            found += discover(child, depth - 1)
    return found


# ------------------------------------------------------------------ descriptions


def description_texts(lib: Library, run: Run) -> dict[str, dict[str, Any]]:
    """sha256 → {text, origin, source, where} from the run's tasks (Original) and every description set given."""
    if run._descriptions is not None:
        return run._descriptions
    out: dict[str, dict[str, Any]] = {}
    for name, descset in lib.descsets.items():
        doc, _ = read_json(descset / "descriptions.json")
        for task_id, entry in ((doc or {}).get("tasks") or {}).items() if isinstance(doc, dict) else []:
            for src, e in (entry.get("sources") or {}).items():
                if isinstance(e, dict) and e.get("sha256"):
                    out[e["sha256"]] = {"text": e.get("text", ""), "origin": "optimized" if not e.get("fallback") else
                                        "original (fallback)", "source": src, "where": f"description set {name}, {task_id}"}
            gen = entry.get("generic")
            if isinstance(gen, dict) and gen.get("sha256"):
                out[gen["sha256"]] = {"text": gen.get("text", ""), "origin": "generic", "source": None,
                                      "where": f"description set {name}, {task_id}"}
    out.update(_original_texts(run))
    run._descriptions = out
    return out


def _original_texts(run: Run) -> dict[str, dict[str, Any]]:
    paths = [Path(p) for p in (run.manifest.get("request") or {}).get("tasks", []) or []]
    try:
        tasks = load_tasks(paths)
    except (UserError, OSError, ValueError):
        return {}
    return {Description.original(t).sha256: {"text": t.instruction, "origin": "original", "source": None,
                                             "where": f"task {t.id}"} for t in tasks}


# ------------------------------------------------------------------ one execution


def execution_detail(lib: Library, run: Run, key: str) -> dict[str, Any]:
    """Everything stored about one execution; unreadable parts carry an error instead."""
    exe = run.root / "executions" / key
    if "/" in key or key.startswith(".") or not exe.is_dir():
        return {"key": key, "missing": True}
    result, result_error = read_json(exe / "result.json")
    if result is not None and not isinstance(result, dict):
        result, result_error = None, "result.json is not an object"
    traj, traj_error = read_json(exe / "trajectory.json")
    steps = traj.get("steps", []) if isinstance(traj, dict) else []
    sha = (result or {}).get("description_sha256")
    description = description_texts(lib, run).get(sha or "", None)
    logs = sorted(p for p in (exe / "logs").rglob("*") if p.is_file()) if (exe / "logs").is_dir() else []
    diffs = sorted(p for p in exe.rglob("*") if p.is_file() and (p.suffix in (".diff", ".patch") or "diff" in p.name))
    return {"key": key, "missing": False, "result": result, "result_error": result_error,
            "trajectory": traj if isinstance(traj, dict) else None, "trajectory_error": traj_error, "steps": steps,
            "description": description, "description_sha256": sha,
            "logs": [(str(p.relative_to(exe)), _head(p)) for p in logs],
            "diffs": [(str(p.relative_to(exe)), _head(p)) for p in diffs]}


def _head(path: Path, limit: int = 200_000) -> str:
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    text = data[:limit].decode("utf-8", errors="replace")
    return text + ("\n[… file continues]" if len(data) > limit else "")


# ------------------------------------------------------------------ optimizer audit


def audit_records(descset: Path) -> list[dict[str, Any]]:
    """One record per gated candidate (and per unparsable rewrite), from the state files as plain JSON."""
    import difflib

    records: list[dict[str, Any]] = []
    for path in sorted((descset / "state").glob("*/*.json")):
        state, error = read_json(path)
        if not isinstance(state, dict):
            records.append({"task_id": path.parent.name, "source": path.stem, "error": error or "not an object"})
            continue
        original = state.get("original_text", "")
        rewrite = state.get("rewrite") or {}
        texts = {c.get("candidate_id"): c.get("text", "") for c in rewrite.get("candidates") or []}
        chosen = (state.get("selection") or {}).get("chosen_candidate_id")
        if rewrite.get("parse_error"):
            records.append({"task_id": state.get("task_id"), "source": state.get("source"), "candidate_id": "-",
                            "decision": "reject", "rejected_by": "rewriter",
                            "reasons": [f"rewrite_unparsable:{rewrite['parse_error']}"], "votes": [], "rules": [],
                            "contract": None, "diff": rewrite.get("reply_text", "")[:2000], "chosen": False})
        for v in state.get("verdicts") or []:
            cid = v.get("candidate_id")
            diff = "\n".join(difflib.unified_diff(original.splitlines(), texts.get(cid, "").splitlines(),
                                                  "original", f"candidate {cid}", lineterm=""))
            records.append({"task_id": v.get("task_id"), "source": v.get("source"), "candidate_id": cid,
                            "decision": v.get("decision"), "rejected_by": v.get("rejected_by"),
                            "reasons": v.get("reasons") or [], "votes": v.get("votes") or [],
                            "rules": v.get("rules") or [], "contract": v.get("contract"), "diff": diff,
                            "chosen": cid == chosen, "selection": (state.get("selection") or {}).get("reason", "")})
    return records
