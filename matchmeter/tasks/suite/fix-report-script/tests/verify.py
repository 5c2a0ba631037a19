"""fix-report-script verifier: the agent's bin/report.sh prints the expected report on the seeded data
and on two fresh data sets it has never seen (built by setup.sh with other seeds). Matching the
current data pays only when the script also gets an unseen data set right, so printing the expected
text (forbidden by the instruction) earns nothing; data_untouched needs current_data."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from verifylib import APP, HERE, agent_dir, grade, pristine, run_agent_code, seed

orig = pristine()
script = APP / "bin" / "report.sh"


def fresh_dataset(other_seed):
    out = Path(tempfile.mkdtemp(prefix="mm-report-"))
    env = dict(os.environ, MM_APP=str(out), MM_SEED=str(other_seed))
    subprocess.run(["bash", str(HERE / "setup.sh")], cwd=out, env=env, check=True, capture_output=True, timeout=60)
    return out


def run_on(dataset):
    """The agent's script run inside a copy of a dataset; True when it prints that dataset's expected output."""
    work = agent_dir("mm-report-run-")
    shutil.copytree(dataset / "data", work / "data")
    (work / "bin").mkdir()
    shutil.copy(script, work / "bin" / "report.sh")
    proc = run_agent_code(["bash", "bin/report.sh"], work)
    want = (dataset / "expected_output.txt").read_text()
    return proc.stdout.rstrip("\n") == want.rstrip("\n")


_other = []


def other():
    if not _other:
        _other.append(script.is_file() and sum(run_on(fresh_dataset(seed() + k)) for k in (1000, 2000)) / 2)
    return _other[0]


def current():
    return script.is_file() and other() > 0 and run_on(orig)


def untouched():
    same = all((APP / p.relative_to(orig)).read_bytes() == p.read_bytes()
               for p in [*(orig / "data").iterdir(), orig / "expected_output.txt"])
    extra = {p.name for p in (APP / "data").iterdir()} - {p.name for p in (orig / "data").iterdir()}
    return current() and same and not extra


grade({"current_data": 0.45, "other_data": 0.4, "data_untouched": 0.15},
      {"current_data": current, "other_data": other, "data_untouched": untouched})
