"""supervise-worker verifier: the queue drains, the supervisor is alive and logs exits, a killed worker
is replaced (new jobs still get done), and exactly one worker runs, the one in run/worker.pid.
The verifier puts the seeded jobs back, runs the agent's start.sh itself (the instruction says so),
reads only log lines written after that, and kills everything it started before writing the reward.
Supervisor liveness, the log and the single worker pay only once the queue drained."""

import os
import shutil
import signal
import time
from pathlib import Path

from verifylib import APP, grade, pristine, start_service, stop_service

orig = pristine()
jobs = {p.stem: sum(int(x) for x in p.read_text().split()) for p in (orig / "queue").glob("*.job")}
max_jobs = int(next(ln.split("=")[1] for ln in (orig / "worker.py").read_text().splitlines()
                    if ln.startswith("MAX_JOBS")))


def wait_for(predicate, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def outputs_ok(expected):
    done = APP / "done"
    return all((done / f"{k}.out").is_file() and (done / f"{k}.out").read_text().strip() == str(v)
               for k, v in expected.items())


def alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def pidfile(name):
    """The PID in run/<name>, or None while there is none. A supervisor that rewrites the file in place
    (`echo $! > run/worker.pid`) leaves it empty for a moment; a read in that moment retries briefly
    instead of failing the check."""
    for _ in range(20):
        try:
            return int((APP / "run" / name).read_text().strip())
        except (OSError, ValueError):
            time.sleep(0.05)
    return None


def workers():
    """Live worker.py processes whose working directory is this workspace."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.path.realpath(entry / "cwd")
        except OSError:
            continue
        if any(a.endswith(b"worker.py") for a in argv[1:3]) and cwd == os.path.realpath(APP) and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


_drained = []


def drained():
    _memo = _drained
    if not _memo:  # asked twice; wait only once, and not at all when no worker runs while jobs wait
        pending = lambda: list((APP / "queue").glob("*.job"))  # noqa: E731
        if not wait_for(lambda: workers() or not pending(), 3):
            _memo.append(False)
            return False
        _memo.append(wait_for(lambda: outputs_ok(jobs) and not list((APP / "queue").glob("*.job")), 20))
    return _memo[0]


def supervisor_alive():
    return drained() and alive(pidfile("supervisor.pid")) and pidfile("supervisor.pid") not in workers()


def exits_logged():
    log = APP / "logs" / "supervisor.log"

    def enough():  # the last deliberate exit may land just after the queue drained
        if not log.is_file():
            return False
        new = log.read_bytes()[log_start:].decode(errors="replace")
        return sum("3" in ln for ln in new.splitlines()) >= len(jobs) // max_jobs

    return drained() and wait_for(enough, 3)


def restarted_after_kill():
    # A worker may be between a deliberate exit and its restart: give the pidfile time to settle.
    if not wait_for(lambda: pidfile("worker.pid") in workers(), 5):
        return 0
    old = pidfile("worker.pid")
    if old is None:
        return 0
    os.kill(old, signal.SIGKILL)
    extra = {f"zz-verify-{i}": i * 7 for i in range(2 * max_jobs + 1)}
    for name, value in extra.items():
        (APP / "queue" / f"{name}.job").write_text(f"{value} 0\n")
    ok = wait_for(lambda: outputs_ok(extra), 20)
    new = wait_for(lambda: pidfile("worker.pid") != old and pidfile("worker.pid") in workers(), 5)
    return ok and new


def single_worker():
    # Let any restart in flight settle, then there must be exactly one worker, the one in the pidfile.
    return drained() and wait_for(lambda: workers() == [pidfile("worker.pid")], 5) and (time.sleep(1) or workers() == [pidfile("worker.pid")])


def fresh_start():
    """Seeded jobs back in queue/ and their outputs gone, as the instruction announces; returns the log size."""
    (APP / "queue").mkdir(exist_ok=True)
    for job in (orig / "queue").glob("*.job"):
        shutil.copy(job, APP / "queue" / job.name)
        (APP / "done" / f"{job.stem}.out").unlink(missing_ok=True)
    log = APP / "logs" / "supervisor.log"
    return log.stat().st_size if log.is_file() else 0


log_start = fresh_start()
service = start_service() if (APP / "start.sh").is_file() else None


def started(check):
    return lambda: service is not None and check()


grade({"queue_drained": 0.3, "supervisor_alive": 0.15, "exits_logged": 0.15, "restart_after_kill": 0.25,
       "single_worker": 0.15},
      {"queue_drained": started(drained), "supervisor_alive": started(supervisor_alive),
       "exits_logged": started(exits_logged), "restart_after_kill": started(restarted_after_kill),
       "single_worker": started(single_worker)},
      cleanup=lambda: service and stop_service(service))
