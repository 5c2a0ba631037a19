"""Render report tables to the terminal (rich) and write them as CSV + JSON, one pair per table.

Output layout of `write_tables`::

    <out-dir>/
      <name>.csv     the DataFrame, `flags` column last (SIMULATED / UNTRUSTED per row)
      <name>.json    {"title", "label": "SIMULATED" | "SIMULATED rows flagged" | "", "simulated", "untrusted", "partial",
                      "trust": {configuration: trusted | UNTRUSTED | not probed}, "notes", "rows": [...]}

Numbers are written unrounded (CSV/JSON) and rounded only for display; ∞ is written as "inf" in CSV
and as the string "Infinity" in JSON so a strict JSON reader still accepts the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchmeter.atomicfile import atomic_write_text
from matchmeter.report.terminal import print_table

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

def title_of(df: pd.DataFrame, name: str) -> str:
    """The title, with SIMULATED when every configuration in the table is simulated; a table mixing real and
    simulated configurations says that its SIMULATED rows are flagged (the `flags` column marks them)."""
    title = str(df.attrs.get("title", name))
    return f"{title} — {sim_label(df)}" if sim_label(df) else title


def sim_label(df: pd.DataFrame) -> str:
    """'SIMULATED' (every configuration), 'SIMULATED rows flagged' (some) or ''."""
    if not df.attrs.get("simulated"):
        return ""
    return "SIMULATED" if df.attrs.get("simulated_all", True) else "SIMULATED rows flagged"


def format_cell(value: Any, column: str = "") -> str:
    """Display form: 3 decimals, USD with 4 significant decimals, ∞, '-' for missing, yes/no for booleans."""
    if value is None:
        return "-"
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    try:
        import pandas as pd

        if pd.isna(value):
            return "-"
    except (TypeError, ValueError):
        pass
    if isinstance(value, int) or type(value).__name__.startswith("int"):
        return str(int(value))
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        v = float(value)
        if math.isinf(v):
            return "∞" if v > 0 else "-∞"
        if column.endswith("_usd"):
            return f"{v:.4g}" if abs(v) < 0.01 else f"{v:.4f}"
        if column.startswith("tokens") or column.startswith("n_"):
            return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"
        return f"{v:.3f}"
    return str(value)


def render_tables(tables: Mapping[str, pd.DataFrame], console: Console, skip: frozenset[str] = frozenset()) -> None:
    """Print each table (a grid, or stacked rows when wider than the console: `report.terminal`): SIMULATED in
    the title when the whole table is, in the flags of each row always; untrusted configurations named below.
    Long tables that belong in files and plots (`terminal=False` in their registry entry) are left out."""
    from pandas.api.types import is_numeric_dtype

    for name, df in tables.items():
        if name in skip or not df.attrs.get("terminal", True):
            continue
        headers = [str(c) for c in df.columns]
        rows = [[format_cell(v, c) for v, c in zip(row, headers, strict=True)] for row in df.itertuples(index=False)]
        right = {i for i, c in enumerate(df.columns) if is_numeric_dtype(df[c]) and df[c].dtype != bool}
        print_table(console, title_of(df, name), headers, rows, right=right)
        for note in df.attrs.get("notes", []):
            console.print(f"  note: {note}", highlight=False, soft_wrap=True)
        if df.attrs.get("untrusted"):
            console.print(f"  [yellow]UNTRUSTED[/] (failed an anti-gaming probe): {', '.join(df.attrs['untrusted'])}",
                          highlight=False, soft_wrap=True)
        if df.attrs.get("partial"):
            console.print(f"  [yellow]PARTIAL[/] (scored over part of the calibrated tasks): "
                          f"{', '.join(df.attrs['partial'])}", highlight=False, soft_wrap=True)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
    return value


def table_payload(df: pd.DataFrame, name: str) -> dict[str, Any]:
    """The JSON document of one table."""
    records = json.loads(df.to_json(orient="records", double_precision=15, default_handler=str))
    # pandas writes ±inf as null; restore them from the frame so ∞ cost-per-pass is not read as missing
    for i, row in enumerate(df.itertuples(index=False)):
        for col, value in zip(df.columns, row, strict=True):
            if isinstance(value, float) and math.isinf(value):
                records[i][col] = _json_safe(value)
    return {"name": name, "title": str(df.attrs.get("title", name)),
            "label": sim_label(df), "simulated": bool(df.attrs.get("simulated")),
            "untrusted": list(df.attrs.get("untrusted", [])), "partial": list(df.attrs.get("partial", [])),
            "trust": dict(df.attrs.get("trust", {})), "notes": list(df.attrs.get("notes", [])),
            "rows": records}


def write_tables(tables: Mapping[str, pd.DataFrame], out_dir: Path) -> list[Path]:
    """Write <name>.csv and <name>.json for every table (atomically); returns the paths written."""
    out_dir = Path(out_dir)
    paths = []
    for name, df in tables.items():
        csv_path, json_path = out_dir / f"{name}.csv", out_dir / f"{name}.json"
        atomic_write_text(csv_path, df.to_csv(index=False))
        atomic_write_text(json_path, json.dumps(table_payload(df, name), indent=2, ensure_ascii=False) + "\n")
        paths += [csv_path, json_path]
    return paths
