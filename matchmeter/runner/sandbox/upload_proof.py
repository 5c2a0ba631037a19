"""Proof that an upload arrived, carried by the command that uses it.

On Docker with the fuse-overlayfs storage driver a file the engine wrote into a container (put_archive said yes)
has been missing from the container's own view: a CI run ended with `bash: /tests/test.sh: No such file`, scored
as the verifier's error. Whatever a trial uploads and then runs (the setup script and its files, the oracle's
solution, the tests) is therefore run behind a shell prefix that first checks every uploaded file is there; a
file it misses is uploaded again, and still missing after UPLOAD_TRIES uploads it is the sandbox's failure
(SandboxError), never the agent's, the oracle's or the verifier's. The check rides in the command's own exec, so
an upload that arrived costs no extra engine round trip.

An upload made again goes by the sandbox's other path (`upload(..., through_exec=True)`): a CI run lost the tests
three times in a row through the engine's archive API (fuse-overlayfs serves a container's view from its own cache,
and the files the engine wrote did not reach it), so repeating the same call is no cure. Through an exec the files
are written by a process inside the container, in the view the command that uses them runs in.
"""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

from matchmeter.errors import SandboxError

UPLOAD_TRIES = 3
MISSING_EXIT = 97


class _Ran(Protocol):
    @property
    def output(self) -> str: ...

    @property
    def exit_code(self) -> int | None: ...


R = TypeVar("R", bound=_Ran)


def uploaded_paths(src: Path, dest: str, extra_files: Mapping[str, Path] | None = None) -> list[str]:
    """The in-sandbox path of every file `upload(src, dest, extra_files=...)` writes."""
    names = {p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()} if src.is_dir() else set()
    return [f"{dest}/{name}" for name in sorted({*names, *(extra_files or {})})]


class UploadProof:
    """A shell prefix that exits MISSING_EXIT, naming the first missing path after a fresh nonce (so nothing the
    uploaded files print can pass for it), unless every path exists (a link counts, dangling or not)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.nonce = secrets.token_hex(8)
        quoted = " ".join(shlex.quote(p) for p in paths)
        self.prefix = (f'for f in {quoted}; do [ -e "$f" ] || [ -L "$f" ] || '
                       f'{{ echo "{self.nonce} missing $f"; exit {MISSING_EXIT}; }}; done; ') if quoted else ""

    def missing(self, ran: _Ran) -> str | None:
        """The path the prefix found missing, or None when it let the command run."""
        marker = f"{self.nonce} missing "
        if ran.exit_code != MISSING_EXIT or marker not in ran.output:
            return None
        return ran.output.split(marker, 1)[1].splitlines()[0]


def run_uploaded(upload: Callable[[bool], object], paths: list[str], run: Callable[[str], R], what: str, *,
                 uploaded: bool = False) -> R:
    """Upload (unless `uploaded`: the first upload is already made), then `run(prefix)`: a command that starts
    with the proof's prefix. A missing file means upload again and run again, UPLOAD_TRIES uploads in all.
    `upload(again)` is told whether this is an upload made again (then it goes through an exec, module docstring).
    `what` names the upload in the error ("tests uploaded to /tests").

    Raises:
        SandboxError: some uploaded file never became visible inside the sandbox.
    """
    proof = UploadProof(paths)
    missing = None
    for attempt in range(UPLOAD_TRIES):
        if attempt or not uploaded:
            upload(attempt > 0)
        ran = run(proof.prefix)
        if (missing := proof.missing(ran)) is None:
            return ran
    raise SandboxError(f"the {what} never all appeared inside the sandbox ({UPLOAD_TRIES} uploads; {missing} missing)")
