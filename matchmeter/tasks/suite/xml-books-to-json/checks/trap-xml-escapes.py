"""Trap probe: a title holding & or < (escaped in the XML)."""
import sys
import xml.etree.ElementTree as ET

NS = {"l": "urn:example:library"}
books = ET.parse("data/catalog.xml").getroot().findall("l:book", NS)
hits = [b.find("l:title", NS).text for b in books if any(c in b.find("l:title", NS).text for c in "&<")]
print(hits or "no title with & or <")
sys.exit(0 if hits else 1)
