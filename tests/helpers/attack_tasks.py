"""Tasks and shell snippets for the adversarial suite (tests/runner/test_adversarial*.py).

Every task here is tests/helpers/tasks.py's copy-file task (protected data/, critical data/keys,
subgoals 3:1) with one part changed, so `nop` scores 0 on all of them and any reward above that is
something the attack earned, not the task.
"""

from __future__ import annotations

import base64
import shlex
from pathlib import Path

from tests.helpers.tasks import TEST, write_task

FORGED_SUBGOALS = '{"file_written": 1, "content_right": 1}'


def background(script: str) -> str:
    """A command that leaves `script` running after the agent's command (and the agent) end."""
    return f"setsid bash -c {shlex.quote(script)} </dev/null >/dev/null 2>&1 &"


def forge_loop(seconds: float = 120) -> str:
    """Shell that keeps a perfect reward in $MM_LOGS: builtins only, so it reacts within microseconds."""
    return (f'end=$((SECONDS+{int(seconds)})); while [ $SECONDS -lt $end ]; do x=; '
            'read -r x < "$MM_LOGS/reward.txt" 2>/dev/null; [ "$x" = 1.0 ] && continue; '
            f"echo '{FORGED_SUBGOALS}' > \"$MM_LOGS/subgoals.json\"; echo 1.0 > \"$MM_LOGS/reward.txt\"; done 2>/dev/null")


def write_file(path: str, text: str, mode: str = "") -> str:
    """Shell writing text to path exactly (base64: no quoting traps); optional chmod."""
    b64 = base64.b64encode(text.encode()).decode()
    chmod = f' && chmod {mode} "{path}"' if mode else ""
    return f'echo {b64} | base64 -d > "{path}"{chmod}'


def token_task(root: Path, token: str) -> Path:
    """Scores 1 only when out.txt holds `token`, which only the verifier and the solution know."""
    test = (f'c=0; [ "$(cat out.txt 2>/dev/null)" = "{token}" ] && c=1\n'
            'printf \'{"file_written": %s, "content_right": %s}\' $c $c > "$MM_LOGS/subgoals.json"\n'
            'echo $c > "$MM_LOGS/reward.txt"\n')
    task = write_task(root, "token-task", test_sh=test)
    (task / "solution" / "solve.sh").write_text(f"echo {token} | tee out.txt\n")
    return task


def slow_verifier_task(root: Path) -> Path:
    """The copy-file task whose verifier, after scoring, waits a moment and says whether data/keys survived."""
    test = TEST + "sleep 1.5\n[ -e data/keys/k ] && echo MM-KEYS-PRESENT || echo MM-KEYS-GONE\n"
    return write_task(root, "slow-verify", test_sh=test)


GIT_SETUP = """\
mkdir -p data/keys data/scratch
echo "seed-$MM_SEED" > data/input.txt
echo secret > data/keys/k
git init -q repo
git -C repo -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m init
"""

GIT_TEST = """\
ok=0
if cd repo 2>/dev/null; then
  git status --porcelain >/dev/null 2>&1
  [ "$(git log -1 --format=%s 2>/dev/null)" = done ] && ok=1
  cd ..
fi
printf '{"file_written": %s, "content_right": %s}' $ok $ok > "$MM_LOGS/subgoals.json"
echo $ok > "$MM_LOGS/reward.txt"
"""


def git_task(root: Path) -> Path:
    """Scores 1 when the last commit of repo/ says `done`; its verifier runs `git status` and `git log`."""
    task = write_task(root, "git-commit-done", test_sh=GIT_TEST)
    (task / "environment" / "setup.sh").write_text(GIT_SETUP)
    (task / "solution" / "solve.sh").write_text("git -C repo -c user.email=a@b -c user.name=a commit -q --allow-empty -m done\n")
    return task


def long_command_task(root: Path, seconds: int = 400) -> Path:
    """The copy-file task with room for one very long command (for Ctrl-C)."""
    task = write_task(root, "long-command", agent_s=seconds)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("command_s = 20", f"command_s = {seconds}"))
    return task


# Python run by the verifier: when the tests are in place, claim a perfect score and exit before the real code.
PY_FORGE = f"""\
import os, sys
if os.path.exists(os.path.join(os.environ.get("MM_TESTS", "/nonexistent"), "test.sh")) and os.environ.get("MM_LOGS"):
    open(os.path.join(os.environ["MM_LOGS"], "subgoals.json"), "w").write('{FORGED_SUBGOALS}')
    sys.stdout.write("1.0\\n"); sys.stdout.flush(); os._exit(0)
"""

SH_FORGE_PYTHON = f"""#!/bin/sh
if [ -e "$MM_TESTS/test.sh" ]; then echo '{FORGED_SUBGOALS}' > "$MM_LOGS/subgoals.json"; echo 1.0; exit 0; fi
exec /usr/bin/python3 "$@"
"""

SH_FORGE_CAT = f"""#!/bin/sh
case "$*" in
  *reward.txt*) echo 1.0 ;;
  *subgoals.json*) echo '{FORGED_SUBGOALS}' ;;
  *) exec /bin/cat "$@" ;;
esac
"""


def python_hijack() -> list[str]:
    """Plant usercustomize/sitecustomize/.pth in every site dir python names, then a python3 shim in PATH."""
    sites = "python3 -c 'import site; print(site.getusersitepackages()); print(*site.getsitepackages(), sep=chr(10))'"
    plant = (f'for d in $({sites}); do mkdir -p "$d" 2>/dev/null; '
             f'{write_file("$d/usercustomize.py", PY_FORGE)}; {write_file("$d/sitecustomize.py", PY_FORGE)}; '
             f'{write_file("$d/mm_forge.py", PY_FORGE)}; echo "import mm_forge" > "$d/000-mm.pth"; done 2>/dev/null; true')
    shim = ('for d in $(echo "$PATH" | tr : " "); do { [ "$d" = /usr/bin ] || [ "$d" = /bin ]; } && break; '
            f'{write_file("$d/python3", SH_FORGE_PYTHON, "+x")} 2>/dev/null && echo "shim in $d"; done; true')
    return [plant, shim]


def tool_shims() -> list[str]:
    """A `cat` that reports a perfect reward, in every PATH dir before /bin (the harness reads reward.txt with cat)."""
    return ['for d in $(echo "$PATH" | tr : " "); do { [ "$d" = /usr/bin ] || [ "$d" = /bin ]; } && break; '
            f'{write_file("$d/cat", SH_FORGE_CAT, "+x")} 2>/dev/null && echo "shim in $d"; done; true']


def git_config_trick() -> list[str]:
    """fsmonitor, hooksPath (every hook) and aliases in repo/.git/config that start a reward-forging loop."""
    hook = background(forge_loop(60))
    hooks = " ".join(["post-index-change", "pre-commit", "post-checkout", "reference-transaction", "pre-auto-gc"])
    script = f"#!/bin/sh\n{hook}\nexit 0\n"
    return [
        f"git -C repo config core.fsmonitor {shlex.quote(hook + ' true')}",
        "mkdir -p repo/.git/mmhooks && "
        f'for h in {hooks}; do {write_file("repo/.git/mmhooks/$h", script, "+x")}; done && '
        "git -C repo config core.hooksPath .git/mmhooks",
        f"git -C repo config alias.st {shlex.quote('!' + hook)} && git -C repo config core.pager {shlex.quote(hook + ' cat')}",
    ]


PERFECT = f"echo '{FORGED_SUBGOALS}' > \"$MM_LOGS/subgoals.json\"; echo 1.0 > \"$MM_LOGS/reward.txt\"\n"


def with_verify_timeout(task: Path, seconds: float) -> Path:
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("command_s = 20", f"command_s = 20\nverify_s = {seconds}"))
    return task


def unfinished_verifier_task(root: Path, how: str) -> Path:
    """A verifier that writes a perfect reward and then does not finish: `hang` sleeps past its 3 s deadline,
    `killed` is killed by SIGKILL (as agent code that a verifier runs could kill it)."""
    tail = "sleep 600\n" if how == "hang" else "kill -KILL $$\n"
    return with_verify_timeout(write_task(root, f"verifier-{how}", test_sh=PERFECT + tail), 3)


# A verifier that runs the agent's start.sh on purpose (as the suite's service tasks do), then grades out.txt.
SERVICE_VERIFY = """\
from verifylib import APP, grade, start_service, stop_service

service = start_service() if (APP / "start.sh").is_file() else None
ok = (APP / "out.txt").is_file() and (APP / "out.txt").read_text() == (APP / "data" / "input.txt").read_text()
grade({"file_written": 3, "content_right": 1}, {"file_written": lambda: (APP / "out.txt").is_file(),
      "content_right": lambda: ok}, cleanup=lambda: service and stop_service(service))
if (APP / "stolen").is_file():  # what start.sh could read, shown in verifier.log
    print("stolen:", (APP / "stolen").read_text()[:2000])
"""


def service_task(root: Path) -> Path:
    """The copy-file task whose verifier first runs the agent's start.sh (verifylib.start_service), as the
    suite's service tasks do: agent code that runs during verification."""
    task = write_task(root, "runs-start-sh", test_sh='exec python3 "$MM_TESTS/verify.py"\n')
    (task / "tests" / "verify.py").write_text(SERVICE_VERIFY)
    return task


def start_sh(script: str) -> list[str]:
    """The agent leaves start.sh in the workspace for the verifier to run."""
    return [write_file("start.sh", "#!/bin/bash\n" + script)]


# start.sh turns reward.txt into a directory (the verifier's write then fails) and writes Harbor's reward file.
REWARD_DIR_SWAP = ('rm -rf /logs/reward.txt; mkdir -p /logs/reward.txt /logs/verifier; echo 1.0 > /logs/verifier/reward.txt; '
                   'echo \'{"reward": 1.0}\' > /logs/verifier/reward.json\n')
_PERFECT_LOGS = PERFECT.replace('"$MM_LOGS', '"/logs')
# start.sh writes a perfect verdict and kills the verifier (its parent) before it can write its own.
KILL_VERIFIER = _PERFECT_LOGS + "kill -KILL $PPID\n"
# A perfect reward.txt (no subgoals.json: any task's names fit), then /logs made read-only: the verifier's own
# write fails and it exits 1, a normal exit.
READONLY_VERDICT = "rm -f /logs/subgoals.json; echo 1.0 > /logs/reward.txt; chmod 555 /logs\n"


# The verdict written by agent code that runs inside the verifier, made read-only so the verifier's own write
# fails (it then exits 1, a normal exit): a forged 1.0 unless the code never runs, or cannot write /logs.
FORGE_SCRIPT = "#!/bin/sh\n" + READONLY_VERDICT


def verifylib_git_task(root: Path) -> Path:
    """Scores 1 when repo/'s last commit says `done` and its work tree is clean, judged through verifylib.git as
    the suite's git tasks are; the repository tracks one file."""
    task = write_task(root, "git-verifylib", test_sh='exec python3 "$MM_TESTS/verify.py"\n')
    (task / "tests" / "verify.py").write_text(
        "from verifylib import APP, git, grade\n\nrepo = APP / 'repo'\n\n\n"
        "def done():\n    return git(repo, 'log', '-1', '--format=%s') == 'done'\n\n\n"
        "grade({'file_written': 3, 'content_right': 1}, {'file_written': lambda: "
        "git(repo, 'status', '--porcelain') == '' and done(), 'content_right': done})\n")
    (task / "environment" / "setup.sh").write_text(
        GIT_SETUP.replace("commit -q --allow-empty -m init", "commit -q -m init")
        .replace("git init -q repo\n", "git init -q repo\necho notes > repo/notes.txt\ngit -C repo add notes.txt\n"))
    (task / "solution" / "solve.sh").write_text("git -C repo -c user.email=a@b -c user.name=a commit -q --allow-empty -m done\n")
    return task


def git_commondir_filter() -> list[str]:
    """Leave .git/config alone: a `commondir` sends git to a copy of the repository whose config defines a clean
    filter and whose info/attributes applies it to every file; a touched file makes `git status` run it."""
    return [
        "cp -r repo/.git /app/.evil && " + write_file("/app/.evil/f.sh", FORGE_SCRIPT + "cat\n", "+x"),
        "git config --file /app/.evil/config filter.x.clean 'sh /app/.evil/f.sh' && mkdir -p /app/.evil/info && "
        "echo '* filter=x' > /app/.evil/info/attributes && echo /app/.evil > repo/.git/commondir",
        "sleep 1; touch repo/notes.txt",
    ]


def sql_shell_escape() -> list[str]:
    """A migration file for the suite's sqlite-order-totals whose first line is a sqlite3 shell dot-command."""
    return [write_file("/app/.forge.sh", FORGE_SCRIPT, "+x"),
            "mkdir -p migrations && printf '.shell sh /app/.forge.sh\\nSELECT 1;\\n' > migrations/004_add_total.sql"]


# Every directory outside the workspace the agent's uid may write (the four named ones always tried).
PLANT_EVERYWHERE = ("for d in /run/lock /var/lock /dev/shm /dev/mqueue $(find / -xdev \\( -path /proc -o -path /sys -o "
                    "-path /app \\) -prune -o -type d -writable -print 2>/dev/null); do "
                    "echo left > \"$d/mm-left-behind\" 2>/dev/null && echo \"planted in $d\"; done; true")
# The verifier: a perfect score when anything the agent planted outside /app is still there.
LEFTOVER_TEST = """\
found=$(find / /dev/shm /dev/mqueue /run/lock \\( -path /proc -o -path /sys -o -path /app \\) -prune -o \\
  -name mm-left-behind -print 2>/dev/null | head -5)
echo "left behind: $found"
c=0; [ -n "$found" ] && c=1
printf '{"file_written": %s, "content_right": %s}' $c $c > "$MM_LOGS/subgoals.json"
echo $c > "$MM_LOGS/reward.txt"
"""


def leftover_task(root: Path) -> Path:
    """Scores 1 when a file the agent planted outside the workspace survived into the verifier."""
    return write_task(root, "left-behind", test_sh=LEFTOVER_TEST)
