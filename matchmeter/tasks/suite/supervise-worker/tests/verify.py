"""supervise-worker verifier: the queue drains, the supervisor is alive and logs exits, a killed worker
is replaced (new jobs still get done), and exactly one worker runs, the one in run/worker.pid (never two at
once, sampled from before start.sh runs until the first drain).
The verifier puts the seeded jobs back, runs the agent's start.sh itself (the instruction says so),
reads only log lines written after that, and kills everything it started before writing the reward.
Supervisor liveness, the log and the single worker pay only once the queue drained. Nothing pays when
start.sh does not return (within start_service's wait), and only the first drain pays unless every named
case holds: each exit logged with its code, a restart after the kill with run/worker.pid rewritten and
jobs that arrive later (a second after the kill) done, and exactly one worker."""

import os
import re
import shutil
import signal
import threading
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
# The most workers seen alive at once until the first drain ends, sampled every 10 ms from before start.sh runs: a
# second worker that start.sh starts beside the supervisor's own finishes its few jobs and exits within moments,
# so a later look alone saw one worker on some runs and the trap passed.
_most = [0]
_first_drain_over = threading.Event()


def _sample_workers():
    while not _first_drain_over.is_set():
        _most[0] = max(_most[0], len(workers()))
        time.sleep(0.01)


def drained():
    _memo = _drained
    if not _memo:  # asked twice; wait only once, and not at all when no worker runs while jobs wait
        pending = lambda: list((APP / "queue").glob("*.job"))  # noqa: E731
        if not wait_for(lambda: workers() or not pending(), 3):
            _first_drain_over.set()
            _memo.append(False)
            return False
        _memo.append(wait_for(lambda: outputs_ok(jobs) and not list((APP / "queue").glob("*.job")), 20))
        _first_drain_over.set()
    return _memo[0]


def supervisor_alive():
    return drained() and alive(pidfile("supervisor.pid")) and pidfile("supervisor.pid") not in workers()


def exits_logged():
    log = APP / "logs" / "supervisor.log"

    def enough():  # the last deliberate exit may land just after the queue drained
        if not log.is_file():
            return False
        new = log.read_bytes()[log_start:].decode(errors="replace")
        # the exit code as a number of its own, not a digit of a PID or a time
        return sum(bool(re.search(r"(?<![\d.:])(?<!\d-)3(?!\d|[.:]\d)", ln)) for ln in new.splitlines()) >= len(jobs) // max_jobs

    return drained() and wait_for(enough, 3)


def restarted_after_kill():
    # A worker may be between a deliberate exit and its restart: give the pidfile time to settle.
    if not wait_for(lambda: pidfile("worker.pid") in workers(), 5):
        return 0
    old = pidfile("worker.pid")
    if old is None:
        return 0
    os.kill(old, signal.SIGKILL)
    time.sleep(1)  # the new jobs arrive later, after the queue has been empty for a while
    extra = {f"zz-verify-{i}": i * 7 for i in range(2 * max_jobs + 1)}
    for name, value in extra.items():
        (APP / "queue" / f"{name}.job").write_text(f"{value} 0\n")
    if not served(extra, 20):
        return 0
    return wait_for(lambda: pidfile("worker.pid") != old and pidfile("worker.pid") in workers(), 5)


def served(expected, seconds, idle_s=5):
    """The expected outputs appear within `seconds`; False as soon as no worker has run for `idle_s` while jobs
    wait (a supervisor that gave up serves nothing more, and waiting out the rest would only cost time)."""
    end = last_seen = time.time()
    end += seconds
    while time.time() < end:
        if outputs_ok(expected):
            return True
        if workers() or not list((APP / "queue").glob("*.job")):
            last_seen = time.time()
        elif time.time() - last_seen >= idle_s:
            return False
        time.sleep(0.2)
    return outputs_ok(expected)


def single_worker():
    # Let any restart in flight settle, then there must be exactly one worker, the one in the pidfile.
    return (drained() and _most[0] <= 1 and wait_for(lambda: workers() == [pidfile("worker.pid")], 5)
            and (time.sleep(1) or workers() == [pidfile("worker.pid")]))


def fresh_start():
    """Seeded jobs back in queue/ and their outputs gone, as the instruction announces; returns the log size."""
    (APP / "queue").mkdir(exist_ok=True)
    for job in (orig / "queue").glob("*.job"):
        shutil.copy(job, APP / "queue" / job.name)
        (APP / "done" / f"{job.stem}.out").unlink(missing_ok=True)
    log = APP / "logs" / "supervisor.log"
    return log.stat().st_size if log.is_file() else 0


def attempt(check):
    try:
        return check()
    except Exception as exc:  # a broken state is that check's failure, never a crash
        print(f"{check.__name__}: raised {exc!r}")
        return 0


log_start = fresh_start()
threading.Thread(target=_sample_workers, daemon=True).start()
service = start_service() if (APP / "start.sh").is_file() else None
RETURNED = service is not None and service.poll() is not None  # "returns within a few seconds"
CHECKS = {"queue_drained": drained, "supervisor_alive": supervisor_alive, "exits_logged": exits_logged,
          "restart_after_kill": restarted_after_kill, "single_worker": single_worker}
# In this order: the kill and the later jobs come after the first drain, and one worker must remain after them.
res = {name: attempt(check) for name, check in CHECKS.items()} if RETURNED else {}
# The named cases: every exit logged with its code, a restart after any exit (the kill) with run/worker.pid
# rewritten and later jobs done, exactly one worker. Only the first drain pays without them.
NAMED = RETURNED and all(res[n] for n in ("exits_logged", "restart_after_kill", "single_worker"))
grade({"queue_drained": 0.2, "supervisor_alive": 0.15, "exits_logged": 0.2, "restart_after_kill": 0.3,
       "single_worker": 0.15},
      {name: (lambda n=name: RETURNED and res[n]) if name == "queue_drained" else (lambda n=name: NAMED and res[n])
       for name in CHECKS},
      cleanup=lambda: service and stop_service(service))
