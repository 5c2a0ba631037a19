"""Parse one task.toml into TaskSpec fields: Harbor compatibility and one-line validation errors.

task.toml carries every TaskSpec field except `instruction` (instruction.md), `path` and `digest`
(computed by the loader). Harbor / Terminal-Bench 2 tables are accepted so a Harbor task loads as is:
`version` is ignored; `[metadata]` is free-form and supplies category, difficulty and tags when the
top level lacks them; `[agent].timeout_sec`, `[verifier].timeout_sec` and
`[environment].build_timeout_sec` fill timeouts we do not set ourselves; `[environment]` also maps
Harbor's `allow_internet` and `memory` ("2G") and ignores `docker_image`, `storage*` and `gpu*`
(the docker backend always builds environment/Dockerfile). Any other unknown key is an error.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from matchmeter.errors import UserError
from matchmeter.schema import TaskSpec

# Keys the loader fills itself; a task.toml that sets them would be silently overwritten.
COMPUTED_KEYS = ("instruction", "path", "digest")
_HARBOR_ENV_IGNORED = {"docker_image", "storage", "storage_mb", "gpus", "gpu_types", "build_timeout_sec"}


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
    raw.pop("version", None)
    metadata = _table(raw, "metadata", path)
    for key in ("category", "difficulty", "tags"):
        if key not in raw and key in metadata:
            raw[key] = metadata[key]
    timeouts = dict(raw.get("timeouts", {})) if isinstance(raw.get("timeouts", {}), dict) else raw.get("timeouts")
    for table, ours in (("agent", "agent_s"), ("verifier", "verify_s")):
        harbor = _table(raw, table, path)
        unknown = sorted(set(harbor) - {"timeout_sec", "env"})
        if unknown:
            raise UserError(f"task.toml: unknown key {table}.{unknown[0]}", str(path),
                            f"remove it; [{table}] accepts only timeout_sec (Harbor compatibility)")
        if harbor.get("env"):
            raise UserError(f"task.toml: {table}.env is not supported (got {harbor['env']!r})", str(path),
                            "set variables inside the task's scripts instead")
        if "timeout_sec" in harbor and isinstance(timeouts, dict):
            timeouts.setdefault(ours, harbor["timeout_sec"])
    env = raw.get("environment")
    if isinstance(env, dict):
        env = dict(env)
        if "build_timeout_sec" in env and isinstance(timeouts, dict):
            timeouts.setdefault("setup_s", env["build_timeout_sec"])
        for key in _HARBOR_ENV_IGNORED:
            env.pop(key, None)
        if "allow_internet" in env:
            env.setdefault("network", env.pop("allow_internet"))
        if "memory" in env:
            env.setdefault("memory_mb", _memory_mb(env.pop("memory"), path))
        raw["environment"] = env
    if timeouts:
        raw["timeouts"] = timeouts
    return raw


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


def _problem(err: dict[str, Any]) -> tuple[str, str]:
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
