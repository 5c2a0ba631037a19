"""The reference solution's outputs, learned in a sandbox: what the gate's answer check (gate/answers.py) needs.

The gate may not import the runner (both sit on layer 2 of docs/architecture.md), so its callers on the
optimizer layer hand it `oracle_outputs` as a plain function. It runs the task's setup and its oracle on seed 0
in a fresh sandbox of an isolated backend (bwrap unless told otherwise), network off, exactly as a trial seeds
the task, and returns {path relative to the workspace: text} of the files up to `max_bytes` that the oracle
wrote or changed. Nothing runs on the host: a backend that cannot run here, or one that is not isolated
(`local`), raises SandboxError with the reason, which the gate records instead of answer values.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from matchmeter.errors import MatchmeterError, SandboxError, UserError
from matchmeter.runner.sandbox import Sandbox, SandboxRequest, get_backend
from matchmeter.runner.sandbox.upload_proof import run_uploaded, uploaded_paths
from matchmeter.runner.trial import seed_sandbox
from matchmeter.schema import TaskSpec
from matchmeter.tasks.oracle import stage_oracle

TIMEOUT_S = 120.0


def oracle_outputs(task: TaskSpec, *, backend: str = "bwrap", max_bytes: int = 4096) -> dict[str, str]:
    """Files the oracle wrote or changed, as text (see the module docstring). Raises SandboxError when no
    isolated sandbox can run the task here (the reason in its message) or the setup fails."""
    try:
        sandboxes = get_backend(backend)
        if not sandboxes.capabilities.isolated:
            raise SandboxError(f"backend {backend} is not isolated: the oracle is never run on the host")
        sandboxes.preflight()
        sandboxes.check_environment(task.id, Path(task.path) / "environment", task.environment.dockerfile)
    except UserError as exc:
        raise SandboxError(f"no {backend} sandbox here: {exc}") from exc
    sandbox = sandboxes.create(SandboxRequest(task_id=task.id, environment_dir=Path(task.path) / "environment",
                                              environment=task.environment, network=False, env={"MM_SEED": "0"},
                                              label="gate-answers"))
    try:
        return _run(sandbox, task, max_bytes)
    except MatchmeterError:
        raise
    except Exception as exc:  # a backend's own failure while the sandbox is up
        raise SandboxError(f"oracle run of {task.id} in {backend} failed: {exc}") from exc
    finally:
        sandbox.destroy()


def _run(sandbox: Sandbox, task: TaskSpec, max_bytes: int) -> dict[str, str]:
    app = sandbox.app_dir
    logs = sandbox.exec('printf %s "$MM_LOGS"', 10).output.strip()
    seeded = seed_sandbox(sandbox, task, logs, task.timeouts.setup_s)
    if seeded is not None and seeded.exit_code != 0:
        raise SandboxError(f"setup of {task.id} failed (exit {seeded.exit_code}): {seeded.output.strip()[-200:]}")
    before = sandbox.snapshot([app])
    with tempfile.TemporaryDirectory(prefix="mm-answers-") as tmp:
        solution, dest = stage_oracle(task, Path(tmp) / "solution").parent, f"{logs}/.oracle"
        # a solution the sandbox lost is uploaded again (upload_proof.py), never answers learned from no solve
        run_uploaded(lambda again: sandbox.upload(solution, dest, through_exec=again), uploaded_paths(solution, dest),
                     lambda proof: sandbox.exec(f'{proof}bash "{dest}/solve.sh"; rc=$?; rm -rf "{dest}"; exit $rc',
                                                TIMEOUT_S),
                     f"oracle solution uploaded to {dest}")
    after = sandbox.snapshot([app])
    out = {}
    for path, digest in sorted(after.items()):
        rel = path[len(app):].lstrip("/")
        if before.get(path) == digest or digest.startswith("unverifiable") or ".git" in Path(rel).parts:
            continue
        text = sandbox.read_text(path, limit=max_bytes + 1)
        if text is not None and len(text.encode("utf-8", errors="replace")) <= max_bytes:
            out[rel] = text
    return out
