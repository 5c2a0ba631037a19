"""What every report table carries besides its numbers: the `flags` column and the labels in `attrs` (its title
is the registry's, set by `report.registry` over the key `finish` puts there).

Below `report.tables` and `report.condition_tables`, which both build their tables through `finish`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from matchmeter.report.inputs import ReportContext

def finish(df: pd.DataFrame, ctx: ReportContext, name: str, config_cols: Sequence[str] = ("configuration_id",),
           notes: Sequence[str] = (), all_configs: bool = False,
           row_configs: Sequence[Sequence[str]] | None = None) -> pd.DataFrame:
    """Append the `flags` column and set attrs. Each row's configurations are its `config_cols` cells,
    or `row_configs[i]`, or (`all_configs`, for summary rows computed over all of them) every one."""
    every = sorted(ctx.original["configuration_id"].unique())
    if row_configs is None:
        row_configs = [list(every) if all_configs else [row[c] for c in config_cols if isinstance(row.get(c), str)]
                       for row in df.to_dict("records")]
    out = df.reset_index(drop=True)
    out["flags"] = [ctx.flags(c) for c in row_configs]
    involved = {c for cfgs in row_configs for c in cfgs}
    out.attrs = {"title": name, "simulated": bool(involved & ctx.simulated),
                 "simulated_all": bool(involved) and involved <= ctx.simulated,
                 "untrusted": sorted(involved & ctx.untrusted), "partial": sorted(involved & ctx.partial),
                 "trust": {c: ctx.trust_of(c) for c in sorted(involved)}, "notes": list(notes)}
    return out
