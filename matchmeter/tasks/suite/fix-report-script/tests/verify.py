"""fix-report-script verifier: the agent's bin/report.sh prints the expected report on the seeded data
and on two fresh data sets it has never seen (built by setup.sh with other seeds)."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from verifylib import APP, HERE, grade, pristine, seed

orig = pristine()
script = APP / "bin" / "report.sh"


def fresh_dataset(other_seed):
    out = Path(tempfile.mkdtemp(prefix="mm-report-"))
    env = dict(os.environ, MM_APP=str(out), MM_SEED=str(other_seed))
    subprocess.run(["bash", str(HERE / "setup.sh")], cwd=out, env=env, check=True, capture_output=True, timeout=60)
    return out


def run_on(dataset):
    """The agent's script run inside a copy of a dataset; True when it prints that dataset's expected output."""
    work = Path(tempfile.mkdtemp(prefix="mm-report-run-"))
    shutil.copytree(dataset / "data", work / "data")
    (work / "bin").mkdir()
    shutil.copy(script, work / "bin" / "report.sh")
    proc = subprocess.run(["bash", "bin/report.sh"], cwd=work, capture_output=True, text=True, timeout=20)
    want = (dataset / "expected_output.txt").read_text()
    return proc.stdout.rstrip("\n") == want.rstrip("\n")


def current():
    return script.is_file() and run_on(orig)


def other():
    return script.is_file() and sum(run_on(fresh_dataset(seed() + k)) for k in (1000, 2000)) / 2


def untouched():
    same = all((APP / p.relative_to(orig)).read_bytes() == p.read_bytes()
               for p in [*(orig / "data").iterdir(), orig / "expected_output.txt"])
    extra = {p.name for p in (APP / "data").iterdir()} - {p.name for p in (orig / "data").iterdir()}
    return current() and same and not extra


grade({"current_data": 0.45, "other_data": 0.4, "data_untouched": 0.15},
      {"current_data": current, "other_data": other, "data_untouched": untouched})
