"""Every hidden valid ledger has an indented comment line after a transaction's postings."""
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
ok = "first non-blank character" in spec and all(
    any(ln[:1] in (" ", "\t") and ln.strip()[:1] in (";", "#") for ln in v.text.splitlines()) for v in valid)
sys.exit(0 if ok else print("a hidden valid ledger has no indented comment") or 1)
