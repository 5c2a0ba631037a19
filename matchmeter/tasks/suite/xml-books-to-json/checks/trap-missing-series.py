"""Trap probe: a book without a series and one with a series."""
import sys
import xml.etree.ElementTree as ET

NS = {"l": "urn:example:library"}
books = ET.parse("data/catalog.xml").getroot().findall("l:book", NS)
has = [b.find("l:series", NS) is not None for b in books]
print(has)
sys.exit(0 if True in has and False in has else 1)
