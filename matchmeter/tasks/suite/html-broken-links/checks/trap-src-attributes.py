"""Trap probe: a src attribute naming a missing file."""
import os
import re
import sys
import urllib.parse

html = open("site/index.html").read()
links = re.findall(r"(href|src)=\"([^\"]*)\"", html)
hits = [v for a, v in links if a == "src" and not re.match(r"^(?:[a-z]+:|//)", v) and not os.path.isfile(os.path.join("site", v))]
print(hits or "no broken src link")
sys.exit(0 if hits else 1)
