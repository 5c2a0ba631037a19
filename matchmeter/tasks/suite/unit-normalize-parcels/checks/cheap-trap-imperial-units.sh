# why: ignores lb, oz and in (only metric units converted; others read as kg/cm), does the rest well
python3 - <<'PY'
import csv, re
KG = {"kg": 1, "g": 0.001}
CM = {"cm": 1, "mm": 0.1, "m": 100}
def conv(s, table):
    num, unit = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]+)\s*", s).groups()
    return float(num) * table.get(unit.lower(), 1)
with open("data/parcels.csv", newline="") as f, open("data/parcels_metric.csv", "w", newline="") as o:
    w = csv.writer(o)
    w.writerow(["parcel_id", "weight_kg", "length_cm", "oversize"])
    for r in csv.DictReader(f):
        kg, cm = conv(r["weight"], KG), conv(r["length"], CM)
        w.writerow([r["parcel_id"], f"{kg:.3f}", f"{cm:.1f}", "yes" if kg > 20 or cm > 100 else "no"])
PY
