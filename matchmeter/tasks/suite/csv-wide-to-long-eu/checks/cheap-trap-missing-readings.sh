# why: ignores the "-" cells (only empty ones skipped), does the rest well
python3 - <<'PY'
import csv
with open("data/rainfall.csv", encoding="latin-1", newline="") as f:
    rows = list(csv.reader(f, delimiter=";"))
months = rows[0][2:]
out = []
for sid, name, *cells in rows[1:]:
    for month, cell in zip(months, cells):
        if cell.strip() != "":
            out.append((int(sid), name, month, cell.replace(",", ".")))
out.sort(key=lambda r: (r[0], r[2]))
with open("data/rainfall_long.csv", "w", encoding="utf-8", newline="") as f:
    w = csv.writer(f)
    w.writerow(["station_id", "station_name", "month", "mm"])
    w.writerows(out)
PY
