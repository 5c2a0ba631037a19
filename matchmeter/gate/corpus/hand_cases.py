"""Hand-written gate corpus cases: the slips rules cannot see by nature (judge-only kinds) and the concrete
misses and false rejections the gate-v2 issue reports. Each is (task, label, kind, full candidate text).
Candidates are built from the suite's real descriptions with one deliberate edit, as data."""

from __future__ import annotations

from pathlib import Path

_SUITE = Path(__file__).resolve().parents[2] / "tasks" / "suite"


def _t(task: str) -> str:
    return (_SUITE / task / "instruction.md").read_text()


def _sub(task: str, old: str, new: str, tail: str = "") -> str:
    text = _t(task)
    assert old in text, (task, old)
    return text.replace(old, new, 1).rstrip() + ("\n\n" + tail if tail else "") + "\n"


def _add(task: str, tail: str) -> str:
    return _t(task).rstrip() + "\n\n" + tail + "\n"


F, U = "faithful", "unfaithful"
HAND_CASES: list[tuple[str, str, str, str]] = [
    # ---- judge-only: widened criteria
    ("cleanup-old-tmp", U, "widened_criteria", _sub("cleanup-old-tmp", "more than 7 days ago", "7 days ago or earlier")),
    ("html-broken-links", U, "widened_criteria", _sub("html-broken-links", "External links don't\nneed checking.",
                                                      "External links should be checked as well.")),
    ("markdown-deps-table", U, "widened_criteria", _sub("markdown-deps-table", "(not the dev-only ones)",
                                                        "(the dev-only ones included)")),
    ("sensor-medians", U, "widened_criteria", _sub("sensor-medians", "median of its valid numeric readings",
                                                   "median of all of its readings")),
    ("latency-percentile", U, "widened_criteria", _sub("latency-percentile", "Consider only API\nrequests, i.e. paths under `/api/`, across all the log files",
                                                       "Consider every request, across all the log files")),
    # ---- judge-only: inverted precedence
    ("env-merge", U, "inverted_precedence", _sub("env-merge", "`production.env` overrides `defaults.env`, and `local.env` overrides both",
                                                 "`defaults.env` overrides `production.env`, and both override `local.env`")),
    ("merge-by-rule", U, "inverted_precedence", _sub("merge-by-rule", "keep the higher version", "keep the lower version")),
    ("merge-by-rule", U, "inverted_precedence", _sub("merge-by-rule", "- `VERSION`: keep `main`'s.", "- `VERSION`: keep the release branch's.")),
    # ---- judge-only: first <-> last, order
    ("csv-clean-contacts", U, "first_last", _sub("csv-clean-contacts", "keep only the first row", "keep only the last row")),
    ("du-top-dirs", U, "first_last", _sub("du-top-dirs", "largest first", "smallest first")),
    ("merge-by-rule", U, "first_last", _sub("merge-by-rule", "newest date first", "oldest date first")),
    ("sort-inbox", U, "first_last", _sub("sort-inbox", "(the part after the\nlast dot", "(the part after the\nfirst dot")),
    # ---- judge-only: case-insensitive / normalisation changes
    ("signup-duplicates", U, "case_insensitive", _sub("signup-duplicates", "(people don't always type their address the same way)",
                                                      "(compare the addresses exactly as typed, letter case included)")),
    ("sort-inbox", U, "case_insensitive", _sub("sort-inbox", "extension in lower case", "extension as it is written")),
    ("csv-clean-contacts", U, "case_insensitive", _sub("csv-clean-contacts", "- emails trimmed and lower-cased;", "- emails trimmed;")),
    # ---- judge-only: added requirement
    ("top-region-revenue", U, "added_requirement", _add("top-region-revenue", "Also list the runner-up region on a second line of the region file.")),
    ("du-top-dirs", U, "added_requirement", _add("du-top-dirs", "Sizes should be human-readable (KiB, MiB) rather than raw bytes.")),
    ("ini-to-json", U, "added_requirement", _add("ini-to-json", "Sort the keys of every section alphabetically and indent the JSON by two spaces.")),
    ("git-recover-branches", U, "added_requirement", _add("git-recover-branches", "Push every recovered branch to the remote when you are done.")),
    ("sensor-medians", U, "added_requirement", _add("sensor-medians", "Sensors whose readings were all junk must be reported with a median of zero.")),
    # ---- issue's rule misses (rule-detectable kinds)
    ("fix-permissions", U, "number", _sub("fix-permissions", "every directory should be `755`", "every directory should be `775`")),
    ("cleanup-old-tmp", U, "number", _sub("cleanup-old-tmp", "more than 7 days ago", "more than seven hours ago")),
    ("env-merge", U, "number", _sub("env-merge", "spread over three files", "spread over two files")),
    ("du-top-dirs", U, "number", _sub("du-top-dirs", "the three largest projects", "the five largest projects")),
    ("du-top-dirs", U, "prohibition", _sub("du-top-dirs", "Don't delete or change anything under `data/`.", "Don't delete anything under `data/`.")),
    ("fix-permissions", U, "prohibition", _sub("fix-permissions", "leave `vendor/` exactly as it is", "tidy `vendor/` as well if it needs it")),
    ("ini-to-json", U, "prohibition", _sub("ini-to-json", "Keep `conf/app.ini` as it is.", "You can remove `conf/app.ini` afterwards.")),
    ("profile-literal-line", U, "prohibition", _sub("profile-literal-line", "Don't touch `config/secrets.env`.", "Don't delete `config/secrets.env`.")),
    ("git-revert-bad-commit", U, "command_leak", _add("git-revert-bad-commit", "Use git log -S on the setting to find the commit, then git revert it.")),
    ("du-top-dirs", U, "command_leak", _add("du-top-dirs", "First list everything with ls -lR so you know what is there.")),
    ("fix-permissions", U, "command_leak", _add("fix-permissions", "The easiest way is find with -type d and -exec chmod, then the same for files.")),
    ("top-region-revenue", U, "step_list", _add("top-region-revenue", "First sum units times unit_price per region, then pick the largest, and finally round it and write both files.")),
    ("latency-percentile", U, "path", _sub("latency-percentile", "paths under `/api/`", "paths under `/v1/api/`")),
    ("proxy-two-services", U, "path", _sub("proxy-two-services", "`GET /health` → `{\"ok\": true}`", "`GET /healthz` → `{\"ok\": true}`")),
    ("q-append-line-h1", U, "literal", _sub("q-append-line-h1", "greeting = \"Hello, it's ${USER}!\"", "greeting = \"Hi, it's ${USER}!\"")),
    ("git-revert-bad-commit", U, "literal", _sub("git-revert-bad-commit", "`max_connections = 0`", "max_connections = 1")),
    ("html-broken-links", U, "literal", _sub("html-broken-links", "(`href` and `src` attributes", "(href attributes")),
    # ---- issue's false rejections (faithful)
    ("du-top-dirs", F, "faithful:dotslash", _sub("du-top-dirs", "Write `usage.txt`", "Write `./usage.txt`")),
    ("merge-by-rule", F, "faithful:only_split", _sub("merge-by-rule", " (there is only one\nrelease branch).", ". There is only one release branch.")),
    ("csv-clean-contacts", F, "faithful:bullets", _sub("csv-clean-contacts", "Leave the other fields as they are, and leave `data/contacts.csv` itself unchanged.",
                                                       "Also:\n- leave the other fields as they are;\n- leave `data/contacts.csv` itself unchanged.")),
    ("html-broken-links", F, "faithful:prose_pair", _add("html-broken-links", "A link counts as broken when no file/directory exists at its target.")),
    ("sort-inbox", F, "faithful:unquote", _sub("sort-inbox", "Leave `archive/` alone.", "Leave archive/ alone.")),
    ("top-region-revenue", F, "faithful:restate", _add("top-region-revenue", "Both answer files go under answer/, and the revenue keeps exactly 2 decimal places.")),
    ("env-merge", F, "faithful:bullets", _sub("env-merge", "`.env` should have exactly one `KEY=value` line per setting, sorted by key, without comments, blank\nlines or `export`.",
                                              "`.env` should have:\n- exactly one `KEY=value` line per setting;\n- lines sorted by key;\n- no comments, blank lines or `export`.")),
    ("fix-permissions", F, "faithful:restate", _add("fix-permissions", "In short: directories 755, files 644, the site/bin/*.sh scripts 755; vendor/ and file contents untouched.")),
    ("git-revert-bad-commit", F, "faithful:restate", _add("git-revert-bad-commit", "History must only grow: the fix is one more commit, nothing is rewritten.")),
    ("ledger-cli-tool", F, "faithful:restate", _add("ledger-cli-tool", "The spec in docs/ledger-cli.md is the authority on output and exit codes.")),
]
