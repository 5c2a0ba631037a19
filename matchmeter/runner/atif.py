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
- A multi-step execution also gets one document per step (`step_documents`: steps/<name>/trajectory.atif.json
  in the execution dir), each with its step's instruction, actions and model calls.
- A shell command is the tool call `{"function_name": "bash", "arguments": {"command": ...}}`; a
  structured tool call keeps its own name and arguments. Each result in `observation` names its call
  by `source_call_id`; exit code, duration and truncation live in the step's `extra.actions`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from matchmeter import __version__
from matchmeter.schema import Cost, ModelCall, Step, StepOutcome, TokenUsage, Trajectory

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


class AtifImport(NamedTuple):
    """An ATIF document read back: our trajectory, and which measures the document recorded."""

    trajectory: Trajectory
    tokens_recorded: bool  # some agent step (or final_metrics) gave token counts
    cost_recorded: bool  # every model call had cost_usd (or final_metrics gave total_cost_usd)


def check_atif(doc: object) -> str:
    """Why `doc` is not an ATIF v1.x document ('' when it is one)."""
    if not isinstance(doc, dict):
        return "not a JSON object"
    if not str(doc.get("schema_version", "")).startswith("ATIF-v1."):
        return f"schema_version is {doc.get('schema_version')!r}, not ATIF-v1.x"
    steps = doc.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        return "steps is not a list of objects"
    return ""


def _usd(value: object) -> float | None:
    """A recorded cost (a number >= 0), else None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


def _count(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else 0


def _tokens(metrics: dict[str, Any]) -> TokenUsage:
    prompt, cached = _count(metrics.get("prompt_tokens")), _count(metrics.get("cached_tokens"))
    extra = metrics.get("extra") if isinstance(metrics.get("extra"), dict) else {}
    reasoning = _count(extra.get("reasoning_tokens")) if isinstance(extra, dict) else 0
    completion = _count(metrics.get("completion_tokens"))
    return TokenUsage(input=max(prompt - cached, 0), cached_input=min(cached, prompt),
                      output=max(completion - reasoning, 0), reasoning=min(reasoning, completion))


def _action(index: int, call: dict[str, Any], output: str) -> Step:
    name = str(call.get("function_name") or "tool")
    arguments = call.get("arguments")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if isinstance(command, str):
        return Step(index=index, command=command, output=output)
    return Step(index=index, tool_call={"name": name, "arguments": arguments}, output=output)


def from_atif(doc: dict[str, Any]) -> AtifImport:
    """Our Trajectory from an ATIF v1.x document (check_atif first): one model call per agent step with
    `metrics`, one action per tool call (a call whose arguments hold a `command` string is a shell command),
    outputs from the observation results that name the call. Token counts and costs the document does not
    give stay unrecorded (AtifImport's flags), never a silent 0."""
    agent = doc.get("agent") if isinstance(doc.get("agent"), dict) else {}
    assert isinstance(agent, dict)
    steps: list[Step] = []
    calls: list[ModelCall] = []
    costs_known = True
    final_message = ""
    for raw in doc.get("steps") or []:
        if raw.get("source") != "agent":
            continue
        results = (raw.get("observation") or {}).get("results") if isinstance(raw.get("observation"), dict) else []
        outputs = {str(r.get("source_call_id")): str(r.get("content") or "") for r in results or []
                   if isinstance(r, dict)}
        for call in raw.get("tool_calls") or []:
            if isinstance(call, dict):
                steps.append(_action(len(steps), call, outputs.get(str(call.get("tool_call_id")), "")))
        metrics = raw.get("metrics")
        if isinstance(metrics, dict):
            cost = _usd(metrics.get("cost_usd"))
            costs_known = costs_known and cost is not None
            calls.append(ModelCall(index=len(calls), model=str(raw.get("model_name") or agent.get("model_name") or ""),
                                   tokens=_tokens(metrics),
                                   cost=Cost(usd=cost) if cost is not None else Cost(usd=None,
                                                                                     null_reason="ATIF step has no cost_usd")))
        if isinstance(raw.get("message"), str) and raw["message"]:
            final_message = raw["message"]
    final = doc.get("final_metrics") if isinstance(doc.get("final_metrics"), dict) else {}
    assert isinstance(final, dict)
    tokens_recorded = bool(calls) or any(k in final for k in ("total_prompt_tokens", "total_completion_tokens"))
    if not calls and tokens_recorded:  # totals only: one call carrying them
        total_cost = _usd(final.get("total_cost_usd"))
        calls.append(ModelCall(index=0, model=str(agent.get("model_name") or ""), tokens=_tokens(
            {"prompt_tokens": final.get("total_prompt_tokens"), "completion_tokens": final.get("total_completion_tokens"),
             "cached_tokens": final.get("total_cached_tokens")}),
            cost=Cost(usd=total_cost) if total_cost is not None else Cost(usd=None,
                                                                           null_reason="ATIF has no total_cost_usd")))
        costs_known = total_cost is not None
    trajectory = Trajectory(agent=str(agent.get("name") or ""), agent_version=str(agent.get("version") or ""),
                            model=agent.get("model_name") if isinstance(agent.get("model_name"), str) else None,
                            steps=steps, model_calls=calls, final_message=final_message)
    return AtifImport(trajectory, tokens_recorded, tokens_recorded and costs_known)


def step_documents(trajectory: Trajectory, steps: list[StepOutcome], instructions: dict[str, str], *,
                   session_id: str, agent_version: str) -> dict[str, dict[str, Any]]:
    """A multi-step execution's ATIF per step (name -> document): each step's own actions and model calls
    (StepOutcome.n_actions / n_model_calls, in order) after that step's instruction."""
    out: dict[str, dict[str, Any]] = {}
    actions = calls = 0
    for step in steps:
        part = trajectory.model_copy(update={
            "steps": trajectory.steps[actions:actions + step.n_actions],
            "model_calls": trajectory.model_calls[calls:calls + step.n_model_calls],
            "final_message": "" if step is not steps[-1] else trajectory.final_message})
        actions, calls = actions + step.n_actions, calls + step.n_model_calls
        out[step.name] = to_atif(part, session_id=f"{session_id}-{step.name}", agent_version=agent_version,
                                 instruction=instructions.get(step.name, ""))
    return out
