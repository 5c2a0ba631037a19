#!/usr/bin/env bash
# Seeds data/<region>.csv sales files (region names with spaces, amounts written as 12.34, 7.5, 40 or
# 0.08, one file with CRLF line ends, one without a final newline; each on every seed),
# expected_output.txt computed here, and a buggy bin/report.sh (word splitting, header line,
# octal/decimal parsing, subshell total, last line dropped, unpadded cents).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
regions = rng.sample(["central", "north east", "south", "west coast", "islands", "mountain west", "delta",
                      "lakeside", "capital area", "far east"], rng.randint(4, 6))
if not any(" " in r for r in regions):  # a region name with a space on every seed (tests/tasks/test_traps.py)
    regions[0] = rng.choice(["north east", "west coast", "mountain west", "capital area", "far east"])
Path("data").mkdir()
crlf, no_newline = rng.sample(regions, 2)
# Every amount format on every seed: the CRLF file holds a 7.5-style amount (a kept \r breaks its one
# digit of cents), another file a whole amount and one below ten cents.
forced = {crlf: [rng.randint(1, 99) * 100 + rng.randint(1, 9) * 10],
          no_newline: [rng.randint(1, 900) * 100, rng.choice([8, 9])]}
totals = {}
for region in regions:
    rows, cents = [], 0
    for k in range(rng.randint(4, 12)):
        value = rng.choice([rng.randint(1, 99999), rng.randint(1, 99) * 10, rng.randint(1, 900) * 100, rng.randint(1, 9)])
        if k < len(forced.get(region, [])):
            value = forced[region][k]
        cents += value
        if value % 100 == 0:
            text = str(value // 100)
        elif value % 10 == 0:
            text = f"{value // 100}.{(value // 10) % 10}"
        else:
            text = f"{value // 100}.{value % 100:02d}"
        rows.append(f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},{rng.choice(['acme', 'globex', 'initech', 'umbrella', 'hooli'])},{text}")
    totals[region] = cents
    eol = "\r\n" if region == crlf else "\n"
    text = eol.join(["date,customer,amount", *rows]) + ("" if region == no_newline else eol)
    Path("data", f"{region}.csv").write_bytes(text.encode())
out = [f"{r}: {totals[r] // 100}.{totals[r] % 100:02d}" for r in sorted(regions)]
grand = sum(totals.values())
out.append(f"TOTAL: {grand // 100}.{grand % 100:02d}")
Path("expected_output.txt").write_text("\n".join(out) + "\n")
PY
mkdir -p bin
cat > bin/report.sh <<'SH'
#!/usr/bin/env bash
# Per-region sales totals: one "<region>: <amount>" line per data/*.csv, sorted, then the grand total.
total=0
for f in $(ls data/*.csv); do
    region=$(basename $f .csv)
    sum=0
    while IFS=, read -r date customer amount; do
        cents=$(echo $amount | tr -d .)
        sum=$((sum + cents))
    done < $f
    printf '%s: %d.%02d\n' $region $((sum / 100)) $((sum % 100))
    total=$((total + sum))
done | sort
echo "TOTAL: $((total / 100)).$((total % 100))"
SH
chmod +x bin/report.sh
