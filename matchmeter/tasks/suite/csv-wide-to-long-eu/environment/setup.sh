#!/usr/bin/env bash
# Seeds data/rainfall.csv as a European spreadsheet export: Latin-1 encoded, ';'-separated, decimal
# commas, one column per month (seeded range), '-' or empty for missing readings, CRLF line ends.
# Every seed plants the traps task.toml lists: accented (non-ASCII) names, every reading with a decimal
# comma, and both an empty and a '-' missing cell (two cells forced missing, one of each kind).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
names = ["Göttingen", "Besançon", "Málaga", "Zürich Flughafen", "Tromsø", "Kraków", "Genève", "Århus", "Lünen", "Niño Alto"]
year = rng.randint(2019, 2023)
start = rng.randint(1, 6)
months = [f"{year}-{m:02d}" for m in range(start, start + rng.randint(6, 7))]
lines = [";".join(["station_id", "station_name"] + months)]
ids = rng.sample(range(10000, 99999), 10)
stations = sorted(zip(ids, rng.sample(names, 10)))[: rng.randint(5, 8)]
rng.shuffle(stations)
for sid, name in stations:
    cells = []
    for _ in months:
        r = rng.random()
        if r < 0.12:
            cells.append(rng.choice(["", "-"]))
        else:
            cells.append(f"{rng.randint(0, 240)},{rng.randint(0, 9)}")
    if (sid, name) == stations[0]:
        for i, mark in zip(rng.sample(range(len(months)), 2), ["", "-"]):
            cells[i] = mark
    lines.append(";".join([str(sid), name] + cells))
Path("data").mkdir(exist_ok=True)
Path("data/rainfall.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode("latin-1"))
PY
