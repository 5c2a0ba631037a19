"""crontab-normalise verifier: crontab.clean and crontab.errors match a reference normaliser run on
the pristine crontab.txt. Job lines pay only when every named case is handled (every line with a macro, a
name, weekday 7, a tab or inner command spacing normalised, every variable kept, every invalid line listed);
variables and the error list pay only when most job lines are right, the untouched source only when all
are: copying variables or leaving the file alone is not the work."""

import re

from verifylib import grade, pristine, read

orig = pristine()
MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
          "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
MONTHS = {m: i for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
DAYS = {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
JOB = re.compile(r"(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*\S)")


def field(text, i):
    names, (lo, hi) = (MONTHS if i == 3 else DAYS if i == 4 else {}), RANGES[i]
    out = []
    for part in text.split(","):
        m = re.fullmatch(r"(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:/(\d+))?", part)
        if not m or (m.group(2) is not None and int(m.group(2)) < 1):
            raise ValueError(part)
        base = m.group(1)
        if base != "*":
            values = [names.get(v.lower(), v) for v in base.split("-")]
            if not all(str(v).isdigit() and lo <= int(v) <= hi for v in values):
                raise ValueError(part)
            values = [int(v) for v in values]
            if len(values) == 2 and values[0] > values[1]:
                raise ValueError(part)
            if i == 4 and values == [7]:
                values = [0]
            base = "-".join(map(str, values))
        out.append(base + (f"/{m.group(2)}" if m.group(2) else ""))
    return ",".join(out)


def named_case(raw):
    """A line showing a case the instruction names: a macro, too few fields, a month/weekday name, weekday 7,
    a tab between fields, or a command with inner spacing."""
    s = raw.strip()
    tokens = s.split(None, 5)
    if s.startswith("@") or len(tokens) < 6:
        return True
    seps = re.findall(r"\s+", s)[:5]
    return (any(c.isalpha() for c in tokens[3] + tokens[4]) or tokens[4] == "7" or any("\t" in w for w in seps)
            or re.search(r"\s\s|\t", tokens[5].strip()) is not None)


def normalise(text):
    clean, errors, named = [], [], []
    for n, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        if VAR.fullmatch(s):
            clean.append(s)
            continue
        try:
            if s.startswith("@"):
                macro, cmd = re.fullmatch(r"(@\S+)\s+(.*\S)", s).groups()
                clean.append(f"{MACROS[macro.lower()]} {cmd}")
            else:
                m = JOB.fullmatch(s)
                clean.append(" ".join(field(m.group(i + 1), i) for i in range(5)) + " " + m.group(6))
            if named_case(raw):
                named.append(clean[-1])
        except (AttributeError, KeyError, ValueError):
            errors.append(str(n))
    return clean, errors, named


want_clean, want_errors, want_named = normalise((orig / "crontab.txt").read_text())
want_jobs = [ln for ln in want_clean if not VAR.fullmatch(ln)]
want_vars = [ln for ln in want_clean if VAR.fullmatch(ln)]


def lines(name):
    return [ln.rstrip() for ln in (read(name) or "").splitlines() if ln.strip()]


def overlap(got, want):
    inter = sum(min(got.count(x), want.count(x)) for x in set(want))
    score = inter / max(len(want), len(got), 1)
    return score if got == want else 0.8 * score


def named_cases_right():
    """Every line showing a named case normalised, every variable kept, every invalid line listed."""
    clean, listed = lines("crontab.clean"), {ln.strip() for ln in lines("crontab.errors")}
    return set(want_named) <= set(clean) and set(want_vars) <= set(clean) and set(want_errors) <= listed


def jobs():
    if not named_cases_right():
        return 0
    return overlap([ln for ln in lines("crontab.clean") if not VAR.fullmatch(ln)], want_jobs)


def variables():
    return jobs() > 0.5 and [ln for ln in lines("crontab.clean") if VAR.fullmatch(ln)] == want_vars


def errors():
    return overlap([ln.strip() for ln in lines("crontab.errors")], want_errors) if jobs() > 0.5 else 0


def source_kept():
    return jobs() == 1 and read("crontab.txt") == (orig / "crontab.txt").read_text()


grade({"jobs_normalised": 0.45, "variables_kept": 0.1, "errors_listed": 0.3, "source_kept": 0.15},
      {"jobs_normalised": jobs, "variables_kept": variables, "errors_listed": errors, "source_kept": source_kept})
