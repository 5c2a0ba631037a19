"""The verifier's hidden ledgers for a seed (stdlib only): verify.py runs the agent's tool on them, and the trap
probes (checks/trap-*.py) read them to show each seed plants every trap task.toml lists.

Valid ledgers always hold a posting without an amount, a tab between account and amount, account names with a
space, two accounts that merge under --depth 1 and 2, and an indented comment inside a transaction. The broken
ones always hold an unbalanced transaction of several postings, an amount with three decimals and one with
another bad shape, a date of the right shape that is no calendar date, two elided amounts, an orphan posting
and a one-posting transaction."""

import random
from decimal import Decimal

ACCOUNTS = ["assets:bank:checking", "assets:bank:joint account", "assets:cash", "expenses:food:groceries",
            "expenses:food:eating out", "expenses:rent", "expenses:travel:rail", "income:salary",
            "income:gifts", "liabilities:credit card"]
# Broken ledgers, one fault (or None: a valid transaction) per transaction.
FAULT_SETS = [("unbalanced", "bad_amount_decimals", None, "two_elided"), ("orphan", None, "one_posting", "bad_amount"),
              (None, "bad_date", "unbalanced")]
BAD_DATES = ["2023-02-29", "2024-02-30", "2024-04-31", "2024-13-05", "2024-00-10", "2024-06-31"]


class Ledger:
    """text, expected balances, error lines allowed and required, and what was planted (for the probes)."""

    def __init__(self, text, totals, allowed, required, planted):
        self.text, self.totals, self.allowed, self.required, self.planted = text, totals, allowed, required, planted


def ledger(rng, n_txns, faults=()):
    lines, totals, required, allowed, planted = ["# generated", ""], {}, set(), set(), set()
    valid = not faults
    if "orphan" in faults:  # a posting before any transaction header
        lines.insert(1, "  assets:cash  5.00")
        required.add(2)
    plant_at = rng.randrange(n_txns) if valid else -1  # the transaction holding the named format cases
    comment_at = rng.randrange(1, n_txns) if valid else -1  # an indented comment after the transaction before it
    for n in range(n_txns):
        fault = faults[n] if n < len(faults) else None
        if n == comment_at:
            lines.append(rng.choice(["   ; indented comment", "\t# reconciled"]))
            planted.add("indented-comment")
        elif rng.random() < 0.3:
            lines.append(rng.choice(["; note", "   ; indented comment", "#tag"]))
        date = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if fault == "bad_date":
            date = rng.choice(BAD_DATES)
        lines.append(f"{date}{rng.choice([' ', '  ', chr(9)])}Entry {n}")
        header = len(lines)
        accs = rng.sample(ACCOUNTS, rng.randint(2, 4))
        if n == plant_at:  # two accounts that merge under --depth, both with a space or a shared prefix
            accs = ["assets:bank:joint account", "assets:bank:checking"] + [a for a in accs if not a.startswith("assets:bank")][:2]
        amounts = [Decimal(rng.randint(-20000, 20000)) / 100 or Decimal("1.5") for _ in accs[:-1]]
        amounts.append(-sum(amounts) or Decimal("2"))
        if amounts[-1] == 2:
            amounts[0] -= 2
        elide = fault is None and (n == plant_at or rng.random() < 0.5)
        for i, (acc, amt) in enumerate(zip(accs, amounts)):
            shown = f"{chr(9) if n == plant_at and i == 0 else rng.choice(['  ', '   ', chr(9)])}{amt}"
            if elide and i == len(accs) - 1 or fault == "two_elided" and i < 2:
                shown = ""
            if fault == "unbalanced" and i == 0:
                shown = f"  {amt + Decimal('0.01')}"
            if fault == "bad_amount_decimals" and i == 0:
                shown = f"  {rng.randint(1, 99)}.{rng.randint(100, 999)}"
            if fault == "bad_amount" and i == 0:
                shown = rng.choice(["  1,200.00", "  $40", "  4O.00", "  12.5.0"])
            lines.append(f"{rng.choice(['  ', chr(9), '    '])}{acc}{shown}")
            if fault in ("bad_amount", "bad_amount_decimals") and i == 0:
                required.add(len(lines))
                allowed.add(header)  # cascading 'does not balance' on the header is tolerated
            elif fault == "bad_date":
                allowed.add(len(lines))  # its postings may be reported as outside a transaction
            elif fault is None:
                totals[acc] = totals.get(acc, Decimal(0)) + amt
        if fault in ("unbalanced", "two_elided", "one_posting", "bad_date"):
            required.add(header)
        if fault == "one_posting":
            del lines[header + 1:]
            lines.append(f"  {accs[0]}  {amounts[0]}")
        if n == plant_at:
            planted |= {"elided-amount", "tab-separator", "account-spaces", "depth-merge"}
        lines.append("")
    planted |= {f for f in faults if f}
    return Ledger("\n".join(lines) + "\n", totals, required | allowed, required, planted)


def hidden(seed):
    """(valid ledgers, broken ledgers) the verifier uses for this seed."""
    rng = random.Random(seed * 7919 + 17)
    valid = [ledger(rng, rng.randint(6, 12)) for _ in range(2)]
    broken = [ledger(rng, len(f) + rng.randint(1, 3), f) for f in FAULT_SETS]
    return valid, broken
