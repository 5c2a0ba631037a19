"""A hidden broken ledger has an unbalanced transaction of two or more postings (reported on its header)."""
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
from decimal import Decimal  # noqa: E402


def unbalanced(text):
    blocks, cur = [], None
    for ln in text.splitlines():
        if re.match(r"\d{4}-", ln):
            cur = []
            blocks.append(cur)
        elif cur is not None and ln[:1] in (" ", "\t") and ln.strip()[:1] not in (";", "#", ""):
            cur.append(re.split(r"\t+| {2,}", ln.strip(), maxsplit=1)[1:])
    return [b for b in blocks if len(b) >= 2 and all(b) and all(re.fullmatch(r"-?\d+(\.\d\d?)?", x[0]) for x in b)
            and sum(Decimal(x[0]) for x in b) != 0]


ok = "its header line" in spec and any(unbalanced(b.text) for b in broken)
sys.exit(0 if ok else print("no hidden ledger has an unbalanced transaction of two or more postings") or 1)
