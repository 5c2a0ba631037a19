"""docs/cli.md is generated from the CLI; a stale reference fails here (regenerate with the script)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_cli_reference_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr


def _commands(group, prefix=()):  # noqa: ANN001, ANN202 - click objects
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*prefix, name)) if hasattr(command, "commands") else [((*prefix, name), command)]


def test_every_option_of_every_command_has_help_text():
    import typer.main

    from matchmeter.cli import app

    missing = [f"{' '.join(path)} {param.opts[0]}" for path, command in _commands(typer.main.get_command(app))
               for param in command.params if param.param_type_name == "option" and not getattr(param, "help", None)]
    assert missing == []


def test_version_flag_prints_the_package_version():
    from matchmeter import __version__

    proc = subprocess.run([sys.executable, "-m", "matchmeter.cli", "--version"], capture_output=True, text=True,
                          timeout=120)
    assert (proc.returncode, proc.stdout) == (0, f"matchmeter {__version__}\n")


def test_tasks_list_json_and_the_table_never_cut_ids_when_piped():
    import json

    listed = subprocess.run([sys.executable, "-m", "matchmeter.cli", "tasks", "list", "--json"], capture_output=True,
                            text=True, timeout=120)
    ids = [t["id"] for t in json.loads(listed.stdout)]
    assert len(ids) == 120
    assert "ab-test-ztest" in ids
    table = subprocess.run([sys.executable, "-m", "matchmeter.cli", "tasks", "list"], capture_output=True, text=True,
                           timeout=120, env={**__import__("os").environ, "COLUMNS": "80"})
    cells = {line.split("│")[1].strip() for line in table.stdout.splitlines() if line.count("│") > 2}
    assert set(ids) <= cells
