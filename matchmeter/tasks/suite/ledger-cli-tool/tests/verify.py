"""ledger-cli-tool verifier: runs tools/ledger.py on hidden seeded ledgers (valid and broken) and checks
stdout, the reported line numbers and exit codes against the spec in docs/ledger-cli.md."""

import random
import re
import sys
from decimal import Decimal
from pathlib import Path

from verifylib import APP, agent_dir, grade, run_agent_code, seed

rng = random.Random(seed() * 7919 + 17)
ACCOUNTS = ["assets:bank:checking", "assets:bank:joint account", "assets:cash", "expenses:food:groceries",
            "expenses:food:eating out", "expenses:rent", "expenses:travel:rail", "income:salary",
            "income:gifts", "liabilities:credit card"]
WORK = agent_dir("mm-ledger-")  # the agent's tool reads the ledgers written here


def ledger(n_txns, faults=()):
    """(text, balances, header count, error lines allowed, error lines required)."""
    lines, totals, required, allowed = ["# generated", ""], {}, set(), set()
    if "orphan" in faults:  # a posting before any transaction header
        lines.insert(1, "  assets:cash  5.00")
        required.add(2)
    for n in range(n_txns):
        fault = faults[n] if n < len(faults) else None
        if rng.random() < 0.3:
            lines.append(rng.choice(["; note", "   ; indented comment", "#tag"]))
        lines.append(f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}{rng.choice([' ', '  ', chr(9)])}Entry {n}")
        header = len(lines)
        accs = rng.sample(ACCOUNTS, rng.randint(2, 4))
        amounts = [Decimal(rng.randint(-20000, 20000)) / 100 or Decimal("1.5") for _ in accs[:-1]]
        amounts.append(-sum(amounts) or Decimal("2"))
        if amounts[-1] == 2:
            amounts[0] -= 2
        elide = fault is None and rng.random() < 0.5
        for i, (acc, amt) in enumerate(zip(accs, amounts)):
            shown = f"{rng.choice(['  ', '   ', chr(9)])}{amt}"
            if elide and i == len(accs) - 1 or fault == "two_elided" and i < 2:
                shown = ""
            if fault == "unbalanced" and i == 0:
                shown = f"  {amt + Decimal('0.01')}"
            if fault == "bad_amount" and i == 0:
                shown = rng.choice(["  12.345", "  1,200.00", "  $40", "  4O.00"])
            lines.append(f"{rng.choice(['  ', chr(9), '    '])}{acc}{shown}")
            if fault == "bad_amount" and i == 0:
                required.add(len(lines))
                allowed.add(header)  # cascading 'does not balance' on the header is tolerated
            elif fault is None:
                totals[acc] = totals.get(acc, Decimal(0)) + amt
        if fault in ("unbalanced", "two_elided", "one_posting"):
            required.add(header)
        if fault == "one_posting":
            del lines[header + 1:]
            lines.append(f"  {accs[0]}  {amounts[0]}")
        lines.append("")
    return "\n".join(lines) + "\n", totals, required | allowed, required


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


valid = [ledger(rng.randint(6, 12)) for _ in range(2)]
valid_files = [write(f"ok{i}.ledger", v[0]) for i, v in enumerate(valid)]
fault_sets = [("unbalanced", "bad_amount", None, "two_elided"), ("orphan", None, "one_posting"), (None, None, "unbalanced")]
broken = [ledger(len(f) + rng.randint(1, 3), f) for f in fault_sets]
broken_files = [write(f"bad{i}.ledger", b[0]) for i, b in enumerate(broken)]


def balance():
    ok = 0
    for path, (_, totals, _, _) in zip(valid_files, valid):
        code, out, _ = run("balance", path)
        ok += code == 0 and list(parse_balance(out).items()) == sorted(totals.items())
    return ok / len(valid)


def depth():
    ok = 0
    for path, (_, totals, _, _) in zip(valid_files, valid):
        for n in (1, 2):
            code, out, _ = run("balance", path, "--depth", str(n))
            ok += code == 0 and list(parse_balance(out).items()) == sorted(cut(totals, n).items())
    return ok / (2 * len(valid))


def validate_ok():
    ok = 0
    for path, (text, *_rest) in zip(valid_files, valid):
        code, out, _ = run("validate", path)
        n = sum(1 for line in text.splitlines() if re.match(r"\d{4}-", line))
        ok += code == 0 and out.strip() == f"OK {n} transactions"
    return ok / len(valid)


def errors():
    score = 0.0
    for path, (_, _, allowed, required) in zip(broken_files, broken):
        code, out, err = run("validate", path)
        reported = {int(n) for n in re.findall(r"^line (\d+):", err, re.M)}
        score += code == 1 and out.strip() == "" and required <= reported <= allowed
    return score / len(broken)


def exit_codes():
    if run("--help")[0] != 0:  # no tool (python3 itself exits 2 on a missing script): nothing to credit
        return 0.0
    checks = [run("balance", broken_files[0])[0] == 1 and run("balance", broken_files[0])[1].strip() == "",
              run("validate", str(WORK / "missing.ledger"))[0] == 2,
              run()[0] == 2,
              run("balance", valid_files[0], "--depth", "x")[0] == 2]
    return sum(checks) / len(checks)


grade({"balance": 0.3, "balance_depth": 0.15, "validate_ok": 0.1, "error_lines": 0.3, "exit_codes": 0.15},
      {"balance": balance, "balance_depth": depth, "validate_ok": validate_ok, "error_lines": errors, "exit_codes": exit_codes})
