"""The seeded part of a quoting payload (the runner places it beside a quoting task's verifier).

payload.txt holds the payload as the instruction shows it, with the marker `{ticket}` where the trial's
ticket id goes. The id is a function of MM_SEED alone, so setup.sh (which writes it to the workspace file
`TICKET` for the agent) and the verifier (which never trusts that file) agree on it, and a command
memorised on one seed writes the wrong bytes on another.
"""

import hashlib
import sys

MARKER = "{ticket}"


def ticket(seed):
    return "T" + str(int(hashlib.sha256(f"quoting-ticket-{seed}".encode()).hexdigest(), 16) % 90000 + 10000)


def payload(path, seed):
    """The payload bytes this seed expects: payload.txt with the marker replaced by the seed's ticket id."""
    return path.read_bytes().replace(MARKER.encode(), ticket(seed).encode())


if __name__ == "__main__":  # setup.sh: `python3 quoting.py SEED` prints the ticket id
    print(ticket(int(sys.argv[1])))
