"""A correct catalog merge that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import json
import sys

SKIP = sys.argv[1]
KEYS = ("sku", "name", "price", "stock", "tags")
base = json.load(open("catalog/base.json"))
changes = json.load(open("catalog/updates.json"))["changes"]
if SKIP == "in-order":  # one change per sku: the later change's fields win, the earlier stock_delta is lost
    folded = {}
    for ch in changes:
        folded[ch["sku"]] = {**folded.get(ch["sku"], {}), **ch}
    changes = list(folded.values())
cat = {p["sku"]: dict(p) for p in base}
order = [p["sku"] for p in base]
for ch in changes:
    sku = ch["sku"]
    if ch.get("discontinued"):
        if SKIP != "discontinued":
            cat.pop(sku, None)
        continue
    if sku not in cat:
        if SKIP != "new-product":
            cat[sku] = {k: v for k, v in ch.items() if SKIP == "exact-fields" or k in KEYS}
            order.append(sku)
        continue
    p = cat[sku]
    for k, v in ch.items():
        if k == "stock_delta":
            if SKIP != "stock-delta":
                p["stock"] += v
        elif k == "tags":
            if SKIP == "tags-added":
                p["tags"] = list(v)
            elif SKIP == "no-duplicate-tags":
                p["tags"] = p["tags"] + list(v)
            else:
                p["tags"] = p["tags"] + [t for t in v if t not in p["tags"]]
        elif k in KEYS and k != "sku":
            p[k] = v
skus = [s for s in order if s in cat] if SKIP == "sorted-by-sku" else sorted(cat)
out = [cat[s] if SKIP == "exact-fields" else {k: cat[s][k] for k in KEYS} for s in skus]
json.dump(out, open("catalog/merged.json", "w"), indent=2)
