"""A correct ledger tool that skips one named case: `python3 sloppy_ledger.py NAME` installs a copy of this file as
tools/ledger.py with SKIP set to NAME (the cheap-trap-*.sh shots share it); that copy is the tool."""
import argparse
import datetime
import re
import sys
from decimal import Decimal
from pathlib import Path

SKIP = None  # the installed copy names the case it skips here
AMOUNT = re.compile(r"-?\d+(?:\.\d+)?" if SKIP == "bad-amount" else r"-?\d+(?:\.\d{1,2})?")


def parse(path):
    txns, errors, cur = [], [], None
    with open(path, encoding="utf-8") as fh:
        for no, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            text = line.strip()
            if not text or (line[0] if SKIP == "indented-comment" else text[0]) in ";#":
                continue
            if not line[0].isspace():
                m = re.match(r"(\d{4})-(\d{2})-(\d{2})(?:\s+(.*))?$", line)
                ok = m is not None
                if ok and SKIP != "calendar-date":
                    try:
                        datetime.date(*map(int, m.groups()[:3]))
                    except ValueError:
                        ok = False
                if not ok:
                    errors.append((no, "bad transaction header"))
                    cur = None
                    continue
                cur = [no, [], False, no]
                txns.append(cur)
                continue
            if cur is None:
                errors.append((no, "posting outside a transaction"))
                continue
            sep = {"account-spaces": r"\s+", "tab-separator": r" {2,}"}.get(SKIP, r"\t+| {2,}")
            parts = re.split(sep, text, maxsplit=1)
            account, amount = parts[0].strip(), parts[1].strip() if len(parts) > 1 else ""
            cur[3] = no
            if amount and not AMOUNT.fullmatch(amount):
                errors.append((no, f"bad amount {amount!r}"))
                cur[2] = True
                continue
            if not amount and SKIP == "elided-amount":
                amount = "0"
            cur[1].append((account, Decimal(amount) if amount else None))
    for head, posts, broken, last in txns:
        at = last if SKIP == "header-line" else head
        missing = [p for p in posts if p[1] is None]
        total = sum(p[1] for p in posts if p[1] is not None)
        if broken:
            continue
        if len(posts) < 2:
            errors.append((at, "a transaction needs two postings"))
        elif len(missing) > 1:
            errors.append((at, "more than one posting without an amount"))
        elif not missing and total != 0:
            errors.append((at, f"transaction does not balance (off by {total})"))
    return [(t[0], t[1]) for t in txns], sorted(errors)


def balances(txns, depth):
    per = {}
    for _, posts in txns:
        known = sum(p[1] for p in posts if p[1] is not None)
        for account, amount in posts:
            per[account] = per.get(account, Decimal(0)) + (-known if amount is None else amount)
    if SKIP == "depth-merge" and depth:  # names cut, but every original account keeps its own line
        return sorted((":".join(a.split(":")[:depth]), v) for a, v in per.items())
    merged = {}
    for account, amount in per.items():
        key = ":".join(account.split(":")[:depth]) if depth else account
        merged[key] = merged.get(key, Decimal(0)) + amount
    return sorted(merged.items())


def main():
    ap = argparse.ArgumentParser(prog="ledger.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("balance")
    b.add_argument("file")
    b.add_argument("--depth", type=int)
    sub.add_parser("validate").add_argument("file")
    args = ap.parse_args()
    try:
        txns, errors = parse(args.file)
    except OSError as exc:
        print(f"ledger.py: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1 if SKIP == "exit-2" else 2
    if args.cmd == "balance" and (not errors or SKIP == "quiet-stdout"):
        for account, amount in balances(txns, getattr(args, "depth", None)):
            print(f"{account}\t{amount.quantize(Decimal('0.01'))}")
    for no, msg in errors:
        print(f"line {no}: {msg}", file=sys.stderr)
    if errors:
        return 1
    if args.cmd == "validate":
        print(f"OK {len(txns)} transactions")
    return 0


if __name__ == "__main__":
    if SKIP is None:
        Path("tools").mkdir(exist_ok=True)
        Path("tools/ledger.py").write_text(Path(__file__).read_text().replace("SKIP = None  #", f"SKIP = {sys.argv[1]!r}  #", 1))
    else:
        sys.exit(main())
