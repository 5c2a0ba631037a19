"""Issue 30: the built-in suite's verifiers run the tools they point at agent data safely. Every sqlite3 shell
replay goes through verifylib.replay_sql (`sqlite3 -safe`), no verifier script sources a file, git on the
workspace goes through verifylib.git, and agent code runs only through verifylib's entry point."""

from __future__ import annotations

import re

from matchmeter.tasks.loader import builtin_suite_dir

SUITE = builtin_suite_dir()
VERIFIERS = sorted([*SUITE.glob("*/tests/*.py"), *SUITE.glob("*/tests/*.sh"), *(SUITE / "_shared").glob("quoting/*.py"),
                    SUITE / "_shared" / "verifylib.py", SUITE / "_shared" / "quoting.py"])


def _code(path):  # without comment lines: a comment may name what it avoids
    return "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))


def test_the_suite_has_verifiers_to_check():
    assert len(VERIFIERS) > 100


def test_sqlite3_shell_runs_only_in_safe_mode_through_replay_sql():
    shell = {p.relative_to(SUITE).as_posix() for p in VERIFIERS if re.search(r"""["']sqlite3["']\s*,""", _code(p))}
    assert shell == {"_shared/verifylib.py"}, shell
    assert '["sqlite3", "-safe",' in _code(SUITE / "_shared" / "verifylib.py")


def test_no_verifier_sources_a_file():
    sourcing = [p.relative_to(SUITE).as_posix() for p in VERIFIERS if p.suffix == ".sh"
                and re.search(r"(^|[;&|]\s*)(source|\.)\s+\S", _code(p), re.MULTILINE)]
    assert sourcing == []


def test_agent_code_and_git_go_through_verifylib():
    """No verifier starts a process on the workspace itself: subprocess calls outside verifylib name only the
    verifier's own scripts (setup.sh, a pristine notify, printf) or git on a repository the verifier made."""
    allowed = re.compile(r"HERE / \"setup.sh\"|home / \"bin\" / \"notify\"|'printf -- |\"git\", \"clone\"|\*GIT_SAFE")
    found = []
    for path in VERIFIERS:
        if path.name == "verifylib.py":
            continue
        for line in _code(path).splitlines():
            if re.search(r"subprocess\.(run|Popen|call|check_output)\(", line) and not allowed.search(line):
                found.append(f"{path.relative_to(SUITE)}: {line.strip()}")
    assert found == []
