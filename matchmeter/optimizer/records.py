"""Records of the optimizer: candidates, rewrite outcomes and the per-(task, source) state files.

A state file `state/<task>/<source-slug>.json` is written atomically once a (task, source) unit is
finished (rewrite, gate, source-side executions, selection), so `optimize` resumes by skipping units
that have one. `descriptions.json` (freeze.py) is built from these files only.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from matchmeter.gate.verdict import GateVerdict
from matchmeter.schema import SCHEMA_VERSION, canonical_json, sha256_text

GENERIC = "generic"


def lineage_id(task_id: str, source: str, parent_sha256: str, index: int) -> str:
    """Stable candidate id: the same (task, source, parent, index) always names the same slot."""
    return sha256_text(canonical_json([task_id, source, parent_sha256, index]))[:16]


def source_slug(source: str) -> str:
    """A file-name-safe, collision-free name for a configuration id."""
    safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", source)[:60]
    return f"{safe}-{sha256_text(source)[:8]}"


class Candidate(BaseModel):
    schema_version: int = SCHEMA_VERSION
    candidate_id: str
    task_id: str
    source: str = Field(description="Source configuration id, or 'generic'.")
    parent_sha256: str
    index: int
    text: str
    sha256: str
    rationale: str = ""
    origin: Literal["optimized", "generic"] = "optimized"
    model: str
    cost_usd: float | None = Field(None, description="Cost of the rewrite call that produced it (shared by its siblings).")


class RewriteOutcome(BaseModel):
    """One rewriter call: the prompt, the reply, what parsed out of it."""

    model: str
    messages: list[dict[str, Any]]
    reply_text: str = ""
    diagnosis: list[str] = Field(default_factory=list)
    candidates: list[Candidate] = Field(default_factory=list)
    parse_error: str | None = Field(None, description="Why the reply gave no candidates (recorded, not raised).")
    cost_usd: float | None = None
    new_spend_usd: float | None = None
    cache_hit: bool = False


class DescriptionScore(BaseModel):
    """Source-side mean reward and mean cost of one description over the source run's seeds × attempts."""

    reward: float
    cost_usd: float | None
    n: int
    execution_keys: list[str] = Field(default_factory=list)


class Selection(BaseModel):
    chosen_candidate_id: str | None = Field(None, description="None = fall back to Original.")
    fallback: bool
    reason: str


class UnitState(BaseModel):
    """Everything about one (task, source) unit; the generic unit has source 'generic' and no scores."""

    schema_version: int = SCHEMA_VERSION
    task_id: str
    source: str
    original_sha256: str
    original_text: str
    rewrite: RewriteOutcome
    verdicts: list[GateVerdict] = Field(default_factory=list)
    original_score: DescriptionScore | None = None
    candidate_scores: dict[str, DescriptionScore] = Field(default_factory=dict)
    selection: Selection

    def candidate(self, candidate_id: str | None) -> Candidate | None:
        return next((c for c in self.rewrite.candidates if c.candidate_id == candidate_id), None)

    def verdict(self, candidate_id: str) -> GateVerdict | None:
        return next((v for v in self.verdicts if v.candidate_id == candidate_id), None)
