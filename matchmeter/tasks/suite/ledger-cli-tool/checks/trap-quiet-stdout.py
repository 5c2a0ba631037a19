"""A hidden broken ledger that holds valid transactions too (balance must still print nothing)."""
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
ok = "print nothing on stdout" in spec and any(b.totals and b.required for b in broken)
sys.exit(0 if ok else print("no hidden broken ledger has a valid transaction beside its faults") or 1)
