"""What trial.py promises about exceptions: every Exception becomes the result's failure mode; only
KeyboardInterrupt and SpendCapReached escape run_trial, and only after the sandbox is destroyed.

The fault is injected into a real local sandbox: its upload (task setup) raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from matchmeter.errors import SandboxError, SpendCapReached
from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import SandboxRequest, get_backend
from matchmeter.runner.store import execution_key
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description
from matchmeter.tasks.loader import load_task
from tests.helpers.tasks import write_task


class UploadFails:
    """The local backend, except that each sandbox's upload raises `error`; keeps the sandboxes it made."""

    name = "local"

    def __init__(self, error: BaseException) -> None:
        self.inner = get_backend("local")
        self.capabilities = self.inner.capabilities
        self.error = error
        self.made: list = []

    def preflight(self) -> None:
        self.inner.preflight()

    def create(self, request: SandboxRequest):
        sandbox = self.inner.create(request)
        self.made.append(sandbox)

        def upload(src: Path, dest: str, extra_files=None, *, through_exec=False) -> None:
            raise self.error

        sandbox.upload = upload
        return sandbox


def _trial(tmp_path: Path, backend: UploadFails):
    task = load_task(write_task(tmp_path / "tasks"))
    config = configuration_from_flags("oracle", None)
    desc = Description.original(task)
    key = execution_key(config.digest(), task.digest, desc.sha256, 0, 0)
    return run_trial(TrialRequest(run_id="exc", execution_key=key, configuration=config, task=task, description=desc,
                                  seed=0, attempt=0, backend=backend, logs_dir=tmp_path / "logs"))


@pytest.mark.parametrize(("error", "mode", "text"), [
    (RuntimeError("disk gone"), "infra_error", "RuntimeError: disk gone\n"),
    (SandboxError("engine hiccup"), "sandbox_error", "engine hiccup"),
])
def test_an_exception_becomes_the_failure_mode(tmp_path, error, mode, text):
    backend = UploadFails(error)
    outcome = _trial(tmp_path, backend)
    result = outcome.result
    assert (result.failure_mode, result.reward, result.backend) == (mode, 0.0, "local")
    assert result.error.startswith(text)
    assert [Path(sb.app_dir).exists() for sb in backend.made] == [False]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SpendCapReached("spend cap reached")])
def test_only_interrupt_and_spend_cap_escape_after_cleanup(tmp_path, error):
    backend = UploadFails(error)
    with pytest.raises(type(error)):
        _trial(tmp_path, backend)
    assert [Path(sb.app_dir).exists() for sb in backend.made] == [False]
