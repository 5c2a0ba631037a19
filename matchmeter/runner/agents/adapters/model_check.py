"""The effective-model check (seed 002): the model a CLI reports it ran must be the configured one.

Rule for "the same model" (documented in `normalise_model`): compare the last path segment of each
name, lower-cased, so provider and routing prefixes do not matter (`openai/gpt-4o` = `gpt-4o`,
`openrouter/openai/gpt-4o` = `gpt-4o`); a reported name that is the configured one plus a dated
snapshot suffix (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) also matches, because providers
answer an alias with the snapshot they served. Anything else is a mismatch: the execution fails as
`model_mismatch`, unless the run allows incompatible pairings, in which case it is kept, the error
field says what ran, and the result's `effective_model` trust flag is False.
"""

from __future__ import annotations

import re

from matchmeter.errors import ModelMismatch
from matchmeter.schema import Configuration, ExecutionResult, Trajectory

SNAPSHOT_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")
TRUST_FLAG = "effective_model"


def normalise_model(name: str) -> str:
    """Provider-free, lower-case model name: the last `/`-separated segment."""
    return name.strip().rstrip("/").rsplit("/", 1)[-1].lower()


def same_model(configured: str, reported: str) -> bool:
    want, got = normalise_model(configured), normalise_model(reported)
    return got == want or SNAPSHOT_SUFFIX.sub("", got) == want


def mismatched_models(configuration: Configuration, trajectory: Trajectory) -> list[str]:
    """Reported models that are not the configured one (empty when the configuration has no model)."""
    if not configuration.model:
        return []
    return [m for m in trajectory.reported_models if not same_model(configuration.model, m)]


def check_effective_model(configuration: Configuration, trajectory: Trajectory, allow_incompatible: bool) -> str | None:
    """Raise ModelMismatch on a mismatch; with allow_incompatible return a note for the result instead.

    Returns None when every reported model matches (or nothing was reported).

    Raises:
        ModelMismatch: a reported model differs and incompatible pairings are not allowed.
    """
    others = mismatched_models(configuration, trajectory)
    if not others:
        return None
    text = (f"configuration {configuration.id} asked for model {configuration.model} but "
            f"{configuration.agent.name} reports running {', '.join(others)}")
    if allow_incompatible:
        return f"{text} (kept: --allow-incompatible)"
    raise ModelMismatch(f"{text}; pass --allow-incompatible to keep such executions")


def record_effective_model(configuration: Configuration, trajectory: Trajectory, allow_incompatible: bool,
                           result: ExecutionResult) -> ModelMismatch | None:
    """Run the check for one trial: set the result's trust flag (and note), return the failure if any.

    The trust flag is set only when the agent reported a model: True when it matches, False otherwise.
    """
    if not configuration.model or not trajectory.reported_models:
        return None
    try:
        note = check_effective_model(configuration, trajectory, allow_incompatible)
    except ModelMismatch as exc:
        result.trust_flags[TRUST_FLAG] = False
        return exc
    result.trust_flags[TRUST_FLAG] = note is None
    if note:
        result.error = note
    return None
