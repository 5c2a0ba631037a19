"""What tests/conftest.py sets up for the processes tests start.

- A default SIGINT even when pytest itself was started with SIGINT ignored (a background job of a script, as
  some CI launchers run it): otherwise every Ctrl-C test fails with rc 0, as a fresh-clone `.ci/run` started
  with `&` did.
- The `python3` host trials' task scripts get: Debian's, as in the sandbox images, when the host has it.
- The session summary's count of warm and cold CLI calls (tests/helpers/warm_cli.py), summed over every xdist
  worker: a leaked import-time variable turns calls cold silently, and this line is where it shows.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tasks.harness import SYSTEM_PYTHON3, host_trials_python3

ROOT = Path(__file__).parents[1]
CHILD = "import signal; print({signal.SIG_IGN: 'ignored', signal.default_int_handler: 'KeyboardInterrupt'}[signal.getsignal(signal.SIGINT)])"


def _child_sigint(prepare: str) -> str:
    """What a grandchild Python finds for SIGINT when its parent, started with SIGINT ignored, ran `prepare`."""
    parent = f"{prepare}\nimport subprocess, sys\nsubprocess.run([sys.executable, '-c', {CHILD!r}])"
    proc = subprocess.run([sys.executable, "-c", parent], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_an_ignored_sigint_is_inherited_unless_the_conftest_restores_it():
    assert _child_sigint("pass") == "ignored"  # the hazard itself
    assert _child_sigint("from tests.conftest import _ctrl_c_reaches_children; _ctrl_c_reaches_children()") \
        == "KeyboardInterrupt"


def test_task_scripts_get_the_images_python3_or_a_real_interpreter():
    found = shutil.which("python3")
    assert found is not None
    wanted = host_trials_python3()
    assert wanted is not None
    assert Path(found).resolve() == Path(wanted).resolve(), found
    if wanted != str(SYSTEM_PYTHON3):  # not a wrapper script such as a pyenv shim
        assert Path(found).resolve().read_bytes()[:2] != b"#!", found


# Each test of this module counts one warm call and two cold ones, as run_matchmeter does (a nested session).
_COUNTING_TESTS = """
from tests.helpers import warm_cli

def test_counts_as_a_call_would():
    warm_cli.STATS["warm"] += 1
    warm_cli.STATS["cold_because"].update({"PYTHONWARNINGS": 1, "LEAKED_BY_A_TEST": 1})
"""


@pytest.mark.slow  # two pytest sessions of their own, one on two workers
def test_the_summary_line_sums_warm_and_cold_calls_over_every_worker(tmp_path):
    (tmp_path / "test_counting.py").write_text(_COUNTING_TESTS)
    summaries = {}
    # --dist each runs the test on both workers: the controller's line must carry both workers' counts.
    for name, options in (("xdist", ["-n", "2", "--dist", "each"]), ("alone", ["-p", "no:xdist"])):
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.conftest",
                               "--rootdir", str(tmp_path), *options, str(tmp_path / "test_counting.py")],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        summaries[name] = re.findall(r"^warm CLI calls: .*$", proc.stdout, re.M)
    assert summaries == {
        "xdist": ["warm CLI calls: 2; cold, by differing import-time variable: PYTHONWARNINGS 2, LEAKED_BY_A_TEST 2"],
        "alone": ["warm CLI calls: 1; cold, by differing import-time variable: PYTHONWARNINGS 1, LEAKED_BY_A_TEST 1"],
    }
