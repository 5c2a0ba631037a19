"""Trap probe: external links, a protocol-relative //host/... one among them."""
import os
import re
import sys
import urllib.parse

html = open("site/index.html").read()
links = re.findall(r"(href|src)=\"([^\"]*)\"", html)
hits = [v for _, v in links if v.startswith("//")]
print(hits or "no protocol-relative external link")
sys.exit(0 if hits else 1)
