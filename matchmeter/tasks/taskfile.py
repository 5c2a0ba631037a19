"""Parse one task.toml into TaskSpec fields: Harbor compatibility and one-line validation errors.

task.toml carries every TaskSpec field except `instruction` (instruction.md), `path` and `digest`
(computed by the loader). A Harbor / Terminal-Bench 2 task.toml loads unchanged:

- matchmeter's own keys live in `[metadata.matchmeter]` (Harbor's `metadata` is a free-form table, so
  `harbor lint` accepts it); the older layout with the same keys at the top level still loads.
- Defaults for a task that has none of them (HARBOR_DEFAULTS): `id` = the directory name,
  `source_family` = "imported", `category` = "uncategorized", `difficulty` = "medium", one subgoal
  `tests_pass` of weight 1 (the verifier's reward.txt/reward.json is the whole grade), no reference
  paths (path-based efficiency figures are n/a for the task), no environment/setup.sh (the
  Dockerfile is the whole starting state).
- `[metadata]` supplies category, difficulty and tags; `[agent].timeout_sec`, `[verifier].timeout_sec`
  and `[environment].build_timeout_sec` fill timeouts we do not set ourselves; `[environment]` maps
  `allow_internet`, `network_mode`, `memory` ("2G") and `memory_mb`, and ignores the keys in
  _HARBOR_ENV_IGNORED. `version`/`schema_version`, `source`, `[task]`, `[solution]` and `artifacts`
  are ignored. Non-empty `env` tables are errors; so is any other unknown key.
- A multi-step task (`[[steps]]`, Harbor 0.26) loads its steps in order: `name`, `min_reward`,
  `agent.timeout_sec`, `verifier.timeout_sec` (a step's `artifacts` are ignored; other step keys are
  errors), and `multi_step_reward_strategy` ("mean" by default, or "final"). The loader reads each
  step's instruction from steps/<name>/instruction.md.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from matchmeter.errors import UserError
from matchmeter.schema import TaskSpec

# Keys the loader fills itself; a task.toml that sets them would be silently overwritten.
COMPUTED_KEYS = ("instruction", "path", "digest")
_HARBOR_ENV_IGNORED = {"docker_image", "storage", "storage_mb", "gpus", "gpu_types", "build_timeout_sec", "os",
                       "workdir", "healthcheck", "skills_dir", "allowed_hosts", "tpu"}
_HARBOR_TOP_IGNORED = ("version", "schema_version", "source", "task", "solution", "artifacts")
_HARBOR_PHASE_KEYS = {"timeout_sec", "env", "user", "network_mode", "allowed_hosts"}
_STEP_KEYS = {"name", "min_reward", "agent", "verifier", "artifacts"}
MATCHMETER_TABLE = "matchmeter"
# What a Harbor task without matchmeter keys gets (documented in the module docstring and README).
HARBOR_DEFAULTS: dict[str, Any] = {
    "source_family": "imported",
    "category": "uncategorized",
    "difficulty": "medium",
    "subgoals": [{"name": "tests_pass", "weight": 1.0, "description": "tests pass (the verifier's reward)"}],
    "reference_paths": [],
}


def read_task_toml(path: Path) -> dict[str, Any]:
    """Read and normalize task.toml into a dict ready for TaskSpec (without instruction/path/digest)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"task.toml is not valid TOML: {exc}", str(path), "fix the TOML syntax") from exc
    except UnicodeDecodeError as exc:
        raise UserError("task.toml is not UTF-8", str(path), "save it as UTF-8") from exc
    for key in COMPUTED_KEYS:
        if key in raw:
            raise UserError(
                f"task.toml: {key} must not be set (got {raw[key]!r})",
                str(path),
                f"remove it; {key} is computed by the loader" + (" from instruction.md" if key == "instruction" else ""),
            )
    return _from_harbor(raw, path)


def _table(raw: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = raw.pop(key, {})
    if not isinstance(value, dict):
        raise UserError(f"task.toml: {key} must be a table (got {value!r})", str(path), f"write it as [{key}]")
    return value


def _from_harbor(raw: dict[str, Any], path: Path) -> dict[str, Any]:
    raw = dict(raw)
    steps = _harbor_steps(raw.pop("steps", None), path)
    strategy = raw.pop("multi_step_reward_strategy", None)
    for key in _HARBOR_TOP_IGNORED:
        raw.pop(key, None)
    metadata = _table(raw, "metadata", path)
    ours = metadata.pop(MATCHMETER_TABLE, {})
    if not isinstance(ours, dict):
        raise UserError(f"task.toml: metadata.{MATCHMETER_TABLE} must be a table (got {ours!r})", str(path),
                        f"write it as [metadata.{MATCHMETER_TABLE}]")
    ours = dict(ours)
    if isinstance(ours.get("environment"), dict) and isinstance(raw.get("environment"), dict):
        # Harbor's [environment] (cpus, memory_mb, network_mode) and ours (setup, network) merge key by key.
        both = sorted(set(ours["environment"]) & set(raw["environment"]))
        if both:
            raise UserError(f"task.toml: environment.{both[0]} is set both in [environment] and in "
                            f"[metadata.{MATCHMETER_TABLE}.environment]", str(path), "keep one of them")
        raw["environment"] = {**raw["environment"], **ours.pop("environment")}
    twice = sorted(set(ours) & set(raw))
    if twice:
        raise UserError(f"task.toml: {twice[0]} is set both at the top level and in [metadata.{MATCHMETER_TABLE}]",
                        str(path), "keep one of them")
    raw.update(ours)
    raw.setdefault("id", path.parent.name)
    for key in ("category", "difficulty", "tags"):
        if key not in raw and key in metadata:
            raw[key] = metadata[key]
    for key, value in HARBOR_DEFAULTS.items():
        raw.setdefault(key, value)
    timeouts = dict(raw.get("timeouts", {})) if isinstance(raw.get("timeouts", {}), dict) else raw.get("timeouts")
    for table, ours_key in (("agent", "agent_s"), ("verifier", "verify_s")):
        harbor = _table(raw, table, path)
        unknown = sorted(set(harbor) - _HARBOR_PHASE_KEYS)
        if unknown:
            raise UserError(f"task.toml: unknown key {table}.{unknown[0]}", str(path),
                            f"remove it; [{table}] accepts {', '.join(sorted(_HARBOR_PHASE_KEYS))} (Harbor)")
        if harbor.get("env"):
            raise UserError(f"task.toml: {table}.env is not supported (got {harbor['env']!r})", str(path),
                            "set variables inside the task's scripts instead")
        if "timeout_sec" in harbor and harbor["timeout_sec"] is not None and isinstance(timeouts, dict):
            timeouts.setdefault(ours_key, harbor["timeout_sec"])
    env = raw.get("environment")
    if isinstance(env, dict):
        raw["environment"] = _harbor_environment(env, timeouts, path)
    if timeouts:
        raw["timeouts"] = timeouts
    if steps:
        raw["steps"] = steps
    if strategy is not None:
        raw["multi_step_reward"] = strategy
    return raw


def _harbor_steps(steps: Any, path: Path) -> list[dict[str, Any]]:
    """Harbor's [[steps]] as TaskStep fields (instruction filled by the loader)."""
    if steps is None:
        return []
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise UserError(f"task.toml: steps must be an array of tables (got {steps!r:.80})", str(path),
                        "write each step as [[steps]] with a name")
    out = []
    for i, step in enumerate(steps):
        unknown = sorted(set(step) - _STEP_KEYS)
        if unknown:
            raise UserError(f"task.toml: steps[{i}].{unknown[0]} is not supported", str(path),
                            f"remove it; a step accepts {', '.join(sorted(_STEP_KEYS))}")
        item: dict[str, Any] = {"name": step.get("name"), "min_reward": step.get("min_reward")}
        for table, ours in (("agent", "agent_s"), ("verifier", "verify_s")):
            phase = step.get(table, {})
            extra = sorted(set(phase) - {"timeout_sec"}) if isinstance(phase, dict) else ["(not a table)"]
            if extra:
                raise UserError(f"task.toml: steps[{i}].{table}.{extra[0]} is not supported", str(path),
                                f"a step's [{table}] accepts timeout_sec only")
            if phase.get("timeout_sec") is not None:
                item[ours] = phase["timeout_sec"]
        out.append(item)
    names = [s["name"] for s in out]
    if dup := sorted({n for n in names if isinstance(n, str) and names.count(n) > 1}):
        raise UserError(f"task.toml: step name {dup[0]!r} is used twice", str(path), "give every step a unique name")
    return out


def _harbor_environment(env: dict[str, Any], timeouts: Any, path: Path) -> dict[str, Any]:
    env = dict(env)
    if "build_timeout_sec" in env and isinstance(timeouts, dict):
        timeouts.setdefault("setup_s", env["build_timeout_sec"])
    for key in _HARBOR_ENV_IGNORED:
        env.pop(key, None)
    for key in ("mcp_servers", "env"):
        if env.get(key):
            raise UserError(f"task.toml: environment.{key} is not supported (got {env[key]!r})", str(path),
                            f"remove environment.{key}")
        env.pop(key, None)
    if env.get("allow_internet") is not None:
        env.setdefault("network", env["allow_internet"])
    env.pop("allow_internet", None)
    if "network_mode" in env:  # Harbor: "public" | "no-network" | "allowlist" (an allowlist needs the network)
        env.setdefault("network", env.pop("network_mode") != "no-network")
    if "memory" in env:
        env.setdefault("memory_mb", _memory_mb(env.pop("memory"), path))
    for key in ("cpus", "memory_mb"):
        if env.get(key, 0) is None:
            env.pop(key)
    return env


def _memory_mb(value: Any, path: Path) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([gGmM])?[bB]?\s*", str(value))
    if not match:
        raise UserError(f"task.toml: environment.memory must look like '2G' or '512M' (got {value!r})", str(path),
                        "fix environment.memory or use memory_mb")
    amount = float(match.group(1))
    return int(amount * 1024) if (match.group(2) or "M").upper() == "G" else int(amount)


def validate_spec(data: dict[str, Any], path: Path) -> TaskSpec:
    """Build the TaskSpec, turning pydantic errors into one UserError with one clear clause per error."""
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        problems = [_problem(err) for err in exc.errors()]
    if len(problems) == 1:
        what, fix = problems[0]
        raise UserError(f"task.toml: {what}", str(path), fix)
    raise UserError(
        f"task.toml has {len(problems)} problems: " + "; ".join(w for w, _ in problems),
        str(path),
        "; ".join(dict.fromkeys(f for _, f in problems)),
    )


def _loc_text(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _known_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model that holds loc's last key (for 'did you mean' fixes)."""
    model: type[BaseModel] = TaskSpec
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[part].annotation
        args = getattr(annotation, "__args__", None)
        inner = args[0] if args else annotation
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return []
        model = inner
    return [k for k in model.model_fields if k not in COMPUTED_KEYS]


def _problem(err: ErrorDetails) -> tuple[str, str]:
    """(what, fix) for one pydantic error, e.g. ('subgoals[1].weight must be > 0 (got -1)', 'fix the weight')."""
    loc = tuple(err["loc"])
    where = _loc_text(loc)
    leaf = next((p for p in reversed(loc) if isinstance(p, str)), where)
    kind, ctx, got = err["type"], err.get("ctx", {}), err.get("input")
    if kind == "missing":
        return f"{where} is missing", f"add {leaf} to task.toml"
    if kind == "extra_forbidden":
        known = ", ".join(_known_keys(loc))
        return f"unknown key {where} (got {got!r})", f"remove it or fix its spelling (known keys: {known})"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}[kind]
        bound = next(iter(ctx.values()))
        bound = f"{bound:g}" if isinstance(bound, int | float) else bound
        return f"{where} must be {op} {bound} (got {got!r})", f"fix the {leaf}"
    if kind == "literal_error":
        return f"{where} must be one of {ctx.get('expected')} (got {got!r})", f"fix the {leaf}"
    if kind == "too_short":
        return f"{where} must have at least {ctx.get('min_length')} item(s) (got {got!r})", f"add to {leaf}"
    message = err["msg"][:1].lower() + err["msg"][1:]
    return f"{where}: {message} (got {got!r})", f"fix the {leaf}"
