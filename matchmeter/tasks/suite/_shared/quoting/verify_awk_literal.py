"""awk-literal verifier: `awk -f tools/stamp.awk FILE` prints the payload line, then FILE unchanged (two inputs)."""

from quoting import payload as seeded_payload
from verifylib import APP, HERE, agent_dir, grade, pristine, run_agent_code, seed

header = seeded_payload(HERE / "payload.txt", seed())
log = (pristine() / "data" / "log.txt").read_bytes()
extra = b"a \"quoted\" line with $HOME and \\ and %d\n\nlast\n"


def run(data):
    """The agent's awk program (agent code: awk can run programs) on a copy of data, as the agent."""
    work = agent_dir("mm-awk-")
    (work / "in.txt").write_bytes(data)
    proc = run_agent_code(["awk", "-f", str(APP / "tools" / "stamp.awk"), "in.txt"], work, timeout=30, raw=True)
    return proc.stdout if proc.returncode == 0 else None


def runs():
    return run(log) is not None


def header_exact():
    return all(run(d).split(b"\n", 1)[0] == header for d in (log, extra))


def body():
    return header_exact() and all(run(d).split(b"\n", 1)[1] == d for d in (log, extra))


grade({"program_runs": 0.1, "header_exact": 0.6, "lines_passed_through": 0.3},
      {"program_runs": runs, "header_exact": header_exact, "lines_passed_through": body})
