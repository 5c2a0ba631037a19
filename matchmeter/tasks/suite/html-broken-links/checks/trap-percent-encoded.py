"""Trap probe: a percent-encoded local link whose decoded file exists."""
import os
import re
import sys
import urllib.parse

html = open("site/index.html").read()
links = re.findall(r"(href|src)=\"([^\"]*)\"", html)
hits = [v for _, v in links if "%" in v and os.path.isfile(os.path.join("site", urllib.parse.unquote(v)))]
print(hits or "no percent-encoded link to an existing file")
sys.exit(0 if hits else 1)
