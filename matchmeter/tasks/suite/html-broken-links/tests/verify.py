"""html-broken-links verifier: broken_links.txt lists exactly the local links of index.html whose file is missing."""

import re
import urllib.parse

from verifylib import grade, pristine, read

site = pristine() / "site"
html = (site / "index.html").read_text()
values = re.findall(r'(?:href|src)="([^"]*)"', html)


def norm(value):
    """The link without fragment or query, './' or percent-encoding: what the browser would fetch."""
    return urllib.parse.unquote(re.split(r"[#?]", value.strip(), maxsplit=1)[0]).removeprefix("./")


local = [v for v in values if not re.match(r"^(?:[a-z]+:|//|#)", v)]
broken = {norm(v) for v in local if not (site / norm(v)).is_file()}
fine = {norm(v) for v in local} - broken


def listed():
    return {norm(ln) for ln in read("broken_links.txt").splitlines() if ln.strip()}


def recall():
    return len(listed() & broken) / len(broken)


def precision():
    """No false alarm, paid in proportion to the broken links found (one sure hit alone is no work)."""
    got = listed()
    clean = bool(got) and not (got & fine) and not any(re.match(r"^(?:[a-z]+:|//)", g) for g in got)
    return recall() if clean else 0.0


def exact():
    return listed() == broken


def traps():
    """The named traps (task.toml) all handled: no existing file listed (a fragment, query or %20 kept in the
    path), no external link, every broken src link listed. A sloppy answer fails one and is paid nothing."""
    try:
        got = listed()
    except Exception:  # noqa: BLE001 - no readable list handles no trap
        return False
    srcs = {norm(v) for v in re.findall(r'src="([^"]*)"', html) if not re.match(r"^(?:[a-z]+:|//|#)", v)}
    return not (got & fine) and not any(re.match(r"^(?:[a-z]+:|//)", g) for g in got) and (srcs & broken) <= got


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"broken_found": 0.5, "no_false_alarms": 0.3, "exact_list": 0.2},
      {"broken_found": gated(recall), "no_false_alarms": gated(precision), "exact_list": gated(exact)})
