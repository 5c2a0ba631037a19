# why: ignores the dropped-out cells (a blank read as 0), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, os, statistics
cols = ["temperature_c", "humidity_pct", "pressure_hpa", "wind_ms"]
rows = list(csv.DictReader(open("data/station.csv")))
v = {c: [float(r[c] or 0) for r in rows] for c in cols}
os.makedirs("answer", exist_ok=True)
with open("answer/correlations.csv", "w") as f:
    f.write("," + ",".join(cols) + "\n")
    for a in cols:
        f.write(a + "," + ",".join(f"{statistics.correlation(v[a], v[b]):.3f}" for b in cols) + "\n")
EOF
