"""A hidden broken ledger has an amount with three decimals, and one with another bad shape."""
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
import re  # noqa: E402

amounts = [re.split(r"\t+| {2,}", ln.strip(), maxsplit=1)[1] for b in broken for ln in b.text.splitlines()
           if ln[:1] in (" ", "\t") and re.search(r"\t| {2,}", ln.strip())]
three = [a for a in amounts if re.fullmatch(r"-?\d+\.\d{3,}", a)]
other = [a for a in amounts if not re.fullmatch(r"-?\d+(?:\.\d+)?", a)]
ok = "one or two decimals" in spec and three and other
sys.exit(0 if ok else print("no hidden ledger has an amount with three decimals and another bad amount") or 1)
