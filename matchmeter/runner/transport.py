"""How a command string crosses into the sandbox (seed 001, SPEC §7).

The sandbox always runs `bash -c X` with X passed as one exact argv element. The transport decides X:

- raw:     X = R                              (argv exact; the reference path)
- nested:  X = 'bash -c "' + R + '"'          (one extra unescaped double-quoted parser: R pasted literally)
- escaped: X = 'bash -c ' + shlex.quote(R)    (R quoted at the interpolation point; must equal raw)
"""

from __future__ import annotations

import shlex

from matchmeter.schema import Contract, Transport

DISCLOSED_NOTE = (
    'Your command R will be placed inside a double-quoted shell string, exactly as: bash -c "R". '
    "Write R so that it survives that extra layer of double-quote parsing."
)


def wrap_command(command: str, transport: Transport) -> str:
    """Return the string the sandbox's `bash -c` receives for an agent command."""
    if transport == "raw":
        return command
    if transport == "nested":
        return f'bash -c "{command}"'
    if transport == "escaped":
        return f"bash -c {shlex.quote(command)}"
    raise ValueError(f"unknown transport {transport!r}")


def contract_note(contract: Contract) -> str:
    """Text added to the agent's instructions under the generation contract ('' for raw)."""
    return DISCLOSED_NOTE if contract == "disclosed" else ""
