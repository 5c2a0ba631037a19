#!/usr/bin/env bash
# Seeds notes/call-NN.txt: free-text call notes mentioning emails (plain, <bracketed>, mailto:,
# "[at]/[dot]" obfuscated, mixed case), North American phone numbers in five formats (some repeated
# in another format) and dates in six formats, among decoys (versions, times, ticket numbers).
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


def email():
    local = f"{rng.choice(first)}.{rng.choice(last)}" + rng.choice(["", "", "+crm", str(rng.randint(1, 9))])
    addr = f"{local}@{rng.choice(domains)}"
    style = rng.randrange(5)
    shown = addr.title() if rng.random() < 0.3 else addr
    if style == 0:
        return addr, f"<{shown}>"
    if style == 1:
        return addr, f"mailto:{shown}"
    if style == 2:
        user, dom = addr.split("@")
        return addr, f"{user} [at] {' [dot] '.join(dom.split('.'))}"
    return addr, shown


def phone_formats(area, ex, line):
    return [f"({area}) {ex}-{line}", f"{area}.{ex}.{line}", f"+1 {area} {ex} {line}", f"{area}-{ex}-{line}",
            f"1-{area}-{ex}-{line}"]


def phone():
    area, ex, line = rng.randint(201, 989), 555, f"01{rng.randint(0, 99):02d}"
    return f"+1{area}{ex}{line}", rng.sample(phone_formats(area, ex, line), 2)


def date():
    y, m, d = rng.randint(2023, 2025), rng.randint(1, 12), rng.randint(1, 28)
    shown = rng.choice([f"{y}-{m:02d}-{d:02d}", f"{m}/{d}/{y}", f"{m:02d}/{d:02d}/{y}", f"{MONTHS[m - 1]} {d}, {y}",
                        f"{d} {MONTHS[m - 1]} {y}", f"{MONTHS[m - 1][:3]} {d}, {y}"])
    return f"{y}-{m:02d}-{d:02d}", shown


decoys = [lambda: f"They are still on version {rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}.",
          lambda: f"Follow-up call at {rng.randint(8, 17)}:{rng.choice(['00', '15', '30', '45'])}.",
          lambda: f"Ticket #{rng.randint(10000, 99999)} stays open.",
          lambda: f"Order {rng.randint(1000, 9999)}-{rng.randint(10, 99)} shipped in Q{rng.randint(1, 4)} {rng.randint(2023, 2025)}.",
          lambda: f"Budget is {rng.randint(2, 90)}.{rng.randint(0, 9)}k for {rng.randint(2, 12)} seats."]
Path("notes").mkdir(exist_ok=True)
truth = {}
for n in rng.sample(range(1, 40), rng.randint(4, 6)):
    sentences = [rng.choice(decoys)(), rng.choice(decoys)()]
    found = {"emails": set(), "phones": set(), "dates": set()}
    for _ in range(rng.randint(1, 3)):
        value, shown = email()
        found["emails"].add(value)
        sentences.append(rng.choice(["Reach them at {}.", "Main contact: {}", "Please cc {} on the quote."]).format(shown))
    for _ in range(rng.randint(1, 2)):
        value, shown = phone()
        found["phones"].add(value)
        sentences.append(rng.choice(["Call back on {}.", "Office line {} (mornings).", "Mobile: {}"]).format(shown[0]))
        if rng.random() < 0.5:
            sentences.append(f"Also listed as {shown[1]} in the CRM.")
    for _ in range(rng.randint(1, 3)):
        value, shown = date()
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
    Path(f"notes/call-{n:02d}.txt").write_text("\n".join(lines) + "\n")
    truth[f"call-{n:02d}.txt"] = {k: sorted(v) for k, v in found.items()}
if os.environ.get("MM_TRUTH_OUT"):  # only the verifier sets this, to a path outside the workspace
    Path(os.environ["MM_TRUTH_OUT"]).write_text(json.dumps(truth, indent=2))
PY
