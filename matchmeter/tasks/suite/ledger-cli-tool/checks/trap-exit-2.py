"""The spec's exit status 2 for a file that cannot be read, and hidden ledgers for the tool to be run on."""
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
ok = "cannot be read, or a bad command line: exit status 2" in spec and valid and broken
sys.exit(0 if ok else print("the spec names no exit status 2 for an unreadable file, or no hidden ledgers") or 1)
