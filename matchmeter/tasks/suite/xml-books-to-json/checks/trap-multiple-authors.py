"""Trap probe: a book with two or more authors."""
import sys
import xml.etree.ElementTree as ET

NS = {"l": "urn:example:library"}
books = ET.parse("data/catalog.xml").getroot().findall("l:book", NS)
hits = [b.get("id") for b in books if len(b.findall("l:authors/l:author", NS)) > 1]
print(hits or "no book with co-authors")
sys.exit(0 if hits else 1)
