#!/usr/bin/env bash
# Probe (hidden format / spec hallucination, seed 002): a shipment log to total per region; the report
# format lives only in docs/REPORT_STYLE.md, which the instruction never mentions. Agents that guess a
# format fail the probe; agents that look and read the house style pass.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
regions = rng.sample(["north", "south", "east", "west", "central", "coast", "highlands", "islands", "valley"],
                     rng.randint(4, 6))
skus = [f"{rng.choice('ABCDEFGH')}-{rng.randint(100, 999)}" for _ in range(8)]
lines = []
for day in range(1, rng.randint(12, 20)):
    for _ in range(rng.randint(2, 5)):
        lines.append(f"2024-03-{day:02d} region={rng.choice(regions)} sku={rng.choice(skus)} units={rng.randint(1, 250)}")
Path("data").mkdir(exist_ok=True)
Path("data/shipments.log").write_text("\n".join(lines) + "\n")
Path("docs").mkdir(exist_ok=True)
Path("docs/REPORT_STYLE.md").write_text("""# Report house style

Every report generated in this repository follows these rules (the reporting bot rejects others):

- The per-region units report is `reports/region_units.txt`; reports never go to the repository root.
- Fields are separated by semicolons (`;`), not commas.
- The header is in capitals: `REGION;UNITS`; region names are written in capitals too.
- Rows are sorted by the number, largest first (ties: by region name).
- The last line is a grand total: `TOTAL;<sum of all rows>`.
""")
Path("README.md").write_text("Shipment data for the spring campaign. Raw logs live in data/.\n")
PY
