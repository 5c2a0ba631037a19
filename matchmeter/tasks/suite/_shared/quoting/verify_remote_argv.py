"""remote-argv verifier: the last command line bin/remote received, replayed on a clean build host, makes `record`
receive exactly one argument, the payload.

Nothing the agent leaves behind is taken as evidence of what `record` got: remote/argv.log and the
MM_VIA_REMOTE flag can be written by hand. The verifier takes only the command line bin/remote logged
(remote/calls.log, like sshd's log) and runs it again itself, with its own `record` in an empty temp home,
a bare environment and a time limit, after every agent process is gone (the task asks for exactly this
command line to be run on the remote host). Writing calls.log by hand needs the same remote-side quoting
as calling bin/remote, so it earns nothing a real call would not.
"""

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from quoting import payload as seeded_payload
from verifylib import HERE, grade, read, run_agent_code, seed

payload = seeded_payload(HERE / "payload.txt", seed())
RECORD = "#!/usr/bin/env bash\nprintf '%s\\0' \"$#\" \"$@\" > \"$RECORD_OUT\"\n"


def replay():
    """[argc, arg...] that `record` received when the last logged command line ran again, or None."""
    calls = (read("remote/calls.log", "b") or b"").split(b"\0")[:-1]
    if not calls:
        return None
    home = Path(tempfile.mkdtemp(prefix="mm-remote-"))
    try:
        (home / "bin").mkdir()
        (home / "bin" / "record").write_text(RECORD)
        (home / "bin" / "record").chmod(0o755)
        out = home / ".record-out"
        env = {"PATH": f"{home / 'bin'}:/usr/bin:/bin", "HOME": str(home), "RECORD_OUT": str(out), "LANG": "C.UTF-8"}
        # as the agent, in its own session; nothing the replayed line started outlives the check
        run_agent_code(["bash", "-c", calls[-1]], home, timeout=10, env=env, raw=True, writable=True)
        return out.read_bytes().split(b"\0")[:-1] if out.is_file() and not out.is_symlink() else None
    finally:
        shutil.rmtree(home, ignore_errors=True)


got = replay()


def via_remote():
    return got is not None


def one_argument():
    return got is not None and got[0] == b"1"


def argument_exact():
    return got is not None and got[1:] == [payload]


grade({"via_remote": 0.1, "one_argument": 0.1, "argument_exact": 0.8},
      {"via_remote": via_remote, "one_argument": one_argument, "argument_exact": argument_exact})
