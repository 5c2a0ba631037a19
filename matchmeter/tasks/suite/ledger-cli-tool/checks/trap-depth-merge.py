"""Every hidden valid ledger has two accounts that merge under --depth 1 and under --depth 2."""
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
def merges(totals, depth):
    cut = [":".join(a.split(":")[:depth]) for a in totals]
    return len(cut) > len(set(cut))


ok = "are added up" in spec and all(merges(v.totals, 1) and merges(v.totals, 2) for v in valid)
sys.exit(0 if ok else print("a hidden valid ledger has no accounts merging under --depth 1 and 2") or 1)
