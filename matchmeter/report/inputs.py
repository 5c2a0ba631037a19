"""What the report reads: stored results tables, the frozen calibration, and (for the efficiency card)
stored trajectories plus the tasks' reference paths.

The report never imports the runner: it reads the run store's files by their documented layout::

    runs/<run-id>/
      manifest.json                  request.tasks = the task/suite paths the run used ([] = built-in suite)
      results.parquet                one row per execution (ExecutionResult.to_row(), plus `condition`
                                     and `source` for evaluate runs)
      executions/<execution-key>/    result.json, trajectory.json

`ReportContext` splits the table once into the views every table needs (the Original view that
Table 1 scores, the conditions frame) and records which configurations are SIMULATED, what their trust
state is (trusted / UNTRUSTED / not probed, `metrics.trust`) and which are scored PARTIAL (allowed only
with `allow_partial`; `metrics.coverage`). Probe executions decide trust and are not scored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from matchmeter.errors import UserError
from matchmeter.metrics.coverage import coverage_gaps
from matchmeter.metrics.efficiency import EfficiencyCard, efficiency_card, steps_from_trajectory
from matchmeter.metrics.trust import NOT_PROBED, UNTRUSTED, split_probes, trust_states
from matchmeter.schema import ExecutionResult, Trajectory
from matchmeter.tasks.loader import builtin_suite_dir, is_task_dir, load_tasks, read_index

if TYPE_CHECKING:
    import pandas as pd

    from matchmeter.metrics.ams import StrataCuts


class ReportContext(NamedTuple):
    """Views and labels shared by every table builder."""

    frame: pd.DataFrame  # every row given (validated)
    original: pd.DataFrame  # rows Table 1 scores: condition == original, or every row without a condition column
    conditions: pd.DataFrame | None  # rows with a stored condition (original | pooled | generic), when any is not original
    cuts: StrataCuts
    alpha: float
    simulated: frozenset[str]  # configuration ids with any simulated row
    untrusted: frozenset[str]  # configuration ids whose trust state is UNTRUSTED
    trust: Mapping[str, str] = {}  # configuration id -> trusted | UNTRUSTED | not probed
    partial: frozenset[str] = frozenset()  # configurations scored over part of the calibrated tasks
    allow_partial: bool = False

    def flags(self, configurations: Iterable[str | None]) -> str:
        """'SIMULATED', 'UNTRUSTED' and/or 'PARTIAL' when any named configuration is."""
        names = {c for c in configurations if c}
        out = []
        if names & self.simulated:
            out.append("SIMULATED")
        if names & self.untrusted:
            out.append("UNTRUSTED")
        if names & self.partial:
            out.append("PARTIAL")
        return " ".join(out)

    def trust_of(self, configuration: str) -> str:
        return self.trust.get(configuration, NOT_PROBED)


def make_context(frame: pd.DataFrame, cuts: StrataCuts, alpha: float, allow_partial: bool = False) -> ReportContext:
    """Split a validated results table into the report's views.

    Rows of a mixed table without a condition (plain runs beside evaluate runs) count as Original
    when their description is the Original one; other condition-less rows belong to no condition.
    """
    import pandas as pd

    trust = trust_states(frame)
    frame = split_probes(frame)[0]

    def configs_where(mask: pd.Series) -> frozenset[str]:
        return frozenset(frame.loc[mask, "configuration_id"].astype(str))

    sim = frame["simulated"].fillna(False).astype(bool) if "simulated" in frame.columns else pd.Series(False, frame.index)
    conditions = None
    original = frame
    if "condition" in frame.columns:
        cond = frame["condition"].astype(object)
        if "description_origin" in frame.columns:
            is_orig = frame["description_origin"].fillna("original") == "original"
            cond = cond.where(cond.notna() | ~is_orig, "original")
        else:
            cond = cond.where(cond.notna(), "original")
        labelled = frame.assign(condition=cond)
        if "source" not in labelled.columns:
            labelled["source"] = None
        original = labelled.loc[labelled["condition"] == "original"]
        if (labelled["condition"].dropna() != "original").any():
            conditions = labelled.loc[labelled["condition"].notna()]
    if original.empty:
        raise UserError("no executions on Original descriptions", "results tables",
                        "include the Original run (or the evaluate run's Original condition)")
    partial = set(coverage_gaps(original, cuts.task_strata))
    if conditions is not None:
        for _, part in conditions.groupby("condition"):
            partial |= set(coverage_gaps(part, cuts.task_strata))
    return ReportContext(frame, original, conditions, cuts, alpha, configs_where(sim),
                         frozenset(c for c, t in trust.items() if t == UNTRUSTED), trust, frozenset(partial), allow_partial)


# ------------------------------------------------------------------ tasks and trajectories


class TaskContext(NamedTuple):
    reference_paths: dict[str, list[list[str]]]
    core_task_ids: list[str]
    note: str  # why reference paths are missing, when they are


def task_context(run_dirs: Sequence[Path], task_paths: Sequence[Path] = ()) -> TaskContext:
    """Reference paths and the Core subset of the tasks the runs used (manifest `request.tasks`).

    A task set that cannot be loaded any more (moved, deleted) leaves the efficiency card out with
    the reason in `note` rather than failing the whole report.
    """
    paths = [Path(p) for p in task_paths] or _manifest_task_paths(run_dirs)
    try:
        tasks = load_tasks(paths)
        core: list[str] = []
        for p in paths or [builtin_suite_dir()]:
            index = None if is_task_dir(p) else read_index(p)
            core.extend(index.core if index else [])
    except UserError as exc:
        return TaskContext({}, [], f"tasks could not be loaded for the efficiency card: {exc.line()}")
    refs = {t.id: [list(rp.commands) for rp in t.reference_paths] for t in tasks}
    return TaskContext(refs, sorted(set(core)), "")


def _manifest_task_paths(run_dirs: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for run_dir in run_dirs:
        path = Path(run_dir) / "manifest.json"
        if not path.is_file():
            continue
        try:
            request = json.loads(path.read_text(encoding="utf-8")).get("request", {}) or {}
        except ValueError as exc:
            raise UserError(f"unreadable manifest: {exc}", str(path), "restore manifest.json") from exc
        for p in request.get("tasks", []) or []:
            if Path(p) not in out:
                out.append(Path(p))
    return out


def execution_cards(run_dirs: Sequence[Path], frame: pd.DataFrame,
                    reference_paths: Mapping[str, Sequence[Sequence[str]]]) -> pd.DataFrame:
    """Efficiency card of every execution of `frame` whose trajectory is stored and whose task has reference paths.

    Columns: execution_key, configuration_id, task_id and the `EfficiencyCard` fields. The reward fed
    to Q is the raw verifier reward with the stored safety findings deducted (as `card_for_execution`).
    """
    import pandas as pd

    wanted = set(frame["execution_key"].astype(str)) if "execution_key" in frame.columns else set()
    rows = []
    for run_dir in run_dirs:
        root = Path(run_dir) / "executions"
        if not root.is_dir():
            continue
        for exe in sorted(root.iterdir()):
            if exe.name not in wanted or not (exe / "trajectory.json").is_file() or not (exe / "result.json").is_file():
                continue
            result = ExecutionResult.model_validate_json((exe / "result.json").read_text(encoding="utf-8"))
            refs = reference_paths.get(result.task_id)
            if not refs:
                continue
            traj = Trajectory.model_validate_json((exe / "trajectory.json").read_text(encoding="utf-8"))
            steps = steps_from_trajectory(traj)
            if result.raw_verifier_reward is None:
                card = efficiency_card(steps, refs, result.reward)
            else:
                card = efficiency_card(steps, refs, result.raw_verifier_reward,
                                       unexpected_changes=len(result.safety_findings),
                                       critical=any(f.critical for f in result.safety_findings))
            rows.append({"execution_key": exe.name, "configuration_id": result.configuration_id,
                         "task_id": result.task_id, **card._asdict()})
            wanted.discard(exe.name)  # the same key stored in two runs counts once
    return pd.DataFrame(rows, columns=["execution_key", "configuration_id", "task_id", *EfficiencyCard._fields])


@dataclass
class TableInputs:
    """What a report table's builder may use (report/registry.py): the context and `build_tables`' options."""

    ctx: ReportContext
    n_resamples: int = 1000
    seed: int = 0
    n_draws: int = 10_000
    run_dirs: Sequence[Path] = ()
    reference_paths: Mapping[str, Sequence[Sequence[str]]] | None = None
    core_task_ids: Sequence[str] = ()
    task_note: str = ""
    memo: dict[str, Any] = field(default_factory=dict)  # work several builders share (the condition report)
