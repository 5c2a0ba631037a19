"""remote-argv verifier: the last `record` call came through bin/remote with exactly one argument, the payload."""

from verifylib import HERE, grade, read

payload = (HERE / "payload.txt").read_bytes()


def fields():
    """[via, argc, arg...] from remote/argv.log."""
    return read("remote/argv.log", "b").split(b"\0")[:-1]


def via_remote():
    return fields()[0] == b"1"


def one_argument():
    return fields()[1] == b"1"


def argument_exact():
    return fields()[2:] == [payload]


grade({"via_remote": 0.2, "one_argument": 0.2, "argument_exact": 0.6},
      {"via_remote": via_remote, "one_argument": one_argument, "argument_exact": argument_exact})
