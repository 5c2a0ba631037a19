"""Trap probe: a local link with a #fragment or ?query whose file exists."""
import os
import re
import sys
import urllib.parse

html = open("site/index.html").read()
links = re.findall(r"(href|src)=\"([^\"]*)\"", html)
hits = [v for _, v in links if re.search(r"[#?]", v) and not v.startswith("#")
        and os.path.isfile(os.path.join("site", urllib.parse.unquote(re.split(r"[#?]", v)[0])))]
print(hits or "no existing page behind a fragment or query")
sys.exit(0 if hits else 1)
