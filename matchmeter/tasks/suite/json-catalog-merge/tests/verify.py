"""json-catalog-merge verifier: merged.json equals base + updates applied in order, sorted by sku.

Strict on the named cases (every seed plants them, task.toml's traps): each subgoal pays only when the skus are
exactly the surviving ones in sku order (discontinued gone, new ones in), every product has exactly the five
fields, and every product a stock_delta or a tags change touched has the right stock and tags (no duplicates)."""

import json

from verifylib import grade, pristine, read

orig = pristine() / "catalog"
merged = {p["sku"]: dict(p) for p in json.loads((orig / "base.json").read_text())}
for ch in json.loads((orig / "updates.json").read_text())["changes"]:
    sku = ch["sku"]
    if ch.get("discontinued"):
        merged.pop(sku, None)
        continue
    if sku not in merged:
        merged[sku] = {k: ch[k] for k in ("sku", "name", "price", "stock", "tags")}
        continue
    p = merged[sku]
    for key, value in ch.items():
        if key == "stock_delta":
            p["stock"] += value
        elif key == "tags":
            p["tags"] = p["tags"] + [t for t in value if t not in p["tags"]]
        elif key != "sku":
            p[key] = value
KEYS = {"sku", "name", "price", "stock", "tags"}
changes = json.loads((orig / "updates.json").read_text())["changes"]
delta_skus = {c["sku"] for c in changes if "stock_delta" in c} & set(merged)
tag_skus = {c["sku"] for c in changes if "tags" in c} & set(merged)


def doc():
    data = json.loads(read("catalog/merged.json"))
    assert isinstance(data, list) and all(isinstance(p, dict) for p in data)
    return data


def same(got, want):
    return (set(got) == KEYS and got["name"] == want["name"] and abs(got["price"] - want["price"]) < 0.005
            and got["stock"] == want["stock"] and sorted(set(got["tags"])) == sorted(want["tags"])
            and len(got["tags"]) == len(want["tags"]))


def named_cases():
    """Every named case handled: sku set and order, exactly five fields, the stocks and tags changes touched."""
    data = doc()
    got = {p.get("sku"): p for p in data}
    return ([p.get("sku") for p in data] == sorted(merged) and all(set(p) == KEYS for p in data)
            and all(got[s]["stock"] == merged[s]["stock"] for s in delta_skus)
            and all(sorted(got[s]["tags"]) == sorted(merged[s]["tags"]) for s in tag_skus))


def skus():
    return named_cases()  # its first condition is this subgoal: the skus are exactly sorted(merged)


def products():
    if not named_cases():
        return 0.0
    got = {p.get("sku"): p for p in doc()}
    return sum(s in got and same(got[s], merged[s]) for s in merged) / max(len(merged), len(got))


def stock_and_tags():
    if not named_cases():
        return 0.0
    got = {p.get("sku"): p for p in doc()}
    changed = [s for s in merged if s in got]
    return bool(changed) and all(got[s]["stock"] == merged[s]["stock"] and set(got[s]["tags"]) == set(merged[s]["tags"])
                                 for s in merged) and len(got) == len(merged)


grade({"sku_set_sorted": 0.25, "products_exact": 0.5, "stock_and_tags": 0.25},
      {"sku_set_sorted": skus, "products_exact": products, "stock_and_tags": stock_and_tags})
