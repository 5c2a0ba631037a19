"""Trajectory-conditioned rewriter: diagnose what a source configuration's run exposed, write N clarifications.

The prompt holds the Original description and the source trajectory τ_i(π_k; d_i): each step's
command, its output (head and tail, truncated), its exit code, the steps that failed, the reward and
the per-subgoal scores. It never holds the verifier's code, the tests, the reference solution or
the reference paths (the gate reads those, the rewriter must not). The reply must be JSON
`{"diagnosis": [...], "candidates": [{"text": ..., "rationale": ...}]}` validated with pydantic; an
unparsable reply is recorded with no candidates. The generic rewriter (generic.py) shares the call and
the parsing; both prompts are in prompts.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from matchmeter.errors import AgentError
from matchmeter.gate.judge import extract_json
from matchmeter.optimizer.prompts import rewrite_messages
from matchmeter.optimizer.records import Candidate, RewriteOutcome, lineage_id
from matchmeter.schema import ExecutionResult, Trajectory, sha256_text

if TYPE_CHECKING:
    from matchmeter.llm.protocols import LMClientLike

OUTPUT_HEAD, OUTPUT_TAIL, MAX_STEPS = 400, 200, 40

class CandidateReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str = Field(min_length=1)
    rationale: str = ""


class RewriterReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    diagnosis: list[str] = Field(default_factory=list)
    candidates: list[CandidateReply]


def _clip(output: str) -> str:
    if len(output) <= OUTPUT_HEAD + OUTPUT_TAIL:
        return output
    return f"{output[:OUTPUT_HEAD]}\n[... {len(output) - OUTPUT_HEAD - OUTPUT_TAIL} characters cut ...]\n{output[-OUTPUT_TAIL:]}"


def render_attempt(trajectory: Trajectory, result: ExecutionResult) -> str:
    """The trajectory as the rewriter sees it: agent-visible facts and the graded outcome only."""
    lines = [f"reward: {result.reward:.3f} (0..1); failure mode: {result.failure_mode}; steps: {len(trajectory.steps)}"]
    if result.subgoal_scores:
        lines.append("subgoals: " + ", ".join(f"{k}={v:.2f}" for k, v in sorted(result.subgoal_scores.items())))
    failed = [s.index for s in trajectory.steps if s.exit_code not in (0, None) or s.timed_out]
    lines.append("failed steps: " + (", ".join(str(i) for i in failed) if failed else "none"))
    for step in trajectory.steps[:MAX_STEPS]:
        what = step.command if step.command is not None else f"tool call {step.tool_call}"
        status = "timed out" if step.timed_out else f"exit {step.exit_code}"
        lines.append(f"--- step {step.index} ({status})\n$ {what}\n{_clip(step.output)}")
    if len(trajectory.steps) > MAX_STEPS:
        lines.append(f"[... {len(trajectory.steps) - MAX_STEPS} more steps not shown ...]")
    if trajectory.final_message:
        lines.append(f"--- final message\n{_clip(trajectory.final_message)}")
    return "\n".join(lines)


def parse_candidates(text: str, n: int) -> tuple[RewriterReply | None, str | None]:
    try:
        reply = RewriterReply.model_validate(extract_json(text))
    except (ValueError, ValidationError) as exc:
        return None, f"unparsable rewriter reply: {str(exc).splitlines()[0][:200]}"
    if not reply.candidates:
        return None, "rewriter reply has no candidates"
    return RewriterReply(diagnosis=reply.diagnosis, candidates=reply.candidates[:n]), None


def request_candidates(client: LMClientLike, *, task_id: str, source: str, original: str, attempt: str | None, n: int,
                       origin: str = "optimized") -> RewriteOutcome:
    """One rewriter call → candidates with lineage ids; failures are recorded in `parse_error`."""
    messages = rewrite_messages(original, attempt, n)
    model = str(getattr(client, "model", "unknown"))
    try:
        reply = client.complete(messages, temperature=0.7)
    except AgentError as exc:  # the model refused the request: recorded. An endpoint fault (InfraError) is not the
        # rewriter's answer and must not be frozen as "no candidates": it stops optimize, which resumes later.
        return RewriteOutcome(model=model, messages=messages, parse_error=f"rewriter call failed: {exc}"[:300])
    parsed, error = parse_candidates(reply.text, n)
    parent = sha256_text(original)
    candidates = [
        Candidate(candidate_id=lineage_id(task_id, source, parent, i), task_id=task_id, source=source,
                  parent_sha256=parent, index=i, text=c.text.strip() + "\n", sha256=sha256_text(c.text.strip() + "\n"),
                  rationale=c.rationale, origin=origin, model=model, cost_usd=reply.cost.usd)
        for i, c in enumerate(parsed.candidates if parsed else [])
    ]
    return RewriteOutcome(model=model, messages=messages, reply_text=reply.text,
                          diagnosis=parsed.diagnosis if parsed else [], candidates=candidates, parse_error=error,
                          cost_usd=reply.cost.usd, new_spend_usd=reply.new_spend_usd, cache_hit=reply.cache_hit)
