"""bwrap's root verifier: uid 0 in a user namespace over a writable overlay, for Harbor-format tasks only.

Harbor runs tests/test.sh as root in a writable container, and TB2-style verifiers install their test tools
(`apt-get install`, `dpkg -i`) before they test anything. Under bwrap as root (the only mode with two identities)
the verifier phase of such a task (SandboxRequest.verifier_root) therefore runs like this, and the agent phase
never sees any of it:

- a user namespace whose uid and gid maps send 0..65535 to host ids ROOT_BASE.. (owning nothing on the host),
  except ns 1000 (AGENT_NS_UID, the agent's uid in docker) which is the agent's own host uid, so /app shows
  as the agent's and the verifier (ns root) may read and write it, as docker's root may;
- the root filesystem is an overlay: its lower layer is a copy of the image's filesystem with every owner
  shifted by ROOT_BASE (made once per root filesystem, beside it), so the image's root-owned files are ns
  root's; its upper and work dirs are fresh host dirs made at the restart that ends the agent phase, owned by
  ns root, and removed with the sandbox. The overlay is mounted in a mount namespace of the user namespace
  (the kernel allows overlayfs there), never in the host's;
- verifier execs are ns root with docker's default capabilities (ROOT_CAPS) and no_new_privs; everything run
  as the agent's uid there has none. /proc/sys stays read-only (bwrap's cover) and host-owned.

What the agent could write never reaches it: during the agent phase the agent runs in the plain, read-only
root filesystem (which it cannot write, and from which the shifted copy is made by the harness), the upper dir
does not exist yet, /tmp /var/tmp /run /dev/shm are the new bwrap's fresh tmpfs mounts, and the verifier's
environment is the harness's alone. Only /app is the agent's, as in Harbor.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import rootfs

ROOT_BASE = 400_000  # host id of ns root: outside the agent's and the verifier's per-sandbox ranges (bwrap.py)
ID_COUNT = 65_536
AGENT_NS_UID = 1000  # the agent's uid inside the namespace, as under docker (docker.AGENT_UID)
# Docker's default capabilities for a container's root, plus what policy.VERIFIER_CAPS gives every verifier.
ROOT_CAPS = ("chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid",
             "setpcap", "setfcap", "net_bind_service", "net_raw", "sys_chroot", "audit_write", "sys_ptrace")
# The holder (pid 1 of the verifier's sandbox): no capability left to regain by an execve, and a gid of its own, so
# a root verifier without CAP_SYS_PTRACE's reach cannot trace it (setpriv is util-linux's, in every Debian image).
HOLDER_DROP = ["setpriv", "--regid=65534", "--clear-groups", "--bounding-set=-all", "--inh-caps=-all", "--"]
NPROC_LIMIT = 2048  # per host uid: ns root's is shared by every root verifier on the host
USERNS_TIMEOUT_S = 10.0
SHIFTED_SUFFIX = f".root{ROOT_BASE}"
_BAD_PATH_CHARS = (",", ":", "\n")  # overlayfs option separators


def id_map(agent_uid: int) -> str:
    """uid_map / gid_map lines: ns 0..65535 -> ROOT_BASE.., but AGENT_NS_UID -> the agent's host id."""
    a = AGENT_NS_UID
    return (f"0 {ROOT_BASE} {a}\n{a} {agent_uid} 1\n"
            f"{a + 1} {ROOT_BASE + a + 1} {ID_COUNT - a - 1}\n")


def _shift_tree(tree: Path) -> None:
    """Every owner id below ID_COUNT moves up by ROOT_BASE (modes restored: a chown clears setuid bits)."""
    for top, dirs, files in os.walk(tree):
        for name in [*dirs, *files, ""]:
            path = Path(top) / name if name else Path(top)
            st = path.lstat()
            uid = st.st_uid + ROOT_BASE if st.st_uid < ID_COUNT else st.st_uid
            gid = st.st_gid + ROOT_BASE if st.st_gid < ID_COUNT else st.st_gid
            os.lchown(path, uid, gid)
            if not stat.S_ISLNK(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o7000:
                path.chmod(stat.S_IMODE(st.st_mode))


def shifted_rootfs(root: Path) -> Path:
    """The copy of a complete root filesystem that the root verifier's overlay reads, owners shifted by ROOT_BASE;
    made once (under a lock, as rootfs._ensure) beside the original, from which only the harness copies."""
    shifted = root.parent / f"{root.name}{SHIFTED_SUFFIX}"
    marker = shifted / rootfs.MARKER
    # the original's marker, copied with it: a copy of an earlier build under the same name is made again
    expected = (root / rootfs.MARKER).read_text() + f"\nshifted by {ROOT_BASE}\n"
    if marker.is_file() and marker.read_text() == expected:
        return shifted
    with open(root.parent / f".{shifted.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and marker.read_text() == expected:
            return shifted
        tmp = root.parent / f".{shifted.name}.building"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(shifted, ignore_errors=True)
        try:
            copy = subprocess.run(["cp", "-a", "--reflink=auto", str(root), str(tmp)], capture_output=True, text=True)
            if copy.returncode != 0:
                raise SandboxError(f"copying {root} for the root verifier failed: {copy.stderr.strip()[-300:]}")
            _shift_tree(tmp)
            os.chown(tmp, ROOT_BASE, ROOT_BASE)
            tmp.chmod(0o755)
            (tmp / rootfs.MARKER).write_text(expected)
            tmp.rename(shifted)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return shifted


class Overlay:
    """The host side of one verifier phase's writable root: upper and work dirs, the mount point, and the files
    the harness puts into the upper layer (/etc/passwd, /etc/group, /etc/resolv.conf)."""

    def __init__(self, sandbox_root: Path, lower: Path) -> None:
        self.dir = sandbox_root / "root-overlay"
        self.lower = lower
        self.upper, self.work, self.merged = self.dir / "upper", self.dir / "work", self.dir / "merged"
        self.pts = self.dir / "pts"  # a devpts of the namespace's own: apt and dpkg log through a pty
        for path in (lower, self.dir):
            if any(c in str(path) for c in _BAD_PATH_CHARS):
                raise SandboxError(f"{path} holds a ',' or ':' that overlayfs cannot take: set MATCHMETER_ROOTFS_DIR "
                                   "or TMPDIR to a plain path")
        shutil.rmtree(self.dir, ignore_errors=True)
        # ns root must traverse it to mount and bind: its group (ns gid 0) may, other host users still may not
        os.chown(sandbox_root, -1, ROOT_BASE)
        sandbox_root.chmod(0o710)
        for path in (self.dir, self.upper, self.work, self.merged, self.pts):
            path.mkdir(mode=0o755)
            os.chown(path, ROOT_BASE, ROOT_BASE)
        self.dir.chmod(0o700)

    def put(self, dest: str, content: bytes) -> None:
        """A file of ns root's in the upper layer (its parent dirs as the lower layer's modes)."""
        rel = Path(dest.lstrip("/"))
        parent = self.upper
        for part in rel.parts[:-1]:
            parent = parent / part
            if not parent.is_dir():
                parent.mkdir(mode=stat.S_IMODE((self.lower / parent.relative_to(self.upper)).stat().st_mode))
                os.chown(parent, ROOT_BASE, ROOT_BASE)
        target = parent / rel.name
        target.write_bytes(content)
        target.chmod(0o644)
        os.chown(target, ROOT_BASE, ROOT_BASE)

    def mount_argv(self) -> list[str]:
        """Run in the user namespace (as ns root): a private mount namespace, the overlay and a new devpts instance
        mounted in it, then "$@" (bwrap, which binds them: dev_args)."""
        opts = f"lowerdir={self.lower},upperdir={self.upper},workdir={self.work}"
        script = ('mount -t overlay mm-verifier-root -o "$1" "$2" && '
                  'mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 mm-pts "$3" && shift 3 && exec "$@"')
        return ["unshare", "--mount", "--propagation", "private", "--", "bash", "-c", script, "mm-root", opts,
                str(self.merged), str(self.pts)]

    def dev_args(self) -> list[str]:
        """bwrap arguments that show the namespace's devpts as /dev/pts, with /dev/ptmx through it (as docker has)."""
        return ["--dev-bind", str(self.pts), "/dev/pts", "--symlink", "pts/ptmx", "/dev/ptmx"]


class UserNamespace:
    """A user namespace with id_map(agent_uid), held by a placeholder process until release(); joined with
    `nsenter --target=PID --user`, which makes the joiner ns root."""

    def __init__(self, agent_uid: int) -> None:
        gate_r, self._gate_w = os.pipe()
        try:
            self.proc = subprocess.Popen(["unshare", "--user", "--", "bash", "-c", f"read -r _ <&{gate_r}"],
                                         pass_fds=(gate_r,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        finally:
            os.close(gate_r)
        try:
            self._wait_unshared()
            mapping = id_map(agent_uid)
            for name in ("uid_map", "gid_map"):
                Path(f"/proc/{self.proc.pid}/{name}").write_text(mapping)
        except BaseException:
            self.release()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _wait_unshared(self) -> None:
        own = Path("/proc/self/ns/user").stat().st_ino
        deadline = time.monotonic() + USERNS_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                if Path(f"/proc/{self.proc.pid}/ns/user").stat().st_ino != own:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.002)
        err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr and self.proc.poll() is not None else ""
        raise SandboxError(f"cannot create the root verifier's user namespace: {err.strip()[:300]}")

    def release(self) -> None:
        """End the placeholder: the namespace lives on while the sandbox's processes are in it."""
        if self._gate_w >= 0:
            os.close(self._gate_w)
            self._gate_w = -1
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
