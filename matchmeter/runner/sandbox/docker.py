"""The Docker backend: one labelled container per trial, driven through the docker SDK.

The container runs `sleep infinity` under docker's init (which reaps orphans), so services an exec
starts in the background keep running for later execs. Each exec goes through a tiny bash wrapper
that sends the command's output to a file and prints it after the command exits: a background child
then never holds the exec's stream open, which would block the call forever. The command itself
reaches the inner `bash -c` as one positional argv element ("$@"), never re-parsed by a shell.
Timeouts are enforced inside the container by `timeout -s KILL` (which kills the command's whole
process group) and outside by a watchdog that removes the container, so a stalled engine cannot
block an exec forever.

Commands run as the unprivileged AGENT_UID; only the runner's own bookkeeping (dirs, the kill of the
agent's processes, reading the verdict) runs as root. restart() ends the agent phase in one exec: every process
but the container's init and its sleep is killed until none is left, the dirs a new start would bring back empty
(/tmp, /var/tmp and /run/lock, tmpfs mounts; the engine's /dev/shm and /dev/mqueue) are emptied and System V IPC
removed, /tests and /logs are recreated empty, no process of the agent's uid is left (checked), and the "after"
snapshot is taken. Where that cannot be proven, the container is killed (no process of the agent survives its pid
namespace) and started again, as every restart did before (issue 35: kill + start was ~15% of a trial). A pids
limit bounds fork bombs; exec output and archives are capped.
"""

from __future__ import annotations

import base64
import functools
import io
import os
import posixpath
import secrets
import tarfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matchmeter.errors import SandboxError
from matchmeter.runner.sandbox import (
    BackendClass,
    ExecResult,
    FileRead,
    Restarted,
    SandboxCapabilities,
    SandboxRequest,
    baseimage,
    clilayer,
    imagelayers,
    policy,
    workspace_check,
)
from matchmeter.runner.sandbox.egress_forwarder import IN_SANDBOX_SOCKET
from matchmeter.schema import TaskSpec

# $1.. = timeout -s KILL T bash -c COMMAND; output goes to a file so background children cannot hold
# the exec stream open, then the file is printed and the command's status returned. The wrapper's own
# stderr is dropped (bash, not dash: dash writes "Killed" into the command's redirected stderr).
EXEC_WRAPPER = (f'exec 2>/dev/null; o=$(mktemp /tmp/.mm-out.XXXXXX) || exit 125; "$@" >"$o" 2>&1 </dev/null; c=$?; '
                f'head -c {policy.MAX_OUTPUT_BYTES} "$o"; n=$(stat -c %s "$o"); rm -f "$o"; '
                f'[ "$n" -gt {policy.MAX_OUTPUT_BYTES} ] && printf "\\n[matchmeter: output truncated, %s bytes written]\\n" "$n"; exit $c')
ENGINE_SLACK_S = 60.0  # beyond the command's own timeout, how long the engine may take to answer
SIGKILL_EXIT = 137
AGENT_UID = 1000
PIDS_LIMIT = 512
FSIZE_LIMIT = 2 * 1024**3  # as under bwrap: `truncate -s 4T` fails instead of making a file no one can hash
ARCHIVE_CAP_BYTES = 256 * 1024 * 1024  # a download streams at most this much, never the whole archive in memory
# Base64 characters of an upload made through an exec (DockerSandbox._untar_through_exec) per exec argument: under
# Linux's cap of 128 KiB on one argument.
EXEC_UPLOAD_CHUNK = 96 * 1024
# The engine's archive API cannot see tmpfs mounts, so /tests and /logs are plain dirs that PREPARE
# recreates (empty, agent-owned) on every start; /tmp and /var/tmp come back empty as tmpfs.
# exec: docker mounts tmpfs noexec by default, where scripts cannot run and os.access(X_OK) is False.
# /run/lock (= /var/lock) is the base image's other directory the sandbox uid may write: a tmpfs too, or what the
# agent left there would survive the restart into the verifier (/dev/shm and /dev/mqueue are the engine's, per start).
TMPFS = {"/tmp": "size=1g,mode=1777,exec", "/var/tmp": "size=1g,mode=1777,exec", "/run/lock": "size=64m,mode=1777"}
# On restart the workspace keeps its owners (a second chown -R would move every file's ctime, which the
# decoy probe reads); only /tests and /logs are made anew.
FRESH_DIRS = (f"rm -rf {policy.TESTS_DIR} {policy.LOGS_DIR} && mkdir -p {policy.TESTS_DIR} {policy.LOGS_DIR} && "
              f"chown {AGENT_UID}:{AGENT_UID} {policy.TESTS_DIR} {policy.LOGS_DIR}")
PREPARE = (f"{FRESH_DIRS} && mkdir -p {policy.APP_DIR} && chown -R {AGENT_UID}:{AGENT_UID} {policy.APP_DIR} && "
           f"(getent passwd {AGENT_UID} >/dev/null || echo 'agent:x:{AGENT_UID}:{AGENT_UID}:agent:/tmp:/bin/bash' >> /etc/passwd) && "
           f"(getent group {AGENT_UID} >/dev/null || echo 'agent:x:{AGENT_UID}:' >> /etc/group)")
# Up to ~5 s: after an in-place restart the agent's killed processes are zombies until init reaps them, and pgrep
# counts zombies (seen under load).
KILL_AGENT = (f"for i in $(seq 500); do pkill -KILL -u {AGENT_UID} || break; sleep 0.01; done; "
              f"! pgrep -u {AGENT_UID} >/dev/null")
# After the restart /tests and /logs belong to the verifier (the container's root) alone.
VERIFIER_DIRS = f"chown 0:0 {policy.TESTS_DIR} {policy.LOGS_DIR} && chmod 0700 {policy.TESTS_DIR} {policy.LOGS_DIR}"
# halt(): every process but the container's init (1), its `sleep infinity` (root's, child of 1) and this shell,
# whatever its uid (the verifier's own included), until none is left running (zombies run nothing).
# A process's state and parent are read after the last ") " of /proc/PID/stat: its name (in parentheses) may hold
# spaces, and a name like "x Z y" made field 3 read "Z", so a live process passed for a zombie and was left running.
KILL_ALL_FN = ('keep() { [ "$1" = 1 ] || [ "$1" = $$ ] || { [ "$(stat -c %u /proc/$1 2>/dev/null)" = 0 ] && '
               'read -r f < /proc/$1/stat 2>/dev/null && f=${f##*") "} && f=${f#* } && [ "${f%% *}" = 1 ] && '
               '[ "$(tr "\\0" " " < /proc/$1/cmdline 2>/dev/null)" = "sleep infinity " ]; }; }; '
               'kill_all() { for i in $(seq 200); do left=0; for d in /proc/[0-9]*; do p=${d#/proc/}; keep $p && continue; '
               'read -r f < $d/stat 2>/dev/null || continue; f=${f##*") "}; [ "${f%% *}" = Z ] && continue; '
               'left=1; kill -KILL $p 2>/dev/null; done; [ $left = 0 ] && return 0; sleep 0.01; done; return 1; }; ')
KILL_ALL = KILL_ALL_FN + "kill_all"
# The clean state without a container restart (restart() falls back to one when this cannot prove it): with every
# process but init and its sleep gone, the dirs the agent's uid may write outside the workspace are emptied, which
# is what a new start gives them (TMPFS, and the engine's /dev/shm and /dev/mqueue), and so is the IPC namespace's
# System V state. Root removes anything the agent made there (it has no capabilities: no mount, no immutable bit).
SCRUB_DIRS = (*TMPFS, "/dev/shm", "/dev/mqueue")
SCRUB = ("for d in " + " ".join(SCRUB_DIRS) + "; do [ -d $d ] && [ ! -L $d ] && "
         "find $d -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + ; done; "
         "ipcrm --all 2>/dev/null; for d in " + " ".join(SCRUB_DIRS) + "; do "
         "[ -z \"$(find $d -mindepth 1 -maxdepth 1 2>/dev/null | head -1)\" ] || exit 1; done; "
         # no System V object left (ipcrm missing, or one it could not remove): then the container restarts
         "for f in shm msg sem; do [ ! -e /proc/sysvipc/$f ] || [ $(wc -l < /proc/sysvipc/$f) -le 1 ] || exit 1; done")
# "$1" is a nonce the trial's own reads are framed with: the agent never sees it.
LIST_TESTS = f'echo "$1 planted"; ls -A {policy.TESTS_DIR} 2>/dev/null | head -5'
# halt()'s reads, as root with the image's own tools once nothing runs: one line "$1 <index> <kind> <base64>" per
# path of "$@" after the nonce; kind as file_kind (a path whose canonical form differs from itself lies under a link).
READ_FILES = ('n="$1"; shift; i=0; for p in "$@"; do if [ -L "$p" ]; then k=link; elif [ ! -e "$p" ]; then k=none; '
              'elif [ "$(readlink -f -- "$p")" != "$p" ]; then k=other; elif [ -f "$p" ]; then k=file; '
              'elif [ -d "$p" ]; then k=dir; elif [ -p "$p" ]; then k=fifo; else k=other; fi; '
              'if [ $k = file ]; then b=$(head -c "$MM_READ_LIMIT" -- "$p" | base64 -w0); else b=-; fi; '
              'echo "$n $i $k $b"; i=$((i+1)); done')


class DockerSandbox:
    """A running container plus the low-level API client that drives it."""

    capabilities = SandboxCapabilities(isolated=True, network_control=True, resource_limits=True)
    app_dir = policy.APP_DIR

    def __init__(self, client: Any, request: SandboxRequest) -> None:
        self.cli_executable: str | None = None  # the CLI adapter's in-image executable (clilayer.py), if any
        self.lost = False  # the agent (not root) cannot stop the container's init
        self.base_env = dict(policy.SANDBOX_ENV)  # under the image's ENV once started
        self.client = client
        self.api = client.api
        self.request = request
        self.layout = {"app": policy.APP_DIR, "tests": policy.TESTS_DIR, "logs": policy.LOGS_DIR}
        self.container: Any = None
        # Named up front so destroy() can find a container whose create was interrupted mid-call.
        self.name = f"matchmeter-{policy.safe_label(request.label or request.task_id)}-{secrets.token_hex(4)}"
        self._destroyed = False
        self._stalled = False
        self.upload_owner = AGENT_UID  # root (the verifier) after the restart

    def start(self, image: str, image_env: dict[str, str]) -> None:
        """Create and start the container from `image` (whose ENV is `image_env`), then make the sandbox dirs."""
        import docker
        from docker.models.containers import Container

        self.base_env = baseimage.sandbox_base_env(image_env)
        spec = self.request.environment
        network = self.request.network or spec.network
        try:
            # The low-level calls: the SDK's containers.run reads the container back after starting it, one more
            # engine round trip per trial that nothing here uses.
            host_config = self.api.create_host_config(
                init=True, network_mode="bridge" if network else "none", tmpfs=TMPFS, pids_limit=PIDS_LIMIT,
                # The workspace is an anonymous volume (removed with the container): unlike the image's
                # overlay it updates atime, so the decoy probe's read signal works here as under bwrap.
                mounts=[docker.types.Mount(target=policy.APP_DIR, source=None, type="volume"), *self._gateway_mounts()],
                ulimits=[docker.types.Ulimit(name="fsize", soft=FSIZE_LIMIT, hard=FSIZE_LIMIT)],
                nano_cpus=int(spec.cpus * 1e9), mem_limit=f"{spec.memory_mb}m",
                # the verifier (root here) reads the agent's /proc/PID/cwd and fd (policy.VERIFIER_CAPS); the agent's
                # uid has no capabilities at all
                cap_add=["SYS_PTRACE"],
                # and cannot gain any through a setuid binary of the image: the in-place restart proves the
                # agent gone by uid, which a setuid-root process of the agent's would escape
                security_opt=["no-new-privileges:true"],
            )
            created = self.api.create_container(
                image, ["sleep", "infinity"], name=self.name, detach=True, working_dir=policy.APP_DIR,
                labels={policy.LABEL_KEY: policy.LABEL_VALUE, policy.LABEL_RUN: self.request.label},
                host_config=host_config)
            self.container = Container(attrs={"Id": created["Id"]}, client=self.client,
                                       collection=self.client.containers)
            self.api.start(created["Id"])
        except Exception as exc:  # noqa: BLE001 - every engine failure here means no sandbox
            raise SandboxError(f"cannot start a container from {image}: {exc}") from exc
        self._prepare()

    def _gateway_mounts(self) -> list[Any]:
        """The model gateway's socket (egress_forwarder.py): with network none, the container's only way out."""
        import docker

        socket_path = self.request.gateway_socket
        if socket_path is None:
            return []
        return [docker.types.Mount(target=IN_SANDBOX_SOCKET, source=str(socket_path), type="bind")]

    def _prepare(self, script: str = PREPARE) -> None:
        setup = self._raw_exec(["bash", "-c", script], 30.0, {})
        if setup[1] != 0:
            raise SandboxError(f"cannot create the sandbox dirs: {setup[0][:200]!r}")

    def workspace_differences(self, expected: workspace_check.Listing) -> list[str]:
        """How the container's /app differs from the image's (workspace_check.py); no exec when the image's is
        empty, as for every task that only starts FROM the base: the engine then copied nothing."""
        if not expected:
            return []
        listing, code = self._raw_exec(["bash", "-c", workspace_check.LIST_APP], 30.0, {})
        if code != 0:
            raise SandboxError(f"cannot list the sandbox's {policy.APP_DIR}: {listing[:200]!r}")
        return workspace_check.differences(expected, listing)

    def _raw_exec(self, argv: list[str], timeout_s: float, env: dict[str, str], user: str = "0:0") -> tuple[str, int]:
        """Run argv in the container and wait; output is stdout+stderr as the engine multiplexed it. Root is named
        by number: a name makes the engine look it up in the container's /etc/passwd, which failed once under load
        ("unable to find user root") and failed a trial's halt.

        docker-py reads exec streams with no socket timeout, so a watchdog removes the container if
        the engine has not answered ENGINE_SLACK_S after the command's own deadline.
        """
        if self._destroyed or self.container is None:
            raise SandboxError("docker sandbox is not running")
        watchdog = threading.Timer(timeout_s + ENGINE_SLACK_S, self._engine_stalled)
        watchdog.daemon = True
        try:
            exec_id = self.api.exec_create(self.container.id, argv, environment=env, workdir=policy.APP_DIR,
                                           user=user)["Id"]
            watchdog.start()
            raw = self.api.exec_start(exec_id, demux=False)
            code = self.api.exec_inspect(exec_id)["ExitCode"]
        except KeyboardInterrupt:
            self.destroy()
            raise
        except Exception as exc:  # noqa: BLE001 - engine gone, container removed
            if not self._stalled:
                raise SandboxError(f"docker exec failed: {exc}") from exc
            raw, code = b"", -1
        finally:
            watchdog.cancel()
        if self._stalled:
            watchdog.join(60)  # the stream ends when the container dies, before its removal completes
            raise SandboxError(f"the Docker engine did not finish an exec within {timeout_s + ENGINE_SLACK_S:.0f}s")
        return policy.decode_output(raw or b""), int(code if code is not None else -1)

    def _engine_stalled(self) -> None:
        """Watchdog thread: remove the container (with a client of its own) to unblock the exec stream."""
        import docker

        self._stalled = True
        try:
            docker.from_env(timeout=60).containers.get(self.name).remove(force=True, v=True)
        except Exception:  # noqa: BLE001 - the exec raises SandboxError either way
            pass

    def exec(self, command: str, timeout_s: float, env: dict[str, str] | None = None, *,
             as_verifier: bool = False) -> ExecResult:
        full_env = policy.sandbox_env(self.layout, self.request.env, env, self.base_env)
        if as_verifier:  # the container's root: an identity the agent (AGENT_UID) never had
            full_env.update(policy.verifier_env(AGENT_UID, 0))
        seconds = f"{max(timeout_s, 0.001):.3f}"
        argv = ["bash", "-c", EXEC_WRAPPER, "mm-exec", "timeout", "-s", "KILL", seconds, "bash", "-c", command]
        started = time.monotonic()
        output, code = self._raw_exec(argv, timeout_s, full_env, user="0:0" if as_verifier else f"{AGENT_UID}:{AGENT_UID}")
        duration = time.monotonic() - started
        # `timeout -s KILL` exits 137 on expiry, as does a command killed for memory; the clock tells them apart.
        timed_out = code == SIGKILL_EXIT and duration >= timeout_s
        return ExecResult(output, policy.TIMEOUT_EXIT_CODE if timed_out else code, duration, timed_out)

    def _abs(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(policy.APP_DIR, path))

    def upload(self, src: Path, dest: str, extra_files: Mapping[str, Path] | None = None, *,
               through_exec: bool = False) -> None:
        src, dest = Path(src), self._abs(dest)
        if not src.exists():
            raise SandboxError(f"cannot upload {src}: no such file or directory")
        import docker.errors

        parent, name = posixpath.split(dest)
        # One archive for src and its extra files: each put_archive costs the engine a re-exec of itself (about
        # 80 ms of its CPU on fuse-overlayfs, benchmarks/uploads.py). Every entry is owned by the sandbox user in
        # the archive itself (the engine keeps a tar's owners), and the parent is made only when the engine says
        # it is missing (an exec costs ~30 ms).
        # the verifier's dirs keep their 0700 (a tar's entry for the dir itself would set its mode)
        private = self.upload_owner == 0 and dest in (policy.TESTS_DIR, policy.LOGS_DIR)
        data = _tar_bytes(src, name, owner=self.upload_owner, extra_files=extra_files or {},
                          top_mode=0o700 if private else None)
        if through_exec:
            self._untar_through_exec(parent, data, dest)
            return
        try:
            try:
                ok = self.container.put_archive(parent, data)
            except docker.errors.NotFound:
                self._raw_exec(["mkdir", "-p", parent], 30.0, {})
                ok = self.container.put_archive(parent, data)
        except SandboxError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"upload to {dest} failed: {exc}") from exc
        if not ok:
            raise SandboxError(f"upload to {dest} failed")

    def _untar_through_exec(self, parent: str, data: bytes, dest: str) -> None:
        """Unpack the archive by root's tar inside the container: the files are written in the container's own
        view of its filesystem, which the engine's archive API did not reach once (upload_proof.py). The archive
        travels base64-encoded in exec arguments, EXEC_UPLOAD_CHUNK characters at a time, into a fresh 0700 dir
        of root's under /tmp that goes once it is unpacked (tar keeps the archive's owners and modes)."""
        encoded = base64.b64encode(data).decode("ascii")
        stage = f"/tmp/.mm-upload-{secrets.token_hex(8)}"
        chunks = [encoded[i:i + EXEC_UPLOAD_CHUNK] for i in range(0, len(encoded), EXEC_UPLOAD_CHUNK)] or [""]
        for i, chunk in enumerate(chunks):
            script = ('umask 077 && mkdir -- "$1" && printf %s "$2" > "$1/a"' if i == 0
                      else 'printf %s "$2" >> "$1/a"')
            output, code = self._raw_exec(["bash", "-c", script, "mm-upload", stage, chunk], 60.0, {})
            if code != 0:
                self._raw_exec(["rm", "-rf", "--", stage], 30.0, {})
                raise SandboxError(f"upload to {dest} through an exec failed: {output.strip()[-200:]!r}")
        unpack = ('mkdir -p -- "$2" && base64 -d "$1/a" | tar -x --numeric-owner -C "$2" -f -; '
                  'rc=$?; rm -rf -- "$1"; exit $rc')
        output, code = self._raw_exec(["bash", "-c", unpack, "mm-upload", stage, parent], 60.0, {})
        if code != 0:
            raise SandboxError(f"upload to {dest} through an exec failed: {output.strip()[-200:]!r}")

    def _archive(self, path: str) -> tarfile.TarFile | None:
        """The engine's tar of an in-sandbox path as a capped stream, or None when the path does not exist."""
        import docker.errors

        try:
            stream, _ = self.container.get_archive(self._abs(path))
        except docker.errors.NotFound:
            return None
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"reading {path} from the container failed: {exc}") from exc
        return tarfile.open(fileobj=_CappedStream(stream, ARCHIVE_CAP_BYTES), mode="r|")

    def download(self, src: str, dest: Path) -> None:
        tar = self._archive(src)
        if tar is None:
            raise SandboxError(f"cannot download {src}: no such file or directory")
        dest = Path(dest)
        try:
            with tar:
                for member in tar:
                    top, _, rest = member.name.partition("/")
                    if not rest:  # the path itself: a file lands at dest, a directory's contents below it
                        if member.isfile():
                            dest.parent.mkdir(parents=True, exist_ok=True)
                            fh = tar.extractfile(member)
                            dest.write_bytes(fh.read() if fh else b"")
                        else:
                            dest.mkdir(parents=True, exist_ok=True)
                        continue
                    if member.isfile() or member.isdir():  # links are never recreated on the host
                        member.name = rest
                        tar.extract(member, dest, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise SandboxError(f"downloading {src} stopped: {exc}") from exc

    def snapshot(self, paths: list[str]) -> dict[str, str]:
        return policy.snapshot(self.exec, paths)

    def empty_then_snapshot(self, path: str, paths: Sequence[str]) -> tuple[str, dict[str, str]]:
        return policy.empty_then_snapshot(self.exec, path, paths)

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        script = f'p="$1"; [ -f "$p" ] && [ ! -L "$p" ] && head -c {int(limit)} -- "$p"'
        output, code = self._raw_exec(["bash", "-c", script, "mm-read", self._abs(path)], 30.0, {})
        return output if code == 0 else None

    def file_kind(self, path: str) -> str | None:
        # As root, with the image's own tools (the agent's uid cannot replace them); a path whose canonical form
        # differs from itself lies under a link.
        script = ('p="$1"; if [ -L "$p" ]; then echo link; elif [ ! -e "$p" ]; then echo none; '
                  'elif [ "$(readlink -f -- "$p")" != "$p" ]; then echo other; elif [ -f "$p" ]; then echo file; '
                  'elif [ -d "$p" ]; then echo dir; elif [ -p "$p" ]; then echo fifo; else echo other; fi')
        output, code = self._raw_exec(["bash", "-c", script, "mm-kind", self._abs(path)], 30.0, {})
        kind = output.strip()
        if code != 0 or kind not in ("link", "none", "other", "file", "dir", "fifo"):
            raise SandboxError(f"cannot tell what {path} is: {output[:200]!r}")
        return None if kind == "none" else kind

    def halt(self, read: Sequence[str] = (), limit: int = 1 << 20) -> dict[str, FileRead]:
        """One exec: kill every process, then read `read` (nothing runs that could change them)."""
        nonce = secrets.token_hex(8)
        paths = [self._abs(p) for p in read]
        script = f'{KILL_ALL_FN} kill_all || {{ echo "$1 survived"; exit 1; }}; {READ_FILES}'
        output, code = self._raw_exec(["bash", "-c", script, "mm-halt", nonce, *paths], 60.0,
                                      {"MM_READ_LIMIT": str(int(limit))})
        if code != 0:
            raise SandboxError(f"sandbox processes survived the kill: {output[:200]!r}")
        return _parse_reads(output, nonce, list(read))

    def restart(self, snapshot: Sequence[str] = ()) -> Restarted:
        """End the agent phase in one exec where it can: kill every process but init and its sleep, empty the dirs a
        new start would give back empty, list then remake /tests and /logs, prove no process of the agent's uid is
        left, snapshot as the agent's uid. When any of that fails (a process that would not die, a container that
        stopped or is dying of an OOM kill) the container is killed (every process dies with its pid namespace) and
        started again, and what the first attempt listed of the tests dir is kept."""
        if self._destroyed or self.container is None:
            raise SandboxError("docker sandbox is not running")
        nonce = secrets.token_hex(8)
        after = (f'; echo "$1 snapshot"; {policy.snapshot_command(list(snapshot), as_uid=AGENT_UID)}; '
                 f'rc=$?; echo; echo "$1 rc $rc"') if snapshot else ""
        dirs = (f"{LIST_TESTS}; {FRESH_DIRS} && {VERIFIER_DIRS} || {{ echo 'cannot create the sandbox dirs'; exit 1; }}; "
                f"{KILL_AGENT} || {{ echo 'processes of uid {AGENT_UID} survived the kill'; exit 1; }}{after}")
        in_place = f"{KILL_ALL_FN} kill_all || exit 99; ( {SCRUB} ) || exit 99; {dirs}"
        try:
            output, code = self._raw_exec(["bash", "-c", in_place, "mm-restart", nonce], 60.0 + policy.SNAPSHOT_TIME_CAP_S, {})
        except SandboxError:
            if self._stalled:
                raise
            output, code = "", 99  # the container is not running (its init died): start it below
        # What the tests dir held, if the first attempt got as far as listing it before it was remade.
        planted = _sections(output, nonce).get("planted")
        if code != 0:  # anything unproven (a process that would not die, a container dying of an OOM kill): restart
            try:
                self._kill_if_running()
                self.container.start()
            except Exception as exc:  # noqa: BLE001 - the engine failed us: an infra problem, not the agent's
                raise SandboxError(f"restarting the container failed: {exc}") from exc
            output, code = self._raw_exec(["bash", "-c", dirs, "mm-restart", nonce], 60.0 + policy.SNAPSHOT_TIME_CAP_S, {})
        self.upload_owner = 0
        if code != 0:
            raise SandboxError(f"restarting the container: {output[:200]!r}")
        restarted = _parse_restart(output, nonce, bool(snapshot))
        if planted is not None:
            restarted = restarted._replace(planted=[name for name in planted if name])
        return restarted

    def _kill_if_running(self) -> None:
        """Kill the container unless it has already stopped: the agent may have ended it (its pid 1 OOM-killed by
        an output flood, say), and the engine refuses to kill a stopped container with 409."""
        import docker.errors

        try:
            self.container.kill()
        except docker.errors.APIError as exc:
            self.container.reload()
            if exc.status_code != 409 or self.container.status == "running":
                raise

    def destroy(self) -> None:
        if self._destroyed:
            return
        self._destroyed = True
        try:
            container = self.container or self.client.containers.get(self.name)
            container.remove(force=True, v=True)
        except Exception:  # noqa: BLE001 - destroy never raises; `matchmeter env prune` sweeps leftovers
            pass
        finally:
            self.client.close()


class DockerBackend:
    """Docker engine: isolated, network off by default, CPU and memory limits enforced."""

    name = "docker"
    capabilities = DockerSandbox.capabilities

    def __init__(self, base_aliases: dict[str, str] | None = None, console: Any = None) -> None:
        self.console = console
        self.base_aliases = dict(base_aliases or {})
        self._client: Any = None
        # (environment dir, Dockerfile, CLI) -> (image, its ENV): looked up once per run, not three engine
        # requests per trial; a task image's tag names its content digest, so it cannot change under a run.
        self._images: dict[tuple[str, str, str], tuple[str, dict[str, str], workspace_check.Listing]] = {}
        self._images_lock = threading.Lock()

    def _get_client(self) -> Any:
        if self._client is None:
            self._client = baseimage.docker_client()
        return self._client

    def preflight(self) -> None:
        """Engine must answer (UserError with the fix); a missing base image is built here, once per process."""
        if self.console is not None:  # a caller's own console: told if the build happens, never cached
            baseimage.ensure_base_image(self._get_client(), console=self.console)
        else:
            _base_image_ready(os.environ.get("DOCKER_HOST", ""))

    def builds_images(self) -> bool:
        return True  # preflight proved the engine answers

    def check_environment(self, task_id: str, environment_dir: Path, dockerfile: str = "Dockerfile") -> None:
        """Preflight of one task: every FROM image is local (UserError naming the fixes otherwise)."""
        baseimage.Environment(environment_dir, dockerfile, self.base_aliases).check_bases(self._get_client())

    def needs_engine_for(self, task: TaskSpec) -> bool:
        return False  # a docker node is an engine

    def prune(self, label: str) -> int:
        """The containers labelled with this run label, and any temp tree of that label."""
        return baseimage.prune(label=label) + policy.prune_workspaces(label)

    def create(self, request: SandboxRequest) -> DockerSandbox:
        image, env, app = self._image_of(request)
        for _attempt in (1, 2):
            sandbox = DockerSandbox(self._trial_client(), request)
            try:
                if request.cli_install is not None:
                    sandbox.cli_executable = clilayer.executable_path(request.cli_install)
                sandbox.start(image, env)
                lost = sandbox.workspace_differences(app)
            except BaseException:
                sandbox.destroy()
                raise
            if not lost:
                return sandbox
            sandbox.destroy()  # the engine's copy of the image's /app missed something (workspace_check.py)
        raise SandboxError(f"twice the container's {policy.APP_DIR} differed from the image's "
                           f"({', '.join(lost[:5])}): the Docker engine's storage driver lost files")

    def _trial_client(self) -> Any:
        """A client of the trial's own (its watchdog may close it), told the API version the backend's client
        agreed with the engine: otherwise each one asks the engine again (GET /version) before its first call."""
        import docker

        try:
            return docker.from_env(timeout=int(ENGINE_SLACK_S), version=self._get_client().api.api_version)
        except Exception as exc:  # noqa: BLE001 - engine went away since preflight
            raise SandboxError(f"cannot reach the Docker engine: {exc}") from exc

    def _image_of(self, request: SandboxRequest) -> tuple[str, dict[str, str], workspace_check.Listing]:
        """The image a request runs (task image, or its CLI layer), built when missing, its ENV, and what it holds
        under /app."""
        cli = request.cli_install.model_dump_json() if request.cli_install is not None else ""
        key = (str(request.environment_dir), request.environment.dockerfile, cli)
        with self._images_lock:
            if key in self._images:
                return self._images[key]
        client = self._get_client()
        image = baseimage.task_image(client, request.task_id, request.environment_dir,
                                     request.environment.dockerfile, self.base_aliases)
        if request.cli_install is not None:
            image = clilayer.layer_image(client, image, request.cli_install)
        try:
            app = workspace_check.expected_app(client, image)
        except imagelayers.BadSave as exc:
            raise SandboxError(f"cannot read what {image} holds under {policy.APP_DIR}: {exc}") from exc
        found = (image, baseimage.image_env(client, image), app)
        with self._images_lock:
            self._images[key] = found
        return found


def _sections(output: str, nonce: str) -> dict[str, list[str]]:
    """The lines after each "<nonce> <name>" line, by name."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in output.split("\n"):
        if line.startswith(nonce + " "):
            current = sections.setdefault(line[len(nonce) + 1:], [])
        else:
            current.append(line)
    return sections


def _parse_restart(output: str, nonce: str, snapshotted: bool) -> Restarted:
    sections = _sections(output, nonce)
    planted = [name for name in sections.get("planted", []) if name]
    after: dict[str, str] = {}
    if snapshotted:
        codes = [name[3:] for name in sections if name.startswith("rc ")]
        code = int(codes[0]) if codes and codes[0].isdigit() else -1
        after = policy.parse_snapshot("\n".join(sections.get("snapshot", [])), code)
    return Restarted(planted, after)


def _parse_reads(output: str, nonce: str, asked: list[str]) -> dict[str, FileRead]:
    files: dict[str, FileRead] = {}
    for line in output.split("\n"):
        parts = line.split(" ")
        if len(parts) != 4 or parts[0] != nonce or not parts[1].isdigit() or int(parts[1]) >= len(asked):
            continue
        kind = None if parts[2] == "none" else parts[2]
        text = base64.b64decode(parts[3]).decode("utf-8", errors="replace") if kind == "file" else None
        files[asked[int(parts[1])]] = FileRead(kind, text)
    missing = [p for p in asked if p not in files]
    if missing:
        raise SandboxError(f"cannot tell what {missing[0]} is: {output[-200:]!r}")
    return files


class _CappedStream(io.RawIOBase):
    """A file-like view of the engine's archive chunks that stops at a byte cap (tar then fails cleanly)."""

    def __init__(self, chunks: Any, cap: int) -> None:
        self.chunks, self.cap, self.seen, self.buf = iter(chunks), cap, 0, b""

    def readable(self) -> bool:
        return True

    def readinto(self, out: Any) -> int:
        while not self.buf:
            chunk = next(self.chunks, None)
            if chunk is None:
                return 0
            self.seen += len(chunk)
            if self.seen > self.cap:
                raise OSError(f"the archive passed the {self.cap}-byte cap")
            self.buf = chunk
        n = min(len(out), len(self.buf))
        out[:n], self.buf = self.buf[:n], self.buf[n:]
        return n


def _tar_bytes(src: Path, arcname: str, owner: int, extra_files: Mapping[str, Path], top_mode: int | None = None) -> bytes:
    """A tar archive of src (file or directory) stored under arcname, with each extra file at arcname/<name>
    in place of whatever src holds there, every entry owned by uid/gid `owner` (and src's own entry of mode
    `top_mode` when given), for put_archive."""
    extras = {posixpath.normpath(posixpath.join(arcname, name)): Path(host) for name, host in extra_files.items()}

    def owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = owner
        info.uname = info.gname = ""
        if top_mode is not None and info.name == arcname:
            info.mode = top_mode
        return info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        # src's own entry at an extra's name is left out: the tar would otherwise hold that name twice
        tar.add(str(src), arcname=arcname, filter=lambda info: None if info.name in extras else owned(info))
        for name, host in extras.items():
            if not host.is_file():  # missing, or not a regular file
                raise SandboxError(f"cannot upload {host}: no such regular file")
            with host.open("rb") as fh:
                tar.addfile(owned(tar.gettarinfo(str(host), arcname=name)), fh)
    return buf.getvalue()


@functools.cache
def _base_image_ready(docker_host: str) -> None:
    """The engine at `docker_host` ($DOCKER_HOST, which docker.from_env reads) answers and the base image is there
    (built if not): asked once per process and engine (issue 35), since a run, an evaluation or a benchmark makes
    several backends. A failure raises and is not cached."""
    client = baseimage.docker_client()
    try:
        baseimage.ensure_base_image(client, console=_stderr_console())
    finally:
        client.close()


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


_BACKEND_CLASS: BackendClass = DockerBackend  # mypy --strict proves the class is a SandboxBackend
