"""A hidden broken ledger has a header date of the right shape that is no calendar date."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ledgers import hidden  # noqa: E402  the verifier's own hidden ledgers for this seed

spec = " ".join(Path("docs/ledger-cli.md").read_text().split()) if Path("docs/ledger-cli.md").is_file() else ""
seed = os.environ.get("MM_SEED", "")
if not spec or not seed.isdigit():
    sys.exit(print("no seeded workspace (docs/ledger-cli.md, MM_SEED)") or 1)
valid, broken = hidden(int(seed))
import datetime  # noqa: E402
import re  # noqa: E402


def bad(line):
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})\s", line)
    try:
        return m is not None and not datetime.date(*map(int, m.groups()))
    except ValueError:
        return True


ok = "a real calendar date" in spec and any(bad(ln) for b in broken for ln in b.text.splitlines())
sys.exit(0 if ok else print("no hidden ledger has a YYYY-MM-DD header that is no calendar date") or 1)
