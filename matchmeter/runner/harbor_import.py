"""`matchmeter import harbor JOB_DIR --out RUN_DIR`: a Harbor job's trials as a matchmeter run.

Harbor (`harbor run`) writes `JOB_DIR/<trial>/result.json` per trial (its TrialResult) beside the job's own
result.json/config.json. Each finished trial becomes one execution of the run store, read field by field
(Harbor's models are not imported; the fields read are Harbor 0.26's):

- configuration: `agent_info.name` (+ `agent_info.model_info.name` when Harbor ran a model), id
  `<agent>` or `<agent>:<model>`; task: `task_name`, digest `task_checksum`; backend `harbor`; seed 0;
  attempts numbered per (configuration, task) in start order; the execution key is derived from the
  trial's id, so importing the same job twice gives the same keys.
- rewards: `verifier_result.rewards` as written, kept only when Harbor says the reward is valid
  (`reward_valid`); the scalar is Harbor's primary reward (the `reward` key, else the only key; with
  several and no `reward`, the mean of the clamped keys, as runner/verdict.py defines it for our runs),
  clamped to [0, 1] with the raw value in `raw_verifier_reward`. A trial without a valid reward scores
  0 with its exception as the failure mode, as Harbor's own mean metric counts it 0. A trial whose
  exception leaves the reward valid (an agent timeout) keeps Harbor's reward and records the failure.
- multi-step trials: `step_results` become `steps` (per-step keys and primary reward); the trial's
  `verifier_result` is Harbor's combined reward, read as above.
- tokens and cost: `agent_result` (summed over steps), ATIF's counts where Harbor left them out. What
  neither recorded is listed in `not_recorded` (null columns), never 0. Harbor's model-free agents
  (`oracle`, `nop`, run without a model) have no model spend by construction: 0 tokens, $0.
- n_steps: the ATIF trajectory's actions; Harbor's oracle ran one command per solve script it left
  output for (agent/oracle.txt), nop none; otherwise not recorded.
- trajectory: `agent/trajectory.json` (ATIF) is kept as trajectory.atif.json and read into our
  trajectory.json (runner/atif.from_atif); a multi-step trial's per-step ATIF files are kept under
  steps/<name>/ and joined in step order. A trial with no ATIF stores no trajectory.
- logs/: Harbor's trial result.json and the verifier's test-stdout.txt, for `view`.

Unfinished trials (no `finished_at`) are skipped and counted. Nothing is written unless every trial reads.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from matchmeter import __version__
from matchmeter.errors import UserError
from matchmeter.runner.atif import AtifImport, check_atif, from_atif, to_atif
from matchmeter.runner.store import RunStore, check_out_dir
from matchmeter.runner.verdict import harbor_scalar, scalar_of
from matchmeter.schema import (
    AgentSpec,
    Configuration,
    Cost,
    ExecutionResult,
    FailureMode,
    PhaseTiming,
    RunManifest,
    StepOutcome,
    TokenUsage,
    Trajectory,
    sha256_text,
)

MODEL_FREE = frozenset({"oracle", "nop"})
_FAILURES: dict[str, FailureMode] = {
    "AgentTimeoutError": "agent_timeout", "BudgetExceededError": "budget_exceeded",
    "VerifierTimeoutError": "verifier_error", "RewardFileNotFoundError": "verifier_error",
    "RewardFileEmptyError": "verifier_error", "VerifierOutputParseError": "verifier_error",
    **dict.fromkeys(("EnvironmentStartTimeoutError", "SandboxBuildFailedError", "AgentSetupTimeoutError",
                     "HealthcheckError", "AddTestsDirError", "DownloadVerifierDirError", "CancelledError",
                     "SandboxLikelyOutOfMemoryError", "MemoryLimitExceededError"), "infra_error"),
}


class ImportSummary(NamedTuple):
    run_dir: Path
    imported: int
    skipped_unfinished: int
    configurations: list[str]
    tasks: list[str]


class _Trial(NamedTuple):
    path: Path
    data: dict[str, Any]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"unreadable Harbor file: {str(exc).splitlines()[0]}", str(path),
                        "restore it or remove that trial directory from the job") from exc


def _trials(job_dir: Path) -> list[_Trial]:
    if not job_dir.is_dir():
        raise UserError("not a directory", str(job_dir), "pass the job directory `harbor run` wrote (jobs/<job name>)")
    found = []
    for path in sorted(p for p in job_dir.iterdir() if (p / "result.json").is_file()):
        data = _read_json(path / "result.json")
        agent = data.get("agent_info") if isinstance(data, dict) else None
        if not (isinstance(data, dict) and isinstance(data.get("trial_name"), str)
                and isinstance(data.get("task_name"), str) and isinstance(agent, dict)
                and isinstance(agent.get("name"), str)):
            raise UserError("not a Harbor trial result (needs trial_name, task_name, agent_info.name)",
                            str(path / "result.json"), "pass a job directory written by `harbor run`")
        found.append(_Trial(path, data))
    if not found:
        raise UserError("no Harbor trial here (no <trial>/result.json)", str(job_dir),
                        "pass the job directory `harbor run` wrote (jobs/<job name>), not the jobs root")
    return found


def _configuration(data: dict[str, Any]) -> Configuration:
    agent = data["agent_info"]
    model_info = agent.get("model_info")
    model = None
    if isinstance(model_info, dict) and model_info.get("name"):
        provider = model_info.get("provider")
        model = f"{provider}/{model_info['name']}" if provider else str(model_info["name"])
    name = str(agent["name"])
    return Configuration(id=f"{name}:{model}" if model else name, model=model,
                         agent=AgentSpec(name=name, version=str(agent.get("version") or "")))


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _phase(phase: str, timing: object) -> list[PhaseTiming]:
    if not isinstance(timing, dict):
        return []
    start, end = _time(timing.get("started_at")), _time(timing.get("finished_at"))
    return [PhaseTiming(phase=phase, started_at=start, ended_at=end)] if start and end else []


def _phases(data: dict[str, Any]) -> list[PhaseTiming]:
    """Harbor's timings; a multi-step trial's agent and verifier phases are per step (`agent:<step>`), so
    the run-level agent time of such a trial is not recorded as one span."""
    out = _phase("setup", data.get("environment_setup")) + _phase("agent", data.get("agent_execution"))
    out += _phase("verify", data.get("verifier"))
    for step in data.get("step_results") or []:
        if isinstance(step, dict):
            out += _phase(f"agent:{step.get('step_name')}", step.get("agent_execution"))
            out += _phase(f"verify:{step.get('step_name')}", step.get("verifier"))
    return out


def _rewards(verifier_result: object, where: Path) -> dict[str, float]:
    rewards = verifier_result.get("rewards") if isinstance(verifier_result, dict) else None
    if rewards is None:
        return {}
    if not isinstance(rewards, dict) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                for v in rewards.values()):
        raise UserError(f"verifier_result.rewards is not an object of numbers (got {rewards!r:.80})", str(where),
                        "restore the trial's result.json as Harbor wrote it")
    return {str(k): float(v) for k, v in rewards.items()}


def _agent_contexts(data: dict[str, Any]) -> list[dict[str, Any]]:
    if isinstance(data.get("agent_result"), dict):
        return [data["agent_result"]]
    return [s["agent_result"] for s in data.get("step_results") or [] if isinstance(s, dict)
            and isinstance(s.get("agent_result"), dict)]


def _atif_docs(trial: Path, step_names: list[str]) -> dict[str, dict[str, Any]]:
    """'' -> the trial's ATIF, or step name -> its step's ATIF (only files that are ATIF v1.x)."""
    candidates = {name: trial / "steps" / name / "agent" / "trajectory.json" for name in step_names} if step_names \
        else {"": trial / "agent" / "trajectory.json"}
    docs = {}
    for name, path in candidates.items():
        if path.is_file():
            doc = _read_json(path)
            if not check_atif(doc):
                docs[name] = doc
    return docs


def _measures(trial: _Trial, config: Configuration, atif: AtifImport | None, step_names: list[str]
              ) -> tuple[TokenUsage, Cost, int, list[str]]:
    """Tokens, cost and action count, and the names of those nobody recorded."""
    missing: list[str] = []
    if config.agent.name in MODEL_FREE and config.model is None:
        n_oracle = sum((trial.path / (f"steps/{s}/" if s else "") / "agent" / "oracle.txt").is_file()
                       for s in (step_names or [""]))
        return TokenUsage(), Cost(usd=0.0), n_oracle if config.agent.name == "oracle" else 0, missing
    contexts = _agent_contexts(trial.data)
    n_in = [c.get("n_input_tokens") for c in contexts]
    n_cache = [c.get("n_cache_tokens") or 0 for c in contexts]
    n_out = [c.get("n_output_tokens") for c in contexts]
    costs = [c.get("cost_usd") for c in contexts]
    if contexts and None not in n_in and None not in n_out:
        cached = sum(int(x) for x in n_cache)
        tokens = TokenUsage(input=max(sum(int(x) for x in n_in if x is not None) - cached, 0), cached_input=cached,
                            output=sum(int(x) for x in n_out if x is not None))
    elif atif is not None and atif.tokens_recorded:
        tokens = atif.trajectory.tokens
    else:
        tokens = TokenUsage()
        missing.append("tokens")
    if contexts and None not in costs:
        cost = Cost(usd=sum(float(c) for c in costs if c is not None))
    elif atif is not None and atif.cost_recorded:
        cost = atif.trajectory.cost
    else:
        cost = Cost(usd=None, null_reason="Harbor recorded no cost for this trial")
        missing.append("cost")
    if atif is not None:
        n_steps = len(atif.trajectory.steps)
    else:
        n_steps = 0
        missing.append("n_steps")
    return tokens, cost, n_steps, missing


def _instruction_digest(data: dict[str, Any], step_names: list[str]) -> str:
    """sha256 of the task's instruction (each step's, joined) when the task directory is still there, else
    of the task's checksum (the description is then identified by the task it belongs to)."""
    task = data.get("config", {}).get("task", {}) if isinstance(data.get("config"), dict) else {}
    path = Path(str(task.get("path"))) if isinstance(task, dict) and task.get("path") else None
    if path is None:
        return sha256_text(f"harbor-task:{data.get('task_checksum', data['task_name'])}")
    files = [path / "steps" / s / "instruction.md" for s in step_names] if step_names else [path / "instruction.md"]
    if files and all(f.is_file() for f in files):
        return sha256_text("\n\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files))
    return sha256_text(f"harbor-task:{data.get('task_checksum', data['task_name'])}")


def _difficulty(data: dict[str, Any]) -> str:
    task = data.get("config", {}).get("task", {}) if isinstance(data.get("config"), dict) else {}
    path = Path(str(task.get("path")), "task.toml") if isinstance(task, dict) and task.get("path") else None
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8")).get("metadata", {}) if path and path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return ""
    return str(meta.get("difficulty", "")) if isinstance(meta, dict) else ""


def _steps(data: dict[str, Any], where: Path) -> list[StepOutcome]:
    out = []
    for raw in data.get("step_results") or []:
        if not isinstance(raw, dict):
            continue
        rewards = _rewards(raw.get("verifier_result"), where)
        error = raw.get("exception_info")
        out.append(StepOutcome(name=str(raw.get("step_name", "")), rewards=rewards,
                               reward=harbor_scalar(rewards) if rewards else None,
                               verified=raw.get("verifier_result") is not None,
                               error=str(error.get("exception_type")) if isinstance(error, dict) else None))
    return out


def _exception(data: dict[str, Any]) -> tuple[str, str] | None:
    """(type, message) of the trial's first recorded exception (trial level, then steps in order)."""
    for info in [data.get("exception_info"), *(s.get("exception_info") for s in data.get("step_results") or []
                                               if isinstance(s, dict))]:
        if isinstance(info, dict) and info.get("exception_type"):
            return str(info["exception_type"]), str(info.get("exception_message", ""))[:300]
    return None


def _result(trial: _Trial, run_id: str, attempt: int, atif: AtifImport | None) -> ExecutionResult:
    data, where = trial.data, trial.path / "result.json"
    config = _configuration(data)
    steps = _steps(data, where)
    step_names = [s.name for s in steps]
    rewards = _rewards(data.get("verifier_result"), where)
    valid = data.get("reward_valid", bool(rewards) and _exception(data) is None)
    rewards = rewards if valid and rewards else {}
    tokens, cost, n_steps, missing = _measures(trial, config, atif, step_names)
    raw = scalar_of(rewards) if rewards else None
    result = ExecutionResult(
        execution_key=sha256_text(f"harbor-trial:{data.get('id') or data['trial_name']}")[:24], run_id=run_id,
        configuration_id=config.id, configuration=config, task_id=data["task_name"],
        task_digest=str(data.get("task_checksum", "")), source_family="imported", difficulty=_difficulty(data),
        description_sha256=_instruction_digest(data, step_names), seed=0, attempt=attempt, backend="harbor",
        reward=min(max(raw, 0.0), 1.0) if raw is not None else 0.0, raw_verifier_reward=raw,
        verdict_file="verifier/reward.json" if (trial.path / "verifier" / "reward.json").is_file() else
        "verifier/reward.txt" if rewards else None,
        cost=cost, tokens=tokens, n_steps=n_steps, phases=_phases(data), rewards=rewards, not_recorded=missing,
        steps=steps)
    if (start := _time(data.get("started_at"))) and (end := _time(data.get("finished_at"))):
        result.started_at, result.ended_at = start, end
    if (exc := _exception(data)) is not None:
        result.failure_mode = _FAILURES.get(exc[0], "agent_error")
        result.error = f"Harbor: {exc[0]}: {exc[1]}"
    elif not rewards:
        result.failure_mode, result.error = "verifier_error", "Harbor recorded no valid reward for this trial"
    return result


def _joined_atif(docs: dict[str, dict[str, Any]], step_names: list[str]) -> AtifImport | None:
    if not docs:
        return None
    if not step_names:
        return from_atif(docs[""]) if "" in docs else None
    if set(step_names) - set(docs):
        return None  # a step without a trajectory: its actions are unknown, so the trial's are too
    parts = [from_atif(docs[name]) for name in step_names]
    first = parts[0].trajectory
    joined = first.model_copy(update={
        "steps": [s.model_copy(update={"index": i}) for i, s in enumerate(st for p in parts for st in p.trajectory.steps)],
        "model_calls": [c.model_copy(update={"index": i}) for i, c in
                        enumerate(mc for p in parts for mc in p.trajectory.model_calls)],
        "final_message": parts[-1].trajectory.final_message})
    return AtifImport(joined, all(p.tokens_recorded for p in parts), all(p.cost_recorded for p in parts))


def _write(store: RunStore, trial: _Trial, result: ExecutionResult, docs: dict[str, dict[str, Any]],
           atif: AtifImport | None) -> None:
    staging = store.staging_dir(result.execution_key)
    shutil.copyfile(trial.path / "result.json", staging / "logs" / "harbor-result.json")
    for name in [s.name for s in result.steps] or [""]:
        stdout = trial.path / (f"steps/{name}/" if name else "") / "verifier" / "test-stdout.txt"
        if stdout.is_file():
            shutil.copyfile(stdout, staging / "logs" / (f"verifier-{name}.log" if name else "verifier.log"))
    for name, step_doc in docs.items():
        if name:
            (staging / "steps" / name).mkdir(parents=True, exist_ok=True)
            (staging / "steps" / name / "trajectory.atif.json").write_text(json.dumps(step_doc, indent=2))
    trajectory: Trajectory | None = atif.trajectory if atif is not None else None
    single = docs.get("") if not result.steps else None
    doc: dict[str, Any] | None = single if single is not None else (to_atif(trajectory, session_id=result.execution_key,
                                                     agent_version=trajectory.agent_version,
                                                     instruction="") if trajectory is not None else None)
    store.commit(staging, result, trajectory.model_dump_json(indent=2) if trajectory is not None else None, doc)


def import_harbor_job(job_dir: Path, out: Path) -> ImportSummary:
    """Write `out` as a matchmeter run holding the finished trials of the Harbor job at `job_dir`.

    Raises:
        UserError: not a job directory, a trial file that does not read, or an --out that is taken.
    """
    job_dir, out = Path(job_dir), Path(out)
    trials = _trials(job_dir)
    check_out_dir(out, ("manifest.json",))
    if (out / "manifest.json").exists():
        raise UserError("--out already holds a run", str(out), "import into a new directory")
    finished = [t for t in trials if t.data.get("finished_at")]
    if not finished:
        raise UserError(f"none of the job's {len(trials)} trial(s) has finished", str(job_dir),
                        "import the job once `harbor run` is done")
    finished.sort(key=lambda t: (str(t.data.get("started_at") or ""), t.data["trial_name"]))
    attempts: dict[tuple[str, str], int] = {}
    prepared = []
    for trial in finished:  # read everything before writing anything
        step_names = [str(s.get("step_name", "")) for s in trial.data.get("step_results") or [] if isinstance(s, dict)]
        docs = _atif_docs(trial.path, step_names)
        atif = _joined_atif(docs, step_names)
        config_id = _configuration(trial.data).id
        key = (config_id, trial.data["task_name"])
        attempts[key] = attempts.get(key, -1) + 1
        prepared.append((trial, _result(trial, out.name, attempts[key], atif), docs, atif))
    store = RunStore(out)
    store.claim()
    configs = {r.configuration_id: r.configuration for _, r, _, _ in prepared}
    job = job_dir / "result.json"
    job_id = _read_json(job).get("id") if job.is_file() and isinstance(_read_json(job), dict) else None
    store.write_manifest(RunManifest(
        run_id=out.name, matchmeter_version=__version__, backend="harbor",
        request={"imported_from": "harbor", "job_dir": str(job_dir.resolve()), "job_id": job_id},
        configurations=list(configs.values()),
        task_digests={r.task_id: r.task_digest for _, r, _, _ in prepared},
        description_digests={r.description_sha256: r.task_id for _, r, _, _ in prepared}))
    for trial, result, docs, atif in prepared:
        _write(store, trial, result, docs, atif)
    store.rebuild_table()
    return ImportSummary(out, len(prepared), len(trials) - len(finished), sorted(configs),
                         sorted({r.task_id for _, r, _, _ in prepared}))
