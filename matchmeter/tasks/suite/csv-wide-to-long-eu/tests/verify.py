"""csv-wide-to-long-eu verifier: the Latin-1 ';' decimal-comma wide table as UTF-8 long rows, sorted."""

import csv
import io

from verifylib import grade, pristine, read

raw = (pristine() / "data" / "rainfall.csv").read_bytes().decode("latin-1")
table = [line.split(";") for line in raw.splitlines() if line]
months = table[0][2:]
expected = []
for sid, name, *cells in table[1:]:
    for month, cell in zip(months, cells):
        if cell.strip() not in ("", "-"):
            expected.append((sid, name, month, float(cell.replace(",", "."))))
expected.sort(key=lambda r: (int(r[0]), r[2]))
names = {r[0]: r[1] for r in expected}


def rows():
    data = read("data/rainfall_long.csv", "b").decode("utf-8")
    parsed = list(csv.reader(io.StringIO(data)))
    return parsed[0], [r for r in parsed[1:] if r]


def header():
    return rows()[0] == ["station_id", "station_name", "month", "mm"]


def key(r):
    return (r[0].strip(), r[2].strip())


def values():
    want = {(r[0], r[2]): r[3] for r in expected}
    got = rows()[1]
    hits = 0
    for r in got:
        try:
            hits += key(r) in want and abs(float(r[3]) - want[key(r)]) < 1e-6
        except ValueError:
            pass
    return hits / max(len(want), len(got))


def utf8_names():
    got = rows()[1]
    return bool(got) and all(r[1] == names.get(r[0].strip()) for r in got)


def ordered():
    return [key(r) for r in rows()[1]] == [(r[0], r[2]) for r in expected]


def traps():
    """The named traps (task.toml) all handled: every name as UTF-8 right, no row for an empty or '-' cell,
    every mm a plain number with a dot. A sloppy answer fails one and is paid nothing."""
    try:
        got = rows()[1]
    except Exception:  # noqa: BLE001 - no readable output handles no trap
        return False
    want = {(r[0], r[2]) for r in expected}
    for r in got:
        if len(r) != 4 or key(r) not in want or "," in r[3]:
            return False
        try:
            float(r[3])
        except ValueError:
            return False
    return utf8_names()


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"header": 0.1, "readings": 0.5, "station_names_utf8": 0.2, "sorted": 0.2},
      {"header": gated(header), "readings": gated(values), "station_names_utf8": gated(utf8_names), "sorted": gated(ordered)})
