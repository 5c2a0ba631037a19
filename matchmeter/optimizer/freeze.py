"""Freeze a description set into `descriptions.json`, and load it back only if it is untouched.

    {"schema_version": 1, "kind": "matchmeter-descriptions", "simulated": bool,
     "source_run": {"run_ids", "task_digests"}, "settings": {rewriter_model, judge_model, judge_votes, candidates},
     "sources": [configuration ids],
     "tasks": {task_id: {"original": {"text", "sha256"},
                         "sources": {source_id: Entry}, "generic": Entry}},
     "digest": sha256 of the canonical JSON of everything above}

An Entry is the chosen text, its sha256, the parent (Original) sha256, the candidate id (null on
fallback), source-side reward and cost of the chosen text and of Original, and the fallback flag.
The file holds no timestamps or run ids of the optimizer's own run, so the same inputs give the same
bytes. `load_frozen` refuses a directory without the file (unfrozen) and a file whose digest or any
entry's sha256 does not match its text (modified). Target evaluation reads descriptions only here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from matchmeter.atomicfile import atomic_write_text
from matchmeter.errors import UserError
from matchmeter.optimizer.records import GENERIC, UnitState
from matchmeter.schema import SCHEMA_VERSION, Description, canonical_json, sha256_text

FILE = "descriptions.json"
KIND = "matchmeter-descriptions"


class Entry(BaseModel):
    text: str
    sha256: str
    parent_sha256: str
    candidate_id: str | None
    source_reward: float | None = Field(description="Source-side mean reward of the chosen text (None for generic).")
    source_cost_usd: float | None
    original_reward: float | None
    original_cost_usd: float | None
    fallback: bool


class TaskEntry(BaseModel):
    original: dict[str, str]
    sources: dict[str, Entry] = Field(default_factory=dict)
    generic: Entry | None = None


class FrozenSet(BaseModel):
    schema_version: int = SCHEMA_VERSION
    kind: str = KIND
    simulated: bool = False
    source_run: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    sources: list[str] = Field(default_factory=list)
    tasks: dict[str, TaskEntry] = Field(default_factory=dict)
    digest: str = ""

    def body_digest(self) -> str:
        return sha256_text(canonical_json(self.model_dump(mode="json", exclude={"digest"})))

    def description(self, task_id: str, source: str) -> Description:
        """d*_{i,k}: the frozen description of a task for one source (Original text on fallback)."""
        entry = self._task(task_id).sources.get(source)
        if entry is None:
            raise UserError(f"no frozen description for source {source!r}", f"task {task_id}",
                            f"choose one of {', '.join(self.sources)}")
        return _as_description(task_id, entry, source, "optimized")

    def generic(self, task_id: str) -> Description:
        """g_i: the frozen generic rewrite (Original text on fallback)."""
        entry = self._task(task_id).generic
        if entry is None:
            raise UserError("this description set has no generic rewrites", f"task {task_id}",
                            "run `matchmeter optimize` without --no-generic")
        return _as_description(task_id, entry, None, "generic")

    def pooled(self, task_id: str) -> list[Description]:
        """One description per source, in source order (the Pooled condition's units)."""
        return [self.description(task_id, s) for s in self.sources]

    def _task(self, task_id: str) -> TaskEntry:
        if task_id not in self.tasks:
            raise UserError(f"task {task_id!r} is not in the description set", "descriptions.json",
                            "optimize that task first, or drop it from the evaluation")
        return self.tasks[task_id]


def _as_description(task_id: str, entry: Entry, source: str | None, origin: str) -> Description:
    if entry.fallback:  # the Original itself: same sha256, so executions are shared with the Original condition
        return Description(task_id=task_id, text=entry.text, sha256=entry.sha256, origin="original",
                           source_configuration=source)
    return Description(task_id=task_id, text=entry.text, sha256=entry.sha256, origin=origin,
                       source_configuration=source, parent_sha256=entry.parent_sha256)


def entry_of(state: UnitState) -> Entry:
    chosen = state.candidate(state.selection.chosen_candidate_id)
    text = chosen.text if chosen else state.original_text
    orig = state.original_score
    picked = state.candidate_scores.get(chosen.candidate_id) if chosen else orig
    return Entry(text=text, sha256=sha256_text(text), parent_sha256=state.original_sha256,
                 candidate_id=chosen.candidate_id if chosen else None,
                 source_reward=picked.reward if picked else None, source_cost_usd=picked.cost_usd if picked else None,
                 original_reward=orig.reward if orig else None, original_cost_usd=orig.cost_usd if orig else None,
                 fallback=chosen is None)


def build_frozen(states: list[UnitState], *, sources: list[str], source_run: dict[str, Any],
                 settings: dict[str, Any], simulated: bool) -> FrozenSet:
    tasks: dict[str, TaskEntry] = {}
    for state in sorted(states, key=lambda s: (s.task_id, s.source)):
        task = tasks.setdefault(state.task_id, TaskEntry(original={"text": state.original_text,
                                                                   "sha256": state.original_sha256}))
        if state.source == GENERIC:
            task.generic = entry_of(state)
        else:
            task.sources[state.source] = entry_of(state)
    frozen = FrozenSet(simulated=simulated, source_run=source_run, settings=settings, sources=list(sources),
                       tasks=tasks)
    frozen.digest = frozen.body_digest()
    return frozen


def write_frozen(descset: Path, frozen: FrozenSet) -> Path:
    path = Path(descset) / FILE
    atomic_write_text(path, json.dumps(frozen.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def load_frozen(descset_dir: Path) -> FrozenSet:
    """The frozen set of a `matchmeter optimize` output. Raises UserError when unfrozen or modified."""
    path = Path(descset_dir) / FILE
    if not path.is_file():
        raise UserError("description set is not frozen (no descriptions.json)", str(descset_dir),
                        "finish `matchmeter optimize --out DIR` (it freezes the set last) before any target run")
    try:
        frozen = FrozenSet.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UserError(f"unreadable description set: {str(exc).splitlines()[0]}", str(path),
                        "re-run `matchmeter optimize` into a fresh directory") from exc
    if frozen.kind != KIND or frozen.digest != frozen.body_digest():
        raise UserError("description set was modified after it was frozen (digest mismatch)", str(path),
                        "restore the file or re-run `matchmeter optimize` into a fresh directory")
    for task_id, task in frozen.tasks.items():
        entries = [*task.sources.values(), *([task.generic] if task.generic else [])]
        if sha256_text(task.original["text"]) != task.original["sha256"] or any(
                sha256_text(e.text) != e.sha256 for e in entries):
            raise UserError("description text does not match its sha256", f"{path}, task {task_id}",
                            "restore the file or re-run `matchmeter optimize`")
    return frozen
