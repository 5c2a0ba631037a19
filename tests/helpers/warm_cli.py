"""`matchmeter <args>` as a process of its own, forked from a parent that has already imported the package.

Most CLI tests only need what `subprocess.run([python, "-m", "matchmeter.cli", ...], capture_output=True,
text=True)` gives: the exit status, stdout and stderr of a separate process. On the 2-core machine every such
process pays its imports again, litellm's alone 7-9 CPU-seconds, and the suite starts a few hundred of them.
`run_matchmeter` starts one parent per test process that imports the CLI, litellm (as matchmeter imports it)
and the commands' modules, and then only forks: each call is a fresh child of it with the caller's argv, environment,
and cwd, stdin /dev/null, stdout and stderr in files, whose exit status is the CLI's own (a SystemExit, an uncaught
exception's 1, a signal's negative number), exactly as the interpreter ends a `python -m` run (atexit handlers
and all). Modules import nothing from the environment matchmeter reads at call time, so a child differs from a
cold start only in what was imported before it began.

A call goes to a cold `subprocess.run` instead when the environment differs from the one the parent imported
under in anything but the variables read at call time (MATCHMETER_*, MM_*, the terminal's size and colour, the
name of the running test): litellm and pyarrow read dozens of variables at import. Tests about the process itself (signals, kill -9,
a cold start's imports) keep using subprocess.Popen; tests/test_warm_cli.py holds a warm call to a cold one.
"""

from __future__ import annotations

import atexit
import collections
import json
import locale
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "matchmeter.cli"]
# Read at call time only: by matchmeter (MATCHMETER_*, MM_*, the terminal's), by Ray when a command imports it
# (RAY_*: the parent never imports ray, it checks), by breakpoint() when called (PYTHONBREAKPOINT), by tiktoken
# when it loads an encoding (TIKTOKEN_CACHE_DIR, which litellm's token counter sets in os.environ the first time
# it is imported, so an in-process gateway test leaves it behind); pytest names the running test in
# PYTEST_CURRENT_TEST, which nothing reads. A difference in any other variable means a cold start.
CALL_TIME_VARS = re.compile(r"(MATCHMETER_|MM_|RAY_).*|COLUMNS|LINES|NO_COLOR|FORCE_COLOR|TERM|PYTEST_CURRENT_TEST"
                            r"|PYTHONBREAKPOINT|TIKTOKEN_CACHE_DIR")
# Unset, it is what matchmeter's import_litellm sets before importing litellm.
IMPORT_DEFAULTS = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}

_PARENT_CODE = r'''
import atexit, gc, json, os, runpy, signal, sys, threading, time
from matchmeter.llm.client import import_litellm
import matchmeter.cli, matchmeter.metrics.table, matchmeter.optimizer.pipeline, matchmeter.pipeline.evaluate
import matchmeter.report.html, matchmeter.runner.run, rich.console
import_litellm()
if "ray" in sys.modules:  # RAY_* count as call-time variables only because no child starts with ray imported
    sys.exit("the warm CLI parent's imports imported ray: leave the module that does out of them")
threads = os.listdir("/proc/self/task")
if len(threads) != 1:  # a fork copies only the forking thread: whatever another one held stays held in the child
    sys.exit(f"the warm CLI parent must be single-threaded to fork, and its imports started {len(threads) - 1} "
             "more threads: leave the module that starts them out of its imports (pandas and pyarrow do)")
# Every object so far moves to the collector's permanent generation: a child's collections then never walk (and
# so never copy-on-write) the parent's whole heap, hundreds of MB after litellm.
gc.freeze()
control_in, control_out = (int(fd) for fd in sys.argv[1:3])
reader, writer = os.fdopen(control_in, "r"), os.fdopen(control_out, "w")
writer.write("ready\n"); writer.flush()
for line in reader:
    request = json.loads(line)
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        reader.close(); writer.close()
        for fd, (path, flags) in enumerate(((request["stdin"], os.O_RDONLY),
                                            (request["stdout"], os.O_WRONLY | os.O_TRUNC),
                                            (request["stderr"], os.O_WRONLY | os.O_TRUNC))):
            opened = os.open(path, flags)
            os.dup2(opened, fd)
            os.close(opened)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as `python -m` puts the working directory first
        sys.argv = ["matchmeter", *request["args"]]
        del sys.modules["matchmeter.cli"]  # it runs as __main__, as under `python -m`, not as the imported copy
        code, interrupted = 0, False
        try:
            runpy.run_module("matchmeter.cli", run_name="__main__", alter_sys=True)
        except SystemExit as exc:  # as the interpreter turns one into an exit status
            if exc.code is None or isinstance(exc.code, int):
                code = (exc.code or 0) & 0xFF
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException as exc:  # an uncaught exception: its traceback, status 1 (Ctrl-C: killed by SIGINT)
            sys.excepthook(type(exc), exc, exc.__traceback__)
            code, interrupted = 1, isinstance(exc, KeyboardInterrupt)
        # The interpreter's end (threads joined, atexit handlers, streams flushed) without freeing the heap:
        # freeing the parent's objects would copy every page of it first.
        threading._shutdown()  # what the interpreter's end calls: thread-atexit hooks (executors), then joins
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        if interrupted:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(code)
    deadline = None if request["timeout"] is None else time.monotonic() + request["timeout"]
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if deadline is not None and time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            timed_out = True
            break
        time.sleep(0.01)
    writer.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out,
                             "cpu_s": usage.ru_utime + usage.ru_stime}) + "\n")
    writer.flush()
'''


def _import_env(env: dict[str, str]) -> dict[str, str]:
    """The part of an environment that can change what importing the package does."""
    merged = {**IMPORT_DEFAULTS, **env}
    return {k: v for k, v in merged.items() if not CALL_TIME_VARS.fullmatch(k)}


class _Parent:
    def __init__(self, env: dict[str, str]) -> None:
        self.lock = threading.Lock()
        self.last_cpu_s = 0.0  # user + system CPU of the last child (benchmarks/warm_cli.py)
        to_parent_r, self._to_parent = os.pipe()
        self._from_parent, from_parent_w = os.pipe()
        self.log = tempfile.NamedTemporaryFile(prefix="mm-warm-cli-", suffix=".log", delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen([sys.executable, "-c", _PARENT_CODE, str(to_parent_r), str(from_parent_w)],
                                     pass_fds=(to_parent_r, from_parent_w), env=env, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        os.close(to_parent_r)
        os.close(from_parent_w)
        self.writer = os.fdopen(self._to_parent, "w")
        self.reader = os.fdopen(self._from_parent, "r")
        if self.reader.readline() != "ready\n":
            raise RuntimeError(f"the warm CLI parent did not start: {Path(self.log.name).read_text()[-2000:]}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, args: list[str], env: dict[str, str], cwd: str, timeout: float | None) -> subprocess.CompletedProcess[str]:
        with self.lock, tempfile.TemporaryDirectory(prefix="mm-warm-call-") as tmp:
            stdout, stderr = Path(tmp, "stdout"), Path(tmp, "stderr")
            stdout.touch()
            stderr.touch()
            request = {"args": args, "env": env, "cwd": cwd, "timeout": timeout,
                       "stdin": os.devnull, "stdout": str(stdout), "stderr": str(stderr)}
            self.writer.write(json.dumps(request) + "\n")
            self.writer.flush()
            line = self.reader.readline()
            if not line:
                raise RuntimeError(f"the warm CLI parent died: {Path(self.log.name).read_text()[-2000:]}")
            reply: dict[str, Any] = json.loads(line)
            out, err = (_text(p) for p in (stdout, stderr))
        self.last_cpu_s = float(reply["cpu_s"])
        if reply["timed_out"]:
            raise subprocess.TimeoutExpired([*CLI, *args], timeout or 0, out, err)
        return subprocess.CompletedProcess([*CLI, *args], reply["returncode"], out, err)

    def stop(self) -> None:
        self.writer.close()  # the parent's loop ends at end of input
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.close()
        self.log.close()
        Path(self.log.name).unlink()


def _text(path: Path) -> str:
    """As subprocess's text mode reads a pipe: the locale's encoding, universal newlines."""
    with open(path, encoding=locale.getpreferredencoding(False), newline=None) as f:
        return f.read()


# The import-time part of the environment the test process started with: the parent imports under it, not under
# whatever the test that happens to call first has patched in (one such test would leave every later call cold).
_SESSION_IMPORT_ENV = _import_env(dict(os.environ))
_parent: _Parent | None = None


# Calls made in this test process: how many were warm, and for each variable that made one cold, how many.
# tests/conftest.py prints the session's sums, so a leak that turns every later call cold shows in the summary.
STATS: dict[str, Any] = {"warm": 0, "cold_because": collections.Counter()}


def import_env_difference(env: dict[str, str] | None = None) -> list[str]:
    """The import-time variables in which `env` (default: this process's) differs from the session's start."""
    mine, session = _import_env(dict(os.environ if env is None else env)), _SESSION_IMPORT_ENV
    return sorted(k for k in mine.keys() | session.keys() if mine.get(k) != session.get(k))


def _parent_for(env: dict[str, str]) -> _Parent | None:
    """The parent, started (or restarted) on first use; None, a cold start, when the environment's import-time
    variables differ from the session's."""
    global _parent
    if import_env_difference(env):
        return None
    if _parent is not None and not _parent.alive():
        _parent.stop()
        _parent = None
    if _parent is None:
        _parent = _Parent(env)
        atexit.register(_parent.stop)
    return _parent


def run_matchmeter(*args: object, env: dict[str, str] | None = None, cwd: str | Path | None = None,
                   timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """What `subprocess.run([python, "-m", "matchmeter.cli", *args], capture_output=True, text=True, ...)`
    returns (TimeoutExpired included; stdin is /dev/null), from a warm child when the environment allows it."""
    argv = [str(a) for a in args]
    call_env = dict(os.environ if env is None else env)
    workdir = str(cwd if cwd is not None else Path.cwd())
    parent = _parent_for(call_env)
    if parent is None:
        STATS["cold_because"].update(import_env_difference(call_env))
        return subprocess.run([*CLI, *argv], capture_output=True, text=True, env=call_env, cwd=workdir,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    STATS["warm"] += 1
    return parent.run(argv, call_env, workdir, timeout)


def is_warm(env: dict[str, str] | None = None) -> bool:
    """Whether run_matchmeter would fork a warm child for this environment (for the helper's own tests)."""
    return _parent_for(dict(os.environ if env is None else env)) is not None
