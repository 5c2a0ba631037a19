#!/usr/bin/env bash
# Seeds docs/ledger-cli.md (the format and CLI spec), examples/household.ledger (a seeded valid
# ledger: comments, tabs, elided amounts, account names with spaces) and examples/household.balance,
# its expected `balance` output. tools/ is empty: the agent writes tools/ledger.py.
set -euo pipefail
mkdir -p docs examples tools
cat > docs/ledger-cli.md <<'MD'
# ledger.py — specification

## File format

- Blank lines are ignored, and so is every line whose first non-blank character is `;` or `#`.
- A transaction starts with a header line at column 0: a date `YYYY-MM-DD` (a real calendar date),
  then optional whitespace and a description.
- Its postings follow, each on a line indented by spaces and/or tabs: an account name, then at
  least two spaces or a tab, then an amount. Account names are `:`-separated and may contain single
  spaces (`expenses:food:eating out`).
- An amount is an optional `-`, digits, and optionally `.` with one or two decimals (`42`, `-3.5`,
  `1200.75`). There are no currency symbols and no thousands separators.
- One posting per transaction may leave out the amount: it takes the amount that makes the
  transaction balance.
- Every transaction has at least two postings and its amounts sum to exactly zero.

## Commands

`python3 tools/ledger.py balance FILE [--depth N]`
: Prints one line per account that appears in the file, sorted by account name:
  `<account>\t<balance>`, the balance with exactly two decimals (`-42.10`). With `--depth N`,
  account names are cut to their first N components and the balances of accounts that end up with
  the same name are added up.

`python3 tools/ledger.py validate FILE`
: Prints `OK <number of transactions> transactions` when the file is valid.

## Errors and exit codes

- Every problem in the file is reported on stderr as `line <N>: <message>`, N being the 1-based line
  of the offending line (for an unbalanced transaction, or one with two amounts left out or fewer
  than two postings: its header line). Both commands then exit with status 1 and print nothing on
  stdout.
- A file that cannot be read, or a bad command line: exit status 2 and a message on stderr.
- Success: exit status 0.
MD
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from decimal import Decimal
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
accounts = ["assets:bank:checking", "assets:bank:joint account", "assets:cash", "expenses:food:groceries",
            "expenses:food:eating out", "expenses:rent", "expenses:transport", "income:salary",
            "liabilities:credit card"]
lines, totals = [f"; household ledger {rng.randint(2019, 2024)}", ""], {}
for n in range(rng.randint(6, 10)):
    lines.append(f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.choice(['Shop', 'Rent', 'Pay', 'Bus', 'Dinner'])} {n}")
    debits = rng.sample(accounts, rng.randint(2, 3))
    amounts = [Decimal(rng.randint(-9000, 9000)) / 100 for _ in debits[:-1]]
    amounts.append(-sum(amounts))
    elide = rng.random() < 0.5
    for i, (acc, amt) in enumerate(zip(debits, amounts)):
        totals[acc] = totals.get(acc, Decimal(0)) + amt
        sep = rng.choice(["  ", "    ", "\t"])
        indent = rng.choice(["  ", "    ", "\t"])
        shown = "" if elide and i == len(debits) - 1 else f"{sep}{amt}"
        lines.append(f"{indent}{acc}{shown}")
    if rng.random() < 0.3:
        lines.append("# reconciled")
    lines.append("")
Path("examples/household.ledger").write_text("\n".join(lines))
Path("examples/household.balance").write_text("".join(f"{a}\t{totals[a]:.2f}\n" for a in sorted(totals)))
PY
