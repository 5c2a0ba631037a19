"""Every report table, once: its key, title, HTML section and builder, in the report's order.

One entry per table (`TableEntry`) is all a new metric needs beside its builder (docs/contributing.md,
"Add a report metric"): `build_tables` builds the entries in this order and gives each table its title and
terminal flag, `html.render_html` puts each table in its section (and refuses a table that is not
registered), and `render.render_tables` leaves out of the terminal the tables marked so. An entry without a
title, or with a section that is not in `SECTIONS`, cannot be made (`TableEntry.__post_init__`).

A builder is called as `builder(inputs, built, key)`: the report's inputs, the tables built so far (earlier
entries) and its own key; it returns None when the data does not support the table (it is left out).
This module sits above the table modules (`report.tables`, `report.condition_tables`) whose builders it
holds, below `report.html`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from matchmeter.metrics.calibration import check_price_table, read_calibration
from matchmeter.metrics.table import load_results
from matchmeter.report import condition_tables, tables
from matchmeter.report.inputs import TableInputs, make_context
from matchmeter.report.render import write_tables

if TYPE_CHECKING:
    import pandas as pd

    from matchmeter.metrics.calibration import Calibration

Builder = Callable[[TableInputs, Mapping[str, "pd.DataFrame"], str], "pd.DataFrame | None"]


class Section(NamedTuple):
    heading: str
    plot: str | None  # the plot drawn above the section's tables (html.plots' key), or None


SECTIONS: tuple[Section, ...] = (
    Section("Configurations (Table 1)", "ams_bars"),
    Section("Budget–quality curves", "budget_quality"),
    Section("Reward vs cost frontier", "frontier"),
    Section("Per-task heat map", "heatmap"),
    Section("AMS component ablation (Table 2) and rank agreement", None),
    Section("Description conditions (Tables 3 and 4)", "rank_shifts"),
    Section("Efficiency and harness fairness", None),
    Section("Transport", None),
)
HEADINGS = frozenset(s.heading for s in SECTIONS)


@dataclass(frozen=True)
class TableEntry:
    key: str  # the file name of its CSV/JSON and the HTML anchor
    title: str
    section: str  # a heading of SECTIONS
    builder: Builder
    shown: Literal["table", "plot"] = "table"  # "plot": the section's plot stands for it in the HTML (CSV/JSON keep it)
    terminal: bool = True  # printed by `matchmeter report` (long tables belong in files and plots)

    def __post_init__(self) -> None:
        if not self.title.strip():
            raise ValueError(f"report table {self.key!r} has no title")
        if self.section not in HEADINGS:
            raise ValueError(f"report table {self.key!r}: section {self.section!r} is not one of SECTIONS")

    def build(self, inputs: TableInputs, built: Mapping[str, pd.DataFrame]) -> pd.DataFrame | None:
        table = self.builder(inputs, built, self.key)
        if table is not None:
            table.attrs.update(title=self.title, terminal=self.terminal)
        return table


_T, _C = tables, condition_tables.registered
_CONFIGS, _ABLATION, _CONDITIONS = SECTIONS[0].heading, SECTIONS[4].heading, SECTIONS[5].heading
TABLES: list[TableEntry] = [
    TableEntry("table1_configurations", "Table 1 — configurations on Original descriptions", _CONFIGS,
               _T.build_table1),
    TableEntry("table1_leaders", "Table 1 — leaders", _CONFIGS, _T.build_leaders),
    TableEntry("pass_k", "pass@k and pass^k per configuration (unbiased estimators over attempts, task means)",
               _CONFIGS, _T.build_pass_k),
    TableEntry("budget_quality", "Budget–quality curves (reward share within budget b, per stratum)",
               SECTIONS[1].heading, _T.build_budget_quality, shown="plot", terminal=False),
    TableEntry("frontier", "Reward vs cost (upper convex hull from (0, 0))", SECTIONS[2].heading,
               _T.build_frontier),
    TableEntry("reward_keys", "Reward per key (Harbor reward.json keys: mean over executions, a missing key 0)",
               _CONFIGS, _T.build_reward_keys),
    TableEntry("per_task_reward", "Mean reward per configuration and task", SECTIONS[3].heading,
               _T.build_per_task_reward, shown="plot", terminal=False),
    TableEntry("table2_ablations", "Table 2 — AMS component ablation", _ABLATION, _T.build_ablations),
    TableEntry("spearman_ams_pass_rate", "Rank agreement of AMS with pass rate", _ABLATION, _T.build_spearman),
    TableEntry("core_fidelity", "Core vs Full: AMS ranking fidelity", _ABLATION, _T.build_core_fidelity),
    TableEntry("table3_conditions", "Table 3 — macro AMS and leader per description condition", _CONDITIONS, _C),
    TableEntry("table3_adapted1", "Table 3 — Adapted-1: per target mean reward, cost and AMS over the draws (95% "
               "draw intervals) and share of draws ranking first", _CONDITIONS, _C),
    TableEntry("rank_shifts", "AMS rank per condition (shift against Original)", _CONDITIONS, _C),
    TableEntry("table4_original_generic_self", "Table 4 — Original vs Generic vs Self per configuration",
               _CONDITIONS, _C),
    TableEntry("cross_only_improvements", "Cross-only evaluations improving on Original", _CONDITIONS, _C),
    TableEntry("conditions_per_pair", "Per condition and configuration: mean reward, mean cost, AMS", _CONDITIONS,
               _C, terminal=False),
    TableEntry("efficiency", "Efficiency card per configuration (task-macro means)", SECTIONS[6].heading,
               _T.build_efficiency),
    TableEntry("fairness", "Harness-fairness scores per configuration", SECTIONS[6].heading, _T.build_fairness),
    TableEntry("transport", "Transport damage (RR / RN / NN pass rates)", SECTIONS[7].heading,
               _T.build_transport),
]


def entry(key: str) -> TableEntry:
    """The registered entry of a table; a table that is not registered is a programming error, said plainly."""
    for table in TABLES:
        if table.key == key:
            return table
    raise KeyError(f"report table {key!r} is not registered in matchmeter/report/registry.py TABLES")


def check_registry(entries: Sequence[TableEntry] | None = None) -> None:
    """Every key once (titles and sections are checked when an entry is made)."""
    keys = [t.key for t in (TABLES if entries is None else entries)]
    if dup := sorted({k for k in keys if keys.count(k) > 1}):
        raise ValueError(f"report tables registered twice: {', '.join(dup)}")


def build_tables(frame: pd.DataFrame, calibration: Calibration, *, alpha: float | None = None,
                 reference_paths: Mapping[str, Sequence[Sequence[str]]] | None = None,
                 run_dirs: Sequence[Path] = (), core_task_ids: Sequence[str] = (), n_resamples: int = 1000,
                 seed: int = 0, n_draws: int = 10_000, task_note: str = "",
                 allow_partial: bool = False) -> dict[str, pd.DataFrame]:
    """Every registered table the data supports, in the registry's order (labels: report.tables' docstring).

    `frame` is a validated results table (`metrics.table.load_results(...).frame`); the efficiency
    card needs `run_dirs` (stored trajectories) and `reference_paths` (task id → command lists).
    """
    ctx = make_context(frame, calibration.cuts(), calibration.alpha if alpha is None else alpha, allow_partial)
    inputs = TableInputs(ctx, n_resamples=n_resamples, seed=seed, n_draws=n_draws, run_dirs=run_dirs,
                         reference_paths=reference_paths, core_task_ids=core_task_ids, task_note=task_note)
    check_registry()
    built: dict[str, pd.DataFrame] = {}
    for table in TABLES:
        made = table.build(inputs, built)
        if made is not None:
            built[table.key] = made
    return built


def titled(made: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Tables built outside `build_tables` (condition_tables.build) with their registered titles and flags."""
    for key, df in made.items():
        df.attrs.update(title=entry(key).title, terminal=entry(key).terminal)
    return dict(made)


def write_run_tables(conditions_table: Path, calibration: Path, out_dir: Path, n_draws: int = 10_000,
                     seed: int = 0, prices: Path | None = None) -> dict[str, pd.DataFrame]:
    """The condition tables of one evaluate run (its conditions.parquet) on a frozen calibration, written by the
    report's writer (`render.write_tables`): `evaluate --calibration` and `report` write the same files.
    The run is read as `report` reads it (`metrics.table.load_results`: checked against its stored results,
    re-priced with `prices`, which covers the executions adopted from other runs, and held to the
    calibration's price table). Empty when the run holds no condition but Original."""
    cal = read_calibration(calibration)
    results = load_results([conditions_table.parent], prices=prices)
    check_price_table(cal, calibration, results)
    ctx = make_context(results.frame, cal.cuts(), cal.alpha)
    if ctx.conditions is None:
        return {}
    built = titled(condition_tables.build(ctx, n_draws=n_draws, seed=seed))
    write_tables(built, out_dir)
    return built
