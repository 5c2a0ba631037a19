"""A network-on bwrap sandbox's way out: its own network namespace, connected to the outside by slirp4netns.

bwrap always unshares the network; for a task that declares the network, slirp4netns (Debian's `slirp4netns`)
attaches a tap device to the sandbox's namespace and carries its TCP/UDP out through the host's stack as an
ordinary process. `--disable-host-loopback` refuses connections to the gateway address that would otherwise
reach the host's 127.0.0.1 (10.0.2.2), and 127.0.0.0/8 inside the sandbox is the namespace's own loopback:
services the host runs on loopback are out of reach, as under docker's bridge. DNS goes to slirp's 10.0.2.3,
which forwards to the host's resolver. What the host serves on its other addresses stays reachable, as it is
from a docker container.

slirp4netns runs until the write end of its exit pipe closes: halt() closes it, and a runner that dies closes
it too.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time

from matchmeter.errors import SandboxError

RESOLV_CONF = b"nameserver 10.0.2.3\n"  # slirp4netns's DNS forwarder
READY_TIMEOUT_S = 10.0


class Slirp:
    """One slirp4netns process serving the network namespace of `pid`."""

    def __init__(self, pid: int, user_namespace: bool) -> None:
        tool = shutil.which("slirp4netns")
        if tool is None:
            raise SandboxError("a network-on task needs slirp4netns on bwrap (its own network namespace without the "
                               "host's loopback): apt-get install slirp4netns, or use --backend docker")
        ready_r, ready_w = os.pipe()
        exit_r, self._exit_w = os.pipe()
        target = (["--userns-path", f"/proc/{pid}/ns/user", "--netns-type=path", f"/proc/{pid}/ns/net"]
                  if user_namespace else [str(pid)])
        argv = [tool, "--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp",
                f"--ready-fd={ready_w}", f"--exit-fd={exit_r}", *target, "tap0"]
        try:
            self.proc = subprocess.Popen(argv, pass_fds=(ready_w, exit_r), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        finally:
            os.close(ready_w)
            os.close(exit_r)
        try:
            ready, _, _ = select.select([ready_r], [], [], READY_TIMEOUT_S)
            ok = bool(ready) and os.read(ready_r, 1) == b"1"
        finally:
            os.close(ready_r)
        if not ok:
            self.stop()
            err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
            raise SandboxError(f"slirp4netns did not bring the sandbox's network up: {err.strip()[-300:]}")

    def stop(self) -> None:
        """End slirp4netns (its exit pipe closes; SIGKILL if it has not gone within a second)."""
        if self._exit_w >= 0:
            os.close(self._exit_w)
            self._exit_w = -1
        deadline = time.monotonic() + 1.0
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
