"""A correct crontab normaliser that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import re
import sys

SKIP = sys.argv[1]
MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
          "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
DAYS = {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())}
RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def field(text, i):
    names, (lo, hi) = (MONTHS if i == 3 else DAYS if i == 4 else {}), RANGES[i]
    out = []
    for part in text.split(","):
        base, slash, step = part.partition("/")
        if slash and not (step.isdigit() and int(step) > 0):
            raise ValueError(part)
        if base != "*":
            ends = base.split("-")
            if SKIP == "unknown-name" and any(e.isalpha() and e.lower() not in names for e in ends):
                out.append(part)
                continue
            # names-any-case: only lower-case names are known, so "MON-FRI" reads as invalid
            ends = [str(names.get(e if SKIP == "names-any-case" else e.lower(), e)) for e in ends]
            if not all(e.isdigit() for e in ends):
                raise ValueError(part)
            if SKIP != "out-of-range" and not all(lo <= int(e) <= hi for e in ends):
                raise ValueError(part)
            if i == 4 and ends == ["7"] and SKIP != "weekday-7":
                ends = ["0"]
            base = "-".join(str(int(e)) for e in ends)
        out.append(base + (slash + step))
    return ",".join(out)


clean, errors = [], []
for n, raw in enumerate(open("crontab.txt").read().splitlines(), start=1):
    s = raw.strip()
    if not s or s.startswith("#"):
        continue
    if re.fullmatch(r"[A-Za-z_]\w*=.*", s):
        if SKIP != "variables":
            clean.append(s)
        continue
    try:
        if s.startswith("@"):
            macro, cmd = s.split(None, 1)
            if SKIP == "macro" or (SKIP == "unknown-name" and macro.lower() not in MACROS):
                clean.append(f"{macro} {cmd.strip()}")
            else:
                clean.append(f"{MACROS[macro.lower()]} {cmd.strip()}")
            continue
        tokens = s.split(None, 5)
        if len(tokens) < 6:
            if SKIP != "field-count":
                raise ValueError(s)
            clean.append(" ".join(s.split()))
            continue
        cmd = " ".join(tokens[5].split()) if SKIP == "command-spacing" else tokens[5].strip()
        fields = [field(t, i) for i, t in enumerate(tokens[:5])]
        if SKIP == "tab-separated":  # squeezes runs of spaces only (sed 's/  */ /g'): a tab stays
            seps = [re.sub(" +", " ", w) for w in re.findall(r"\s+", s)[:5]]
            clean.append("".join(f + w for f, w in zip(fields, seps)) + cmd)
            continue
        clean.append(" ".join(fields) + " " + cmd)
    except (KeyError, ValueError):
        errors.append(str(n))
open("crontab.clean", "w").write("".join(x + "\n" for x in clean))
open("crontab.errors", "w").write("".join(x + "\n" for x in errors))
