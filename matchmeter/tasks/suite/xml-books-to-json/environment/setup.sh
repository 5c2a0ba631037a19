#!/usr/bin/env bash
# Seeds data/catalog.xml: a default namespace plus a pricing namespace, entities in titles, one or
# more authors, a year attribute, an optional series element, and a decoy <title> in a review note.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

rng = random.Random(int(sys.argv[1]))
words = ["Rivers", "Glass", "Winter", "Salt & Stone", "Echoes", "Tides", "Ash", "Lanterns", "Orchard", "<Code>", "Maps"]
people = ["M. Okafor", "J. Lindqvist", "A. Duarte", "S. Ito", "R. Haddad", "L. Moreau", "K. Novak", "T. Brennan"]
series = ["The Long Coast", "Northern Lights", "Quiet Cities"]
books = []
# Traps on every seed (task.toml): book 0 has an escaped title (& or <), two or three authors and a
# series; book 1 has no series.
for k, n in enumerate(rng.sample(range(100, 200), rng.randint(6, 10))):
    book = [f'  <book id="bk{n}" lang={quoteattr(rng.choice(["en", "fr", "de"]))}>']
    title = f"{rng.choice(['The', 'Of', 'A Book of', 'After the'])} {rng.choice(['Salt & Stone', '<Code>'] if k == 0 else words)}"
    book.append(f"    <title>{escape(title)}</title>")
    book.append("    <authors>" + "".join(f"<author>{escape(a)}</author>" for a in rng.sample(people, rng.choice([2, 3] if k == 0 else [1, 1, 2, 3]))) + "</authors>")
    book.append(f'    <published year="{rng.randint(1950, 2024)}" month="{rng.randint(1, 12)}"/>')
    book.append(f'    <p:price currency="{rng.choice(["EUR", "USD", "GBP"])}">{rng.randint(5, 60)}.{rng.choice(["00", "50", "99", "25"])}</p:price>')
    if (rng.random() < 0.4 or k == 0) and k != 1:
        book.append(f'    <series number="{rng.randint(1, 5)}">{escape(rng.choice(series))}</series>')
    if rng.random() < 0.3:
        book.append(f"    <review><title>Reader notes</title><text>{rng.choice(['Loved it', 'Slow start'])}</text></review>")
    book.append("  </book>")
    books.append("\n".join(book))
xml = ('<?xml version="1.0" encoding="UTF-8"?>\n'
       '<catalog xmlns="urn:example:library" xmlns:p="urn:example:pricing" updated="2024-05-01">\n'
       + "\n".join(books) + "\n</catalog>\n")
Path("data").mkdir(exist_ok=True)
Path("data/catalog.xml").write_text(xml)
PY
