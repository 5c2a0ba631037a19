"""Trajectories as ATIF (Agent Trajectory Interchange Format, Harbor's RFC), version ATIF_VERSION.

Shape written (only fields that exist in ATIF-v1.4):

- `session_id` = the execution key; `agent` = {name, version, model_name}; `version` is a CLI's own
  version (what its `--version` printed in the sandbox, else its profile's pinned install:
  `Trajectory.agent_version`), else the configuration's pinned agent version, else
  `matchmeter-<version>` for built-in agents.
- Step 1 is a `user` step holding the description the agent was given, so a trajectory is never
  empty (ATIF requires at least one step) even when the agent did nothing.
- Then one `agent` step per model call, in order, with that call's `metrics` (prompt tokens include
  cached ones, completion tokens include reasoning ones, as ATIF counts them) and the tool calls it
  led to: every recorded action made after the call started and before the next call started.
  Agents without model calls (oracle, replay, nop) get one `agent` step per action, without metrics.
- A shell command is the tool call `{"function_name": "bash", "arguments": {"command": ...}}`; a
  structured tool call keeps its own name and arguments. Each result in `observation` names its call
  by `source_call_id`; exit code, duration and truncation live in the step's `extra.actions`.
"""

from __future__ import annotations

from typing import Any

from matchmeter import __version__
from matchmeter.schema import ModelCall, Step, Trajectory

ATIF_VERSION = "ATIF-v1.4"
BASH_TOOL = "bash"


def builtin_agent_version() -> str:
    return f"matchmeter-{__version__}"


def _tool_call(step: Step) -> dict[str, Any]:
    call_id = f"call_{step.index + 1}"
    if step.command is not None:
        return {"tool_call_id": call_id, "function_name": BASH_TOOL, "arguments": {"command": step.command}}
    raw = dict(step.tool_call or {})
    name = str(raw.pop("name", None) or "tool")
    arguments = raw.pop("arguments", None)
    if not isinstance(arguments, dict):
        arguments = {**raw, **({"value": arguments} if arguments is not None else {})}
    return {"tool_call_id": call_id, "function_name": name, "arguments": arguments}


def _metrics(call: ModelCall) -> dict[str, Any]:
    t = call.tokens
    metrics: dict[str, Any] = {"prompt_tokens": t.input + t.cached_input, "completion_tokens": t.output + t.reasoning,
                               "cached_tokens": t.cached_input}
    if call.cost.usd is not None:
        metrics["cost_usd"] = call.cost.usd
    metrics["extra"] = {"reasoning_tokens": t.reasoning, "latency_s": call.latency_s, "cache_hit": call.cache_hit,
                        **({"cost_null_reason": call.cost.null_reason} if call.cost.usd is None else {})}
    return metrics


def _agent_step(step_id: int, actions: list[Step], call: ModelCall | None, message: str) -> dict[str, Any]:
    out: dict[str, Any] = {"step_id": step_id, "source": "agent", "message": message}
    first = actions[0].started_at if actions else (call.started_at if call else None)
    if first is not None:
        out["timestamp"] = first.isoformat()
    if call is not None:
        out["model_name"] = call.reported_model or call.model
    if actions:
        calls = [_tool_call(s) for s in actions]
        out["tool_calls"] = calls
        out["observation"] = {"results": [{"source_call_id": c["tool_call_id"], "content": s.output}
                                          for c, s in zip(calls, actions, strict=True)]}
    if call is not None:
        out["metrics"] = _metrics(call)
    if actions:
        out["extra"] = {"actions": [{"exit_code": s.exit_code, "duration_s": (s.ended_at - s.started_at).total_seconds(),
                                     "output_truncated": s.output_truncated, "output_bytes": s.output_bytes,
                                     "timed_out": s.timed_out} for s in actions]}
    return out


def _group(trajectory: Trajectory) -> list[tuple[ModelCall | None, list[Step]]]:
    """Each action goes to the last model call started at or before it (the first call if none)."""
    calls = sorted(trajectory.model_calls, key=lambda c: c.started_at)
    if not calls:
        return [(None, [s]) for s in trajectory.steps]
    groups: list[tuple[ModelCall | None, list[Step]]] = [(c, []) for c in calls]
    for step in trajectory.steps:
        owner = max((i for i, c in enumerate(calls) if c.started_at <= step.started_at), default=0)
        groups[owner][1].append(step)
    return groups


def to_atif(trajectory: Trajectory, *, session_id: str, agent_version: str, instruction: str) -> dict[str, Any]:
    """The trajectory as an ATIF document (a dict ready for json.dumps)."""
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": instruction}]
    groups = _group(trajectory)
    for i, (call, actions) in enumerate(groups):
        last = i == len(groups) - 1
        steps.append(_agent_step(len(steps) + 1, actions, call, trajectory.final_message if last else ""))
    tokens, cost = trajectory.tokens, trajectory.cost
    final: dict[str, Any] = {"total_prompt_tokens": tokens.input + tokens.cached_input,
                             "total_completion_tokens": tokens.output + tokens.reasoning,
                             "total_cached_tokens": tokens.cached_input, "total_steps": len(steps)}
    if cost.usd is not None:
        final["total_cost_usd"] = cost.usd
    agent: dict[str, Any] = {"name": trajectory.agent or "unknown", "version": agent_version or "unknown"}
    if trajectory.model:
        agent["model_name"] = trajectory.model
    doc: dict[str, Any] = {"schema_version": ATIF_VERSION, "session_id": session_id, "agent": agent,
                           "steps": steps, "final_metrics": final}
    extra = {"simulated": trajectory.simulated, "actions": len(trajectory.steps),
             "model_calls": len(trajectory.model_calls), "reported_models": trajectory.reported_models}
    doc["extra"] = extra
    return doc


def commands_from_atif(doc: dict[str, Any]) -> list[str]:
    """The shell commands of an ATIF document, in order (tool calls named `bash` with a `command`)."""
    out = []
    for step in doc.get("steps") or []:
        if not isinstance(step, dict) or step.get("source") != "agent":
            continue
        for call in step.get("tool_calls") or []:
            args = call.get("arguments") if isinstance(call, dict) else None
            if call.get("function_name") == BASH_TOOL and isinstance(args, dict) and isinstance(args.get("command"), str):
                out.append(args["command"])
    return out
