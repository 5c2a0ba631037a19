#!/usr/bin/env bash
# Seeds notes/call-NN.txt: free-text call notes mentioning emails (plain, <bracketed>, mailto:,
# "[at]/[dot]" obfuscated, mixed case), North American phone numbers in five formats (some repeated
# in another format) and dates in six formats, among decoys (versions, times, ticket numbers). Every seed plants
# the traps task.toml lists: a title-case email, an [at]/[dot] one, a number written with its country code and
# again without, a numeric month/day/year whose day is also a month, a month-name date with a one-digit day.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import os
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
first = ["ana", "bruno", "chen", "dalia", "erik", "fatou", "gwen", "hugo", "ines", "jamal"]
last = ["ruiz", "okafor", "lindgren", "patel", "moreau", "sato", "kowalski", "diaz"]
domains = ["example.com", "acme.test", "mail.example.org", "northwind.test"]


def email(style=None, title=None):
    local = f"{rng.choice(first)}.{rng.choice(last)}" + rng.choice(["", "", "+crm", str(rng.randint(1, 9))])
    addr = f"{local}@{rng.choice(domains)}"
    style = rng.randrange(5) if style is None else style
    shown = addr.title() if (rng.random() < 0.3 if title is None else title) else addr
    if style == 0:
        return addr, f"<{shown}>"
    if style == 1:
        return addr, f"mailto:{shown}"
    if style == 2:
        user, dom = shown.split("@")
        return addr, f"{user} [at] {' [dot] '.join(dom.split('.'))}"
    return addr, shown


def phone_formats(area, ex, line):
    return [f"({area}) {ex}-{line}", f"{area}.{ex}.{line}", f"+1 {area} {ex} {line}", f"{area}-{ex}-{line}",
            f"1-{area}-{ex}-{line}"]


def phone(country_code=False):
    area, ex, line = rng.randint(201, 989), 555, f"01{rng.randint(0, 99):02d}"
    formats = phone_formats(area, ex, line)
    if country_code:  # written with its country code first, then in a format without it
        return f"+1{area}{ex}{line}", [rng.choice([formats[2], formats[4]]), rng.choice([formats[0], formats[1], formats[3]])]
    return f"+1{area}{ex}{line}", rng.sample(formats, 2)


def date(form=None):
    y, m, d = rng.randint(2023, 2025), rng.randint(1, 12), rng.randint(1, 28)
    if form == "us":  # month/day/year whose day is also a month: read as day/month it is another date
        d = rng.choice([n for n in range(1, 13) if n != m])
    if form == "name":  # a month name and a one-digit day
        d = rng.randint(1, 9)
    forms = [f"{y}-{m:02d}-{d:02d}", f"{m}/{d}/{y}", f"{m:02d}/{d:02d}/{y}", f"{MONTHS[m - 1]} {d}, {y}",
             f"{d} {MONTHS[m - 1]} {y}", f"{MONTHS[m - 1][:3]} {d}, {y}"]
    shown = {"us": rng.choice(forms[1:3]), "name": rng.choice(forms[3:])}.get(form) or rng.choice(forms)
    return f"{y}-{m:02d}-{d:02d}", shown


decoys = [lambda: f"They are still on version {rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}.",
          lambda: f"Follow-up call at {rng.randint(8, 17)}:{rng.choice(['00', '15', '30', '45'])}.",
          lambda: f"Ticket #{rng.randint(10000, 99999)} stays open.",
          lambda: f"Order {rng.randint(1000, 9999)}-{rng.randint(10, 99)} shipped in Q{rng.randint(1, 4)} {rng.randint(2023, 2025)}.",
          lambda: f"Budget is {rng.randint(2, 90)}.{rng.randint(0, 9)}k for {rng.randint(2, 12)} seats."]
Path("notes").mkdir(exist_ok=True)
truth, named = {}, []
numbers = rng.sample(range(1, 40), rng.randint(4, 6))
# Every seed plants each trap task.toml lists, in a file of its own draw (the verifier gates on these lists).
plant = {trap: rng.choice(numbers) for trap in ("title", "obfuscated", "country_code", "us_date", "name_date")}
for n in numbers:
    sentences = [rng.choice(decoys)(), rng.choice(decoys)()]
    found = {"emails": set(), "phones": set(), "dates": set()}
    fname = f"call-{n:02d}.txt"
    forced = {t for t, at in plant.items() if at == n}
    named += [[fname, kind] for kind, traps in (("emails", {"title", "obfuscated"}), ("phones", {"country_code"}),
                                                ("dates", {"us_date", "name_date"})) if forced & traps]
    for i in range(rng.randint(1, 3)):
        value, shown = email(2 if i == 0 and "obfuscated" in forced else None,
                             True if i == 0 and "title" in forced else None)
        found["emails"].add(value)
        sentences.append(rng.choice(["Reach them at {}.", "Main contact: {}", "Please cc {} on the quote."]).format(shown))
    for i in range(rng.randint(1, 2)):
        cc = i == 0 and "country_code" in forced
        value, shown = phone(cc)
        found["phones"].add(value)
        sentences.append(rng.choice(["Call back on {}.", "Office line {} (mornings).", "Mobile: {}"]).format(shown[0]))
        if rng.random() < 0.5 or cc:  # the same number again in another format
            sentences.append(f"Also listed as {shown[1]} in the CRM.")
    planted = [f for f, t in (("us", "us_date"), ("name", "name_date")) if t in forced]
    for form in planted + [None] * max(0, rng.randint(1, 3) - len(planted)):
        value, shown = date(form)
        found["dates"].add(value)
        sentences.append(rng.choice(["Renewal due {}.", "Met on {} to review the contract.", "Invoice sent {}; chase if unpaid."]).format(shown))
    rng.shuffle(sentences)
    lines, line = [f"Call notes #{n}", ""], ""
    for s in sentences:
        if len(line) + len(s) > 90:
            lines.append(line.rstrip())
            line = ""
        line += s + " "
    lines.append(line.rstrip())
    Path(f"notes/{fname}").write_text("\n".join(lines) + "\n")
    truth[fname] = {k: sorted(v) for k, v in found.items()}
if os.environ.get("MM_TRUTH_OUT"):  # only the verifier sets this, to a path outside the workspace
    Path(os.environ["MM_TRUTH_OUT"]).write_text(json.dumps({"files": truth, "named": named}, indent=2))
PY
