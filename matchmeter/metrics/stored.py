"""Cross-check a run's results table against its per-execution result.json files, which are the truth.

results.parquet (and an evaluation's conditions.parquet) is rebuilt from `executions/<key>/result.json` at
the end of a run; an interrupted run, a hand edit or a copied table can leave it saying something the
stored executions do not. Every command that scores reads the table through `check_against_stored`, so
a disagreement or an unreadable result.json is refused (one line: the path and how to rebuild) instead of
being scored. A table with no `executions/` beside it (a table copied on its own) has nothing to check
against and is read as it is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter.errors import UserError
from matchmeter.schema import ExecutionResult

if TYPE_CHECKING:
    import pandas as pd

# The run store's layout (runner/store.py, not imported: metrics never import the runner): a committed
# execution lives in a directory named by its 24-hex key; `.partial-…` directories are work in progress.
KEY_DIR = re.compile(r"[0-9a-f]{24}")
REBUILD = ("the result.json files are the truth: rebuild the table from them by resuming the run "
           "(`matchmeter run --resume` with its flags, or the same `matchmeter evaluate` again)")


def stored_rows(run_dir: Path) -> pd.DataFrame | None:
    """`ExecutionResult.to_row()` of every committed execution of `run_dir`; None without executions/.

    Raises:
        UserError: a result.json that cannot be read or validated (the path named).
    """
    import pandas as pd

    root = Path(run_dir) / "executions"
    if not root.is_dir():
        return None
    rows: list[dict[str, Any]] = []
    for exe in sorted(root.iterdir()):
        path = exe / "result.json"
        if not KEY_DIR.fullmatch(exe.name) or not path.is_file():
            continue
        try:
            result = ExecutionResult.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UserError(f"corrupt result.json: {str(exc).splitlines()[0]}", str(path),
                            "restore it, or delete that execution directory and resume the run to execute it "
                            "again; nothing is scored from a table it disagrees with") from exc
        if result.execution_key == exe.name:  # a directory copied under another key's name is not a result
            rows.append(result.to_row())
    return pd.DataFrame(rows)


def check_against_stored(table: pd.DataFrame, run_dir: Path, where: str, complete: bool = True) -> None:
    """Refuse a table whose rows differ from the stored result.json files of `run_dir`.

    `complete`: every stored execution must be in the table (results.parquet); an evaluation's
    conditions.parquet holds only the executions its condition units use, so it is checked row by row only.

    Raises:
        UserError: a corrupt result.json, a stored execution missing from the table, a row with no stored
            execution, or a value that differs (the first one found is named).
    """
    truth = stored_rows(run_dir)
    if truth is None:
        return
    if "execution_key" not in table.columns:
        raise UserError("results table has no execution_key column to check against the stored executions",
                        where, REBUILD)
    have, stored = set(table["execution_key"].astype(str)), set(truth.get("execution_key", []))
    if complete and stored - have:
        missing = sorted(stored - have)
        raise UserError(f"results table lacks {len(missing)} stored execution(s) (e.g. {missing[0]})", where, REBUILD)
    if have - stored:
        extra = sorted(have - stored)
        raise UserError(f"results table holds {len(extra)} execution(s) with no stored result.json "
                        f"(e.g. {extra[0]})", where, REBUILD)
    difference = first_difference(table.drop_duplicates("execution_key"), truth)
    if difference:
        raise UserError(f"results table disagrees with the stored result.json: {difference}", where, REBUILD)


def first_difference(table: pd.DataFrame, truth: pd.DataFrame) -> str:
    """'execution K: reward 1 in the table, 0 in result.json' for the first differing value, or ''."""
    import numpy as np
    from pandas.api.types import is_numeric_dtype

    cols = [c for c in truth.columns if c in table.columns and c != "execution_key"]
    merged = table[["execution_key", *cols]].astype({"execution_key": str}).merge(
        truth[["execution_key", *cols]], on="execution_key", suffixes=("_table", "_stored"))
    for col in cols:
        a, b = merged[f"{col}_table"], merged[f"{col}_stored"]
        both_na = a.isna().to_numpy() & b.isna().to_numpy()
        if is_numeric_dtype(a) and is_numeric_dtype(b):
            x, y = a.to_numpy(float), b.to_numpy(float)
            same = both_na | (np.isclose(x, y, rtol=1e-12, atol=0.0) & ~np.isnan(x) & ~np.isnan(y))
        else:
            same = both_na | ((a.astype(str) == b.astype(str)).to_numpy() & ~a.isna().to_numpy() & ~b.isna().to_numpy())
        if not same.all():
            i = int(np.flatnonzero(~same)[0])
            return (f"execution {merged['execution_key'].iloc[i]}: {col} {_shown(a.iloc[i])} in the table, "
                    f"{_shown(b.iloc[i])} in result.json")
    return ""


def _shown(value: Any) -> str:
    """A cell as Python writes it (1.0, 'none', None), not numpy's repr (np.float64(1.0))."""
    return repr(value.item() if hasattr(value, "item") else value)
