"""A correct notes extractor that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import json
import re
import sys
from pathlib import Path

SKIP = sys.argv[1]
MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}


def iso(y, m, d):
    if SKIP == "zero-pad":
        return f"{y}-{int(m)}-{int(d)}"
    return f"{y}-{int(m):02d}-{int(d):02d}"


def emails(t):
    if SKIP != "obfuscated-email":
        t = re.sub(r"\s*\[dot\]\s*", ".", re.sub(r"\s*\[at\]\s*", "@", t))
    found = re.findall(r"[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", t)
    return {m if SKIP == "email-case" else m.lower() for m in found}


def phones(t):
    pat = r"(?<![\w.-])(?:\+?1[ .-])?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?![\w-])"
    raw = re.findall(pat, t)
    out = []
    for m in (set(raw) if SKIP == "phone-duplicates" else raw):
        digits = re.sub(r"\D", "", m)
        out.append("+1" + (digits if SKIP == "country-code" else digits[-10:]))
    return out if SKIP == "phone-duplicates" else set(out)


def dates(t):
    out = {iso(y, m, d) for y, m, d in re.findall(r"\b(\d{4})-(\d{2})-(\d{2})\b", t)}
    for a, b, y in re.findall(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", t):
        m, d = (b, a) if SKIP == "us-dates" else (a, b)
        if 1 <= int(m) <= 12:
            out.add(iso(y, m, d))
    if SKIP != "month-names":
        for mon, d, y in re.findall(r"\b([A-Z][a-z]+)\.? (\d{1,2}), (\d{4})\b", t):
            if mon[:3].lower() in MONTHS:
                out.add(iso(y, MONTHS[mon[:3].lower()], d))
        for d, mon, y in re.findall(r"\b(\d{1,2}) ([A-Z][a-z]+) (\d{4})\b", t):
            if mon[:3].lower() in MONTHS:
                out.add(iso(y, MONTHS[mon[:3].lower()], d))
    return out


result = {}
for p in sorted(Path("notes").glob("*.txt")):
    t = p.read_text()
    result[p.name] = {"emails": sorted(emails(t)), "phones": sorted(phones(t)), "dates": sorted(dates(t))}
json.dump(result, open("extracted.json", "w"), indent=2)
