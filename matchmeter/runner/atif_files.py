"""`matchmeter import atif FILE… --out DIR`: ATIF trajectories of other harnesses as our trajectory.json.

Each file must be an ATIF v1.x document (runner/atif.check_atif); one that is not is refused in one line
naming it, before anything is written. Each becomes `DIR/<file stem>.trajectory.json` (our Trajectory,
runner/atif.from_atif), usable wherever a stored trajectory is (`--agent replay --replay`). Token counts and
costs the document does not give are reported as not recorded, never as 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.runner.atif import AtifImport, check_atif, from_atif


def _read(path: Path) -> AtifImport:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UserError("ATIF file not found", str(path), "pass existing ATIF files") from exc
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"not a JSON file: {str(exc).splitlines()[0]}", str(path), "pass ATIF v1.x JSON files") from exc
    why = check_atif(doc)
    if why:
        raise UserError(f"not an ATIF v1.x trajectory: {why}", str(path), "pass ATIF v1.x JSON files")
    return from_atif(doc)


def import_atif_files(files: list[Path], out: Path) -> list[str]:
    """Convert every file (all read first); returns one summary line per file written."""
    read = [(Path(f), _read(Path(f))) for f in files]
    stems = [f.stem for f, _ in read]
    if dup := sorted({s for s in stems if stems.count(s) > 1}):
        raise UserError(f"two files share the name {dup[0]!r}", str(out), "rename one: outputs are named by file stem")
    if out.exists() and not out.is_dir():
        raise UserError("--out is a file, not a directory", str(out), "give --out a directory path")
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for path, got in read:
        target = out / f"{path.stem}.trajectory.json"
        atomic_write_text(target, got.trajectory.model_dump_json(indent=2))
        t = got.trajectory
        tokens = f"{t.tokens.total} tokens" if got.tokens_recorded else "tokens not recorded"
        cost = f"${t.cost.usd:.4f}" if got.cost_recorded and t.cost.usd is not None else "cost not recorded"
        lines.append(f"{target}: {len(t.steps)} action(s), {len(t.model_calls)} model call(s), {tokens}, {cost}")
    return lines
