"""Every hidden valid ledger has an account name with a space, followed by its amount."""
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

ok = "may contain single" in spec and all(
    any(re.match(r"[ \t]+[a-z]+(?::[a-z]+)* [a-z]+(?::[a-z ]+)*(?:\t|  )-?\d", ln) for ln in v.text.splitlines()) for v in valid)
sys.exit(0 if ok else print("a hidden valid ledger has no account with a space followed by an amount") or 1)
