# why: ignores null for a missing series (empty string instead), does the rest well
python3 - <<'PY'
import json, re
import xml.etree.ElementTree as ET
ns = {"l": "urn:example:library", "p": "urn:example:pricing"}
raw = open("data/catalog.xml").read()
raw_titles = dict(re.findall(r'<book id="([^"]+)"[^>]*>\s*<title>(.*?)</title>', raw))
out = []
for b in ET.parse("data/catalog.xml").getroot().findall("l:book", ns):
    price, series = b.find("p:price", ns), b.find("l:series", ns)
    authors = [a.text for a in b.findall("l:authors/l:author", ns)]
    out.append({"id": b.get("id"), "title": b.find("l:title", ns).text,
                "authors": authors,
                "year": int(b.find("l:published", ns).get("year")), "price": float(price.text),
                "currency": price.get("currency"), "series": "" if series is None else series.text})
json.dump(out, open("data/books.json", "w"), indent=2, ensure_ascii=False)
PY
