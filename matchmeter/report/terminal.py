"""Tables on a terminal, a pipe or a file: a grid when it fits the console's width, else one block per row.

rich folds a table that is wider than the console into columns a few characters wide, one character
per line when piped at 80 columns: unreadable. `print_table` measures the grid first (every cell on one
line) and, when it does not fit, stacks each row as its label (first column and flags) followed by
`column value` pairs wrapped to the width. Also the `matchmeter score` table (`render_scores`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from matchmeter.metrics import ams

if TYPE_CHECKING:
    from rich.console import Console

    from matchmeter.metrics.scoring import ScoreReport

CELL_PAD = 3  # rich's default box: one space either side and one border per column
SEP = " · "


def grid_width(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """Width of the grid with every header and cell on one line."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    return sum(w + CELL_PAD for w in widths) + 1


def stacked_lines(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int, flags_col: str = "flags") -> list[str]:
    """One block per row: the first cell (and the flags) on a line, then the other cells as `header value`
    pairs joined by ' · ', wrapped so no line is longer than `width` (a single longer pair keeps its line)."""
    flag_at = headers.index(flags_col) if flags_col in headers else -1
    lines: list[str] = []
    for row in rows:
        label = row[0] + (f"  [{row[flag_at]}]" if flag_at > 0 and row[flag_at] else "")
        lines.append(label)
        current = ""
        for i in range(1, len(headers)):
            if i == flag_at:
                continue
            pair = f"{headers[i]} {row[i]}"
            candidate = f"{current}{SEP}{pair}" if current else pair
            if current and len(candidate) + 4 > width:
                lines.append(f"    {current}")
                current = pair
            else:
                current = candidate
        if current:
            lines.append(f"    {current}")
    return lines


def print_table(console: Console, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                right: Collection[int] = (), caption: str = "") -> None:
    """A rich grid when it fits `console.width`, else the stacked form (`stacked_lines`)."""
    from rich.table import Table

    console.print(title, style="italic", markup=False, highlight=False, soft_wrap=True)
    if caption:
        console.print(f"  ({caption})", markup=False, highlight=False, soft_wrap=True)
    if grid_width(headers, rows) <= console.width:
        table = Table()
        for i, h in enumerate(headers):
            table.add_column(h, justify="right" if i in right else "left", no_wrap=True)
        for row in rows:
            table.add_row(*row)
        console.print(table)
        return
    for line in stacked_lines(headers, rows, console.width):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def render_scores(report: ScoreReport, console: Console) -> None:
    """`matchmeter score`: per configuration AMS, TQ AUBQC EFR per stratum, execution count, coverage and trust;
    then PARTIAL, re-pricing, infrastructure failures and configurations not scored."""
    table = report.scores.table
    sim = set(report.simulated_configs)
    scored = set(table["configuration_id"])
    all_sim = bool(scored) and scored <= sim
    title = f"AMS — condition {report.condition}" + (" — SIMULATED" if all_sim else
                                                      " — SIMULATED rows flagged" if scored & sim else "")
    headers = ["config", "rank", "AMS", *ams.STRATA, "n", "coverage", "trust", *(["flags"] if scored & sim else [])]
    rows: list[list[str]] = []
    row: Any  # a row namedtuple of the scores table
    for row in table.itertuples(index=False):
        cells = [f"{getattr(row, f'tq_{s}'):.2f} {getattr(row, f'aubqc_{s}'):.2f} {getattr(row, f'efr_{s}'):.2f}"
                 for s in ams.STRATA]
        flags = (["SIMULATED" if row.configuration_id in sim else ""] if scored & sim else [])
        rows.append([row.configuration_id, str(row.rank), f"{row.ams:.3f}", *cells, str(row.n_executions),
                     row.coverage, row.trust, *flags])
    print_table(console, title, headers, rows, right={1, 2, 3, 4, 5, 6}, caption="per stratum: TQ AUBQC EFR")
    if report.reward_keys:
        keys = sorted({k for means in report.reward_keys.values() for k in means})
        print_table(console, "Reward per key (mean over executions; a missing key counts 0, as in Harbor)",
                    ["config", *keys], [[cfg, *(f"{means[k]:.3f}" if k in means else "-" for k in keys)]
                                        for cfg, means in sorted(report.reward_keys.items())],
                    right=set(range(1, len(keys) + 1)))
    for cfg, missing in report.partial.items():
        console.print(f"[yellow]PARTIAL:[/] {cfg}: no execution on {len(missing)} calibrated task(s): "
                      f"{', '.join(missing)}", highlight=False, soft_wrap=True)
    health = report.health
    if health is not None and health.repriced_with:
        console.print(f"costs re-priced from stored token counts with price table {health.repriced_with}",
                      highlight=False, soft_wrap=True)
    for cfg, n in (health.infra_errors if health else {}).items():
        assert health is not None  # infra_errors came from it
        console.print(f"[yellow]infrastructure failures:[/] {cfg}: {n} of {health.n_executions[cfg]} executions",
                      highlight=False, soft_wrap=True)
    for cfg, reason in report.scores.excluded.items():
        console.print(f"[yellow]not scored:[/] {cfg}: {reason}", highlight=False, soft_wrap=True)
