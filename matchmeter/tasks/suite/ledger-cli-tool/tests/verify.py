"""ledger-cli-tool verifier: runs tools/ledger.py on hidden seeded ledgers (valid and broken, tests/ledgers.py) and
checks stdout, the reported line numbers and exit codes against the spec in docs/ledger-cli.md.

Strict on the named cases (every seed plants them, task.toml's traps): balance, --depth, the error lines and the
exit codes pay only when all four are right on every ledger (each ledger holds named cases: an elided amount, a
tab separator, accounts with spaces, an indented comment, accounts that merge under --depth; three decimals, a
date that is no calendar date, an unbalanced transaction reported on its header; the exit codes and quiet stdout).
validate's OK line is paid on its own."""

import functools
import re
import sys
from decimal import Decimal

from ledgers import hidden
from verifylib import APP, agent_dir, grade, run_agent_code, seed

WORK = agent_dir("mm-ledger-")  # the agent's tool reads the ledgers written here


def run(*args):
    proc = run_agent_code([sys.executable, "tools/ledger.py", *args], APP, timeout=20)
    return proc.returncode, proc.stdout, proc.stderr


def write(name, text):
    path = WORK / name
    path.write_text(text)
    return str(path)


def parse_balance(out):
    got = {}
    for line in out.splitlines():
        account, amount = line.split("\t")
        assert re.fullmatch(r"-?\d+\.\d{2}", amount), amount
        got[account] = Decimal(amount)
    return got


def cut(totals, depth):
    out = {}
    for acc, amt in totals.items():
        key = ":".join(acc.split(":")[:depth])
        out[key] = out.get(key, Decimal(0)) + amt
    return out


valid, broken = hidden(seed())
valid_files = [write(f"ok{i}.ledger", v.text) for i, v in enumerate(valid)]
broken_files = [write(f"bad{i}.ledger", b.text) for i, b in enumerate(broken)]


@functools.cache  # named_cases() and the subgoal share one run
def balance():
    ok = 0
    for path, v in zip(valid_files, valid):
        code, out, _ = run("balance", path)
        ok += code == 0 and list(parse_balance(out).items()) == sorted(v.totals.items())
    return ok / len(valid)


@functools.cache  # named_cases() and the subgoal share one run
def depth():
    ok = 0
    for path, v in zip(valid_files, valid):
        for n in (1, 2):
            code, out, _ = run("balance", path, "--depth", str(n))
            ok += code == 0 and list(parse_balance(out).items()) == sorted(cut(v.totals, n).items())
    return ok / (2 * len(valid))


def validate_ok():
    ok = 0
    for path, v in zip(valid_files, valid):
        code, out, _ = run("validate", path)
        n = sum(1 for line in v.text.splitlines() if re.match(r"\d{4}-", line))
        ok += code == 0 and out.strip() == f"OK {n} transactions"
    return ok / len(valid)


@functools.cache  # named_cases() and the subgoal share one run
def errors():
    score = 0.0
    for path, b in zip(broken_files, broken):
        code, out, err = run("validate", path)
        reported = {int(n) for n in re.findall(r"^line (\d+):", err, re.M)}
        score += code == 1 and out.strip() == "" and b.required <= reported <= b.allowed
    return score / len(broken)


@functools.cache  # named_cases() and the subgoal share one run
def exit_codes():
    if run("--help")[0] != 0:  # no tool (python3 itself exits 2 on a missing script): nothing to credit
        return 0.0
    checks = [run("balance", broken_files[0])[0] == 1 and run("balance", broken_files[0])[1].strip() == "",
              run("validate", str(WORK / "missing.ledger"))[0] == 2,
              run()[0] == 2,
              run("balance", valid_files[0], "--depth", "x")[0] == 2]
    return sum(checks) / len(checks)


@functools.cache
def named_cases():
    """Every ledger run right: the named cases live in all of them (see tests/ledgers.py)."""
    return balance() == 1 and depth() == 1 and errors() == 1 and exit_codes() == 1


def gated(check):
    return lambda: named_cases() and check()


grade({"balance": 0.3, "balance_depth": 0.15, "validate_ok": 0.1, "error_lines": 0.3, "exit_codes": 0.15},
      {"balance": gated(balance), "balance_depth": gated(depth), "validate_ok": validate_ok, "error_lines": gated(errors),
       "exit_codes": gated(exit_codes)})
