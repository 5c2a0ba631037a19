# why: ignores protocol-relative external links (//host/... checked as local), does the rest well
python3 - <<'PY'
import os, re, urllib.parse
html = open("site/index.html").read()
out = []
for v in re.findall(r'(?:href|src)="([^"]*)"', html):
    if re.match(r"^(?:[a-z]+:|#)", v):
        continue
    p = urllib.parse.unquote(re.split(r"[#?]", v, maxsplit=1)[0])
    if not os.path.isfile(os.path.join("site", p)):
        out.append(v)
open("broken_links.txt", "w").write("".join(v + "\n" for v in out))
PY
