"""A separately installed matchmeter agent package, as `pip install` leaves one on sys.path (this module and
its dist-info, whose entry point registers `npm-hello` in the `matchmeter.adapters` group): nothing in
matchmeter names it. Its adapter runs the tiny npm CLI of tests/data/npm-hello-cli, which the runner installs
into the sandbox's image layer because the class declares it (its requirements come from its profile)."""

from __future__ import annotations

from matchmeter.runner.agents.adapters.base import (
    AdapterProfile,
    CLIAdapter,
    InstallSpec,
    LogReader,
    ParsedLog,
)


class HelloNpmAdapter(CLIAdapter):
    """`mm-hello --copy data/input.txt out.txt` solves write_task's copy-file task. Not a model CLI: it calls
    no model, so it needs no gateway."""

    PROFILE = AdapterProfile(
        name="npm-hello", version="1.0.0", verified=False, approval_mode="none", sandbox="none",
        flags=("--copy", "data/input.txt", "out.txt"), prompt_mode="argv", log_location="stdout",
        log_format="one line", needs_network=False,
        install=InstallSpec(kind="npm", package="mm-hello-cli", version="1.0.0", executable="mm-hello"))

    @classmethod
    def parse_log(cls, text: str) -> ParsedLog:
        log = LogReader()
        log.step(command="mm-hello --copy data/input.txt out.txt", output=text.strip())
        return log.parsed()
