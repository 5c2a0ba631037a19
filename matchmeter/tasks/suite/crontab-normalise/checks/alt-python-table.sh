# why: a table-driven Python normaliser (expand each field to its value set to validate, then rewrite)
python3 - <<'PY'
import re
MAC = {"hourly": "0 * * * *", "daily": "0 0 * * *", "midnight": "0 0 * * *", "weekly": "0 0 * * 0",
       "monthly": "0 0 1 * *", "yearly": "0 0 1 1 *", "annually": "0 0 1 1 *"}
NAMES = [dict(), dict(), dict(),
         {n: str(i + 1) for i, n in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())},
         {n: str(i) for i, n in enumerate("sun mon tue wed thu fri sat".split())}]
LIMITS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]

def norm_field(text, i):
    lo, hi = LIMITS[i]
    parts = []
    for part in text.split(","):
        rng, _, step = part.partition("/")
        if _ and not (step.isdigit() and int(step) > 0):
            raise ValueError
        if rng == "*":
            nums = None
        else:
            ends = [NAMES[i].get(x.lower(), x) for x in rng.split("-")]
            if len(ends) > 2 or not all(e.isdigit() and lo <= int(e) <= hi for e in ends):
                raise ValueError
            if len(ends) == 2 and int(ends[0]) > int(ends[1]):
                raise ValueError
            nums = [str(int(e)) for e in ends]
            if i == 4 and nums == ["7"]:
                nums = ["0"]
        parts.append(("*" if nums is None else "-".join(nums)) + (f"/{int(step)}" if _ else ""))
    return ",".join(parts)

clean, errors = [], []
for n, line in enumerate(open("crontab.txt").read().splitlines(), 1):
    s = line.strip()
    if not s or s.startswith("#"):
        continue
    if re.match(r"[A-Za-z_]\w*=", s):
        clean.append(s)
        continue
    try:
        if s.startswith("@"):
            name, cmd = s[1:].split(None, 1)
            clean.append(MAC[name.lower()] + " " + cmd.strip())
            continue
        tokens = s.split(None, 5)
        if len(tokens) < 6:
            raise ValueError
        clean.append(" ".join(norm_field(t, i) for i, t in enumerate(tokens[:5])) + " " + tokens[5].strip())
    except (ValueError, KeyError):
        errors.append(n)
open("crontab.clean", "w").write("".join(x + "\n" for x in clean))
open("crontab.errors", "w").write("".join(f"{x}\n" for x in errors))
PY
