"""xml-books-to-json verifier: every book's seven fields, typed, in document order."""

import json
import xml.etree.ElementTree as ET

from verifylib import grade, pristine, read

NS = {"l": "urn:example:library", "p": "urn:example:pricing"}
root = ET.parse(pristine() / "data" / "catalog.xml").getroot()
expected = []
for b in root.findall("l:book", NS):
    price = b.find("p:price", NS)
    series = b.find("l:series", NS)
    expected.append({"id": b.get("id"), "title": b.find("l:title", NS).text,
                     "authors": [a.text for a in b.findall("l:authors/l:author", NS)],
                     "year": int(b.find("l:published", NS).get("year")), "price": float(price.text),
                     "currency": price.get("currency"), "series": series.text if series is not None else None})


def doc():
    data = json.loads(read("data/books.json"))
    assert isinstance(data, list)
    return data


def field_ok(got, want, key):
    value = got.get(key) if isinstance(got, dict) else None
    if key == "year":
        return type(value) is int and value == want[key]
    if key == "price":
        return type(value) in (int, float) and abs(value - want[key]) < 1e-9
    if key == "title" and isinstance(value, str):
        return value.strip() == want[key]
    return value == want[key]


def count():
    return len(doc()) == len(expected) and [b.get("id") for b in doc()] == [b["id"] for b in expected]


def text_fields():
    got = {b.get("id"): b for b in doc() if isinstance(b, dict)}
    checks = [field_ok(got.get(w["id"], {}), w, k) for w in expected for k in ("title", "authors", "series")]
    return sum(checks) / len(checks)


def typed_fields():
    got = {b.get("id"): b for b in doc() if isinstance(b, dict)}
    checks = [field_ok(got.get(w["id"], {}), w, k) for w in expected for k in ("year", "price", "currency")]
    return sum(checks) / len(checks)


def exact_keys():
    return count() and all(set(b) == set(expected[0]) for b in doc())


def traps():
    """The named traps (task.toml) all handled: every book with an escaped title, co-authors or no series has
    its title, authors and series right. A sloppy answer fails one and is paid nothing."""
    try:
        got = {b.get("id"): b for b in doc() if isinstance(b, dict)}
    except Exception:  # noqa: BLE001 - no readable JSON handles no trap
        return False
    for w in expected:
        if any(c in w["title"] for c in "&<>") or len(w["authors"]) > 1 or w["series"] is None:
            g = got.get(w["id"], {})
            if not all(field_ok(g, w, k) for k in ("title", "authors", "series")) or "series" not in g:
                return False
    return True


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"books_in_order": 0.2, "text_fields": 0.35, "typed_fields": 0.3, "exact_keys": 0.15},
      {"books_in_order": gated(count), "text_fields": gated(text_fields), "typed_fields": gated(typed_fields),
       "exact_keys": gated(exact_keys)})
