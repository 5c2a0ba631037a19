"""Every hidden valid ledger has a posting without an amount (the spec: it takes the balancing amount)."""
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
ok = "may leave out the amount" in spec and all(
    any(ln.startswith((" ", "\t")) and ln.strip() and ln.strip()[0] not in ";#" and len(ln.strip().split("  ")) == 1
        and "\t" not in ln.strip() for ln in v.text.splitlines()) and "elided-amount" in v.planted for v in valid)
sys.exit(0 if ok else print("a hidden valid ledger has no posting without an amount") or 1)
