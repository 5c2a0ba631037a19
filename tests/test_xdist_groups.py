"""`--dist loadgroup` keeps each xdist_group that tests/conftest.py assigns on one worker (pytest 9.2 with
pytest-xdist 3.8 silently dropped every group; the dev extra pins pytest<9.2 and the conftest fails grouped tests
whose group was lost)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
GROUPED = "tests/report/test_condition_tables.py"  # one module fixture: one group of 6 cheap tests
LOOSE = "tests/test_atomicfile.py"  # no wide fixture: in no group


@pytest.mark.slow  # a pytest session of its own on two workers (~15 s)
def test_a_module_group_runs_on_one_worker_and_other_tests_carry_no_group():
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "-n", "2", "--dist",
                           "loadgroup", GROUPED, LOOSE], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    ran = re.findall(r"^\[(gw\d)\] \[ *\d+%\] PASSED (\S+) *$", proc.stdout, re.M)
    grouped = [(worker, nodeid) for worker, nodeid in ran if nodeid.startswith(GROUPED)]
    assert len(grouped) == 6, proc.stdout[-3000:]
    assert all(nodeid.endswith(f"@{GROUPED}") for _, nodeid in grouped), grouped
    assert len({worker for worker, _ in grouped}) == 1, grouped
    loose = [nodeid for _, nodeid in ran if nodeid.startswith(LOOSE)]
    assert loose, proc.stdout[-3000:]
    assert [nodeid for nodeid in loose if "@" in nodeid] == []
