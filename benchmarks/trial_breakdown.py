"""Where one oracle trial's time goes: per sandbox call, its count, wall time and Docker engine requests.

Runs the oracle on one built-in task through the real trial lifecycle (runner/trial.py `run_trial`) several
times and attributes every engine HTTP request and every millisecond to the outermost sandbox call it happened
in (`exec <- _empty_dir` is a `sandbox.exec` the trial's `_empty_dir` made), the rest to the harness itself.
Engine requests are counted at the docker SDK's HTTP layer, so an exec shows as its three requests (create,
start, inspect) and `execs` counts exec creations.

    .venv/bin/python benchmarks/trial_breakdown.py [--backend docker] [--task cleanup-old-tmp] [--reps 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matchmeter.runner.run import configuration_from_flags
from matchmeter.runner.sandbox import get_backend
from matchmeter.runner.trial import TrialRequest, run_trial
from matchmeter.schema import Description
from matchmeter.tasks.loader import load_tasks

SANDBOX_METHODS = ("exec", "upload", "download", "snapshot", "empty_then_snapshot", "read_text", "file_kind",
                   "read_files", "restart", "halt", "destroy")
_ID = re.compile(r"/(?:[0-9a-f]{64}|matchmeter-[^/]+)(?=/|$)")
_VERSION = re.compile(r"^/v[0-9.]+")


class Recorder:
    """Per-label totals: calls, wall seconds, engine requests by kind; the label of the outermost call."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.reset()

    def reset(self) -> None:
        self.calls: dict[str, int] = defaultdict(int)
        self.seconds: dict[str, float] = defaultdict(float)
        self.requests: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def current(self) -> str:
        return getattr(self.local, "label", None) or "harness"

    def wrap(self, label_of: Callable[[], str], fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if getattr(self.local, "label", None):  # nested: the outermost call owns the time
                return fn(*args, **kwargs)
            label = label_of()
            self.local.label = label
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - start
                self.calls[label] += 1
                self.local.label = None
        return wrapped

    def request(self, method: str, url: str) -> None:
        path = _ID.sub("/{id}", "/" + url.split("/", 3)[-1].split("?")[0])
        self.requests[self.current()][f"{method} {_VERSION.sub('', path)}"] += 1


def _caller() -> str:
    """The first named frame outside the sandbox package and this file: who asked the sandbox (a lambda handed to
    upload_proof.run_uploaded counts as the function that wrote it)."""
    frame = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if (not module.startswith("matchmeter.runner.sandbox") and module != __name__
                and frame.f_code.co_name != "<lambda>"):
            return frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


def instrument(backend: Any, rec: Recorder) -> None:
    """Wrap the backend's create and every sandbox call it hands out; count the SDK's HTTP requests."""
    try:
        import requests

        original = requests.Session.request

        def counted(self: Any, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            rec.request(method, url)
            return original(self, method, url, *args, **kwargs)

        requests.Session.request = counted  # type: ignore[method-assign]
    except ImportError:
        pass
    create = backend.create

    def create_and_wrap(request: Any) -> Any:
        sandbox = rec.wrap(lambda: "create", create)(request)
        for name in SANDBOX_METHODS:
            if hasattr(sandbox, name):
                method = getattr(sandbox, name)
                setattr(sandbox, name, rec.wrap(lambda name=name: f"{name} <- {_caller()}", method))
        return sandbox

    backend.create = create_and_wrap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="docker")
    parser.add_argument("--task", default="cleanup-old-tmp")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    task = load_tasks([], only=[args.task])[0]
    backend = get_backend(args.backend)
    backend.preflight()
    config = configuration_from_flags("oracle", None)
    walls: list[float] = []
    rec = Recorder()
    instrument(backend, rec)
    for rep in range(args.reps + 1):  # the first is a warm-up, not counted
        if rep == 1:
            rec.reset()
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            outcome = run_trial(TrialRequest(run_id="breakdown", execution_key=f"k{rep}", configuration=config,
                                             task=task, description=Description.original(task), seed=0, attempt=0,
                                             backend=backend, logs_dir=Path(tmp) / "logs"))
            wall = time.perf_counter() - start
        if outcome.result.reward != 1.0:
            raise SystemExit(f"the oracle did not pass: {outcome.result.failure_mode} {outcome.result.error}")
        if rep:
            walls.append(wall)
    n = args.reps
    total = statistics.mean(walls)
    inside = sum(rec.seconds.values()) / n
    print(f"{args.backend} oracle trial of {args.task}: median {statistics.median(walls) * 1000:.0f} ms, "
          f"mean {total * 1000:.0f} ms over {n} reps")
    print(f"{'per trial':38} {'calls':>5} {'ms':>7} {'share':>6} {'execs':>5} {'requests':>8}  engine requests")
    labels = sorted(set(rec.seconds) | set(rec.requests), key=lambda k: -rec.seconds.get(k, 0.0))
    all_execs = all_requests = 0.0
    for label in labels:
        reqs = rec.requests.get(label, {})
        execs = sum(v for k, v in reqs.items() if k.endswith("/exec") and k.startswith("POST")) / n
        count = sum(reqs.values()) / n
        all_execs += execs
        all_requests += count
        ms = rec.seconds.get(label, 0.0) / n * 1000
        detail = ", ".join(f"{k} x{v / n:g}" for k, v in sorted(reqs.items()))
        print(f"{label:38} {rec.calls.get(label, 0) / n:5g} {ms:7.1f} {ms / 1000 / total:6.1%} {execs:5g} "
              f"{count:8g}  {detail}")
    print(f"{'harness (outside sandbox calls)':38} {'':5} {(total - inside) * 1000:7.1f} {(total - inside) / total:6.1%}")
    print(f"{'total':38} {'':5} {total * 1000:7.1f} {1:6.1%} {all_execs:5g} {all_requests:8g}")


if __name__ == "__main__":
    main()
