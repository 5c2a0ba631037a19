"""Protected-state snapshots read from the host, for a sandbox whose workspace is a host directory (bwrap).

The in-sandbox snapshot (policy.SNAPSHOT_SCRIPT) starts a Python interpreter inside the sandbox, twice per trial:
about 15 ms each, the largest part of what a bwrap trial costs over bare bwrap (benchmarks/trial_breakdown.py).
Here the harness reads the same files itself and builds the same {path: sha256 | unverifiable… | unreadable…}
dict, keeping what makes the script safe to run on files an adversarial agent wrote:

- Nothing the agent planted is followed. Every name is resolved from a directory fd with O_NOFOLLOW, starting at
  an fd of the workspace's host dir. Where the script would follow a link (a directory on the way to a protected
  path is a link), the walker gives up and the caller takes the in-sandbox snapshot: the link names a path inside
  the sandbox, which only the sandbox can resolve.
- The files are read with the agent's permissions, never root's. The walk runs in a thread of its own whose
  filesystem uid and gid are the agent's and which has no supplementary groups: setfsuid, setfsgid and the raw
  setgroups syscall change the calling thread only, and a filesystem uid other than 0 drops CAP_DAC_OVERRIDE and
  CAP_DAC_READ_SEARCH from it (capabilities(7)). A file the agent made unreadable is `unreadable` here as in the
  script. If the thread cannot take those credentials, the caller falls back to the script.
- Only regular files are opened (O_NONBLOCK, and checked again with fstat after the open: a FIFO never blocks the
  harness), under the script's size cap, time cap and entry limit.

Where the two differ, on purpose: a read error is `unreadable` (the script fails the snapshot); a directory more
than MAX_DEPTH levels below a protected path, one holding more than MAX_LISTING names, or one reached past the time
cap is a single `unverifiable` entry (the script's recursion fails near 1,000 levels, and its exec is killed at the
time cap plus 30 s); past the entry limit the walker may keep different files than the script. Both snapshots of
a trial come from the same walker (BwrapSandbox decides once, at creation), so a diff never compares the two.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import hashlib
import os
import stat
import threading
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from matchmeter.runner.sandbox.policy import (
    SNAPSHOT_FILE_CAP_BYTES,
    SNAPSHOT_MAX_ENTRIES,
    SNAPSHOT_TIME_CAP_S,
)

MAX_DEPTH = 256  # directory levels below a protected path; each open level holds one fd
MAX_LISTING = SNAPSHOT_MAX_ENTRIES  # names read from one directory (they are held in the harness's memory)
_SETGROUPS_SYSCALL = {"x86_64": 116, "aarch64": 159}  # the raw syscall: glibc's wrapper would change every thread
_PATH_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LIST_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class NotOnHost(Exception):
    """This snapshot cannot be read from the host as the script would read it; take it inside the sandbox."""


def snapshot(paths: Sequence[str], root: Path, inside: str, identity: tuple[int, int] | None) -> dict[str, str] | None:
    """The dict the snapshot script would print for `paths` (in-sandbox paths, relative ones to the workspace),
    read from `root`, the host dir mounted at `inside`, the workspace; None when the script's answer cannot be had
    from here (a path outside `inside` or not normalised, a link on the way to one, thread credentials refused):
    take the in-sandbox snapshot then.

    identity: the (uid, gid) the agent runs as, when the harness is root; None when the harness's own uid is the
    agent's (bwrap as a normal user maps the agent to it)."""
    below = []
    for given in paths:
        rel = _below(given, inside)
        if rel is None:
            return None
        below.append((given, rel))
    walker = _Walker(time.monotonic() + SNAPSHOT_TIME_CAP_S)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            # as the harness: the host dirs above the workspace are not the agent's to search
            root_fd = os.open(root, _PATH_FLAGS)
            try:
                if identity is not None:
                    _take_credentials(*identity)
                for given, rel in below:
                    walker.path(root_fd, given, rel)
            finally:
                os.close(root_fd)
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            failure.append(exc)

    if identity is None:
        run()
    else:  # the thread's credentials die with it
        thread = threading.Thread(target=run, name="host-snapshot", daemon=True)
        thread.start()
        thread.join()
    if failure:
        if isinstance(failure[0], NotOnHost):
            return None
        raise failure[0]
    return walker.out


def _below(given: str, inside: str) -> tuple[str, ...] | None:
    """The components of `given` under `inside` (a relative path is relative to it: the script runs in the
    workspace), or None unless `given` is a normalised path there."""
    pure = PurePosixPath(given)
    if not given or str(pure) != given or ".." in pure.parts or given.startswith("//"):
        return None
    if not pure.is_absolute():
        return () if given == "." else pure.parts
    try:
        return pure.relative_to(inside).parts
    except ValueError:
        return None


def _take_credentials(uid: int, gid: int) -> None:
    """This thread reads files as uid/gid with no supplementary groups, or NotOnHost."""
    number = _SETGROUPS_SYSCALL.get(os.uname().machine)
    if number is None:
        raise NotOnHost(f"no setgroups syscall number for {os.uname().machine}")
    libc = _libc()
    if libc.syscall(ctypes.c_long(number), ctypes.c_long(0), None) != 0:
        raise NotOnHost(f"setgroups: {os.strerror(ctypes.get_errno())}")
    libc.setfsgid(ctypes.c_uint(gid))
    libc.setfsuid(ctypes.c_uint(uid))
    invalid = ctypes.c_uint(0xFFFFFFFF)  # an invalid id changes nothing and returns the current one
    if libc.setfsgid(invalid) != gid or libc.setfsuid(invalid) != uid or os.getgroups():
        raise NotOnHost("the thread could not take the agent's filesystem credentials")


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


class _Walker:
    """policy.SNAPSHOT_SCRIPT's walk, by directory fd."""

    def __init__(self, deadline: float) -> None:
        self.out: dict[str, str] = {}
        self.deadline = deadline

    def path(self, root_fd: int, given: str, rel: tuple[str, ...]) -> None:
        if not rel:  # the mounted dir itself
            self.directory(root_fd, ".", given, 0)
            return
        opened: list[int] = []
        try:
            parent = root_fd
            for name in rel[:-1]:
                try:
                    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
                except OSError:
                    return  # the script's lstat fails too: the path is missing
                if stat.S_ISLNK(st.st_mode):
                    raise NotOnHost(f"{given}: a link on the way (the script follows it inside the sandbox)")
                if not stat.S_ISDIR(st.st_mode):
                    return
                try:
                    parent = os.open(name, _PATH_FLAGS, dir_fd=parent)
                except OSError:
                    return
                opened.append(parent)
            try:
                st = os.stat(rel[-1], dir_fd=parent, follow_symlinks=False)
            except OSError:
                return
            if stat.S_ISDIR(st.st_mode):
                self.directory(parent, rel[-1], given, 0)
            else:
                self.file(parent, rel[-1], given, st)
        finally:
            for fd in opened:
                os.close(fd)

    def directory(self, parent: int, name: str, key: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.out[key] = f"unverifiable: more than {MAX_DEPTH} nested directories"
            return
        if time.monotonic() > self.deadline:  # a tree of empty directories has no file to stop at
            self.out[key] = "unverifiable: snapshot time cap"
            return
        try:
            fd = os.open(name, _LIST_FLAGS, dir_fd=parent)
        except OSError:
            return  # os.walk skips a directory it cannot list
        try:
            listing: list[tuple[str, bool]] = []
            try:
                with os.scandir(fd) as entries:
                    for entry in entries:  # the listing lives in the harness: bounded, however many names
                        if len(listing) >= MAX_LISTING:
                            self.out[key] = f"unverifiable: more than {MAX_LISTING} entries"
                            return
                        listing.append((entry.name, entry.is_dir(follow_symlinks=False)))
            except OSError:
                return
            for child in sorted(n for n, is_dir in listing if not is_dir):
                self.file_named(fd, child, f"{key}/{child}")
                if len(self.out) >= SNAPSHOT_MAX_ENTRIES:
                    break
            for child in sorted(n for n, is_dir in listing if is_dir):
                self.directory(fd, child, f"{key}/{child}", depth + 1)
        finally:
            os.close(fd)

    def file_named(self, parent: int, name: str, key: str) -> None:
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except OSError:
            return
        self.file(parent, name, key, st)

    def file(self, parent: int, name: str, key: str, st: os.stat_result) -> None:
        if not stat.S_ISREG(st.st_mode):
            return
        if st.st_size > SNAPSHOT_FILE_CAP_BYTES:
            self.out[key] = f"unverifiable: {st.st_size} bytes (cap {SNAPSHOT_FILE_CAP_BYTES})"
            return
        if time.monotonic() > self.deadline:
            self.out[key] = "unverifiable: snapshot time cap"
            return
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=parent)
        except OSError as exc:
            self.out[key] = f"unreadable: {exc.strerror}"
            return
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since the lstat: read nothing that is not a file
                return
            digest = hashlib.sha256()
            while block := os.read(fd, 1 << 20):
                digest.update(block)
            self.out[key] = digest.hexdigest()
        except OSError as exc:
            self.out[key] = f"unreadable: {exc.strerror or errno.errorcode.get(exc.errno or 0, 'error')}"
        finally:
            os.close(fd)
