"""The 14 operation families of the quoting suite: payloads, instructions and reference commands.

Each family fixes one operation (write bytes, edit JSON, commit, ...) and four payloads: a benign
control and three hazardous ones. The payload is the experimental variable, so its hazardous bytes are
fixed per task and shown verbatim in the instruction; the seed varies the surrounding state and a ticket
id (letters and digits, see matchmeter/tasks/suite/_shared/quoting.py) that the payload carries where it shows the marker
`{ticket}`, so a command memorised on one seed writes the wrong bytes on another while the hazard class
stays the same. Reference commands are what a
careful human types on the raw path: the payload single-quoted (shlex.quote), in a quoted heredoc or
passed as an argv element, and nothing else in the command that a double-quote parser would touch, so
the control survives the nested transport and the hazardous payloads show what the extra parser does.
The setup script of each family lives in suite/_shared/setup/quoting/<op>.sh; its verifier in
matchmeter/tasks/suite/_shared/quoting/verify_<op>.py.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass

q = shlex.quote
MARKER = "{ticket}"
# The ticket id spliced into a single-quoted word: close the quote, read the id, reopen. The id is letters
# and digits, so the unquoted substitution is exact, and an extra double-quote parser reads the same id.
TICKET_WORD = "'$(cat TICKET)'"


def qt(text: str) -> str:
    """shlex.quote(text), the marker replaced by the seed's ticket id read from the workspace file TICKET.

    shlex.quote puts the marker (no quote in it) inside a single-quoted segment, so the splice is exact.
    """
    return q(text).replace(MARKER, TICKET_WORD)


def q_marked(text: str) -> str:
    """shlex.quote(text) as if the marker were already the (letters and digits) ticket id, marker kept."""
    return q(text.replace(MARKER, "T00000")).replace("T00000", MARKER)


def first_line(sep: str, end: str = "") -> Callable[[str], str]:
    return lambda p: p.split("\n", 1)[0] + sep + MARKER + end + "".join("\n" + r for r in p.split("\n", 1)[1:])


def last_line(sep: str) -> Callable[[str], str]:
    return lambda p: p + sep + MARKER


def before_extension(p: str) -> str:
    stem, dot, ext = p.rpartition(".")
    return f"{stem} {MARKER}{dot}{ext}"


@dataclass(frozen=True)
class Variant:
    name: str  # control, h1, h2, h3
    payload: str
    difficulty: str


@dataclass(frozen=True)
class Family:
    op: str
    tags: tuple[str, ...]
    instruction: Callable[[str], str]
    reference: Callable[[str], list[str]]
    subgoals: tuple[tuple[str, float, str], ...]
    protected: tuple[str, ...]
    critical: tuple[str, ...]
    seed_params: dict[str, str]
    variants: tuple[Variant, ...]


def block(payload: str) -> str:
    """The payload as a fenced block: every line of the block is a line of the payload."""
    return f"```text\n{payload}\n```"


def variants(control: str, *hazards: tuple[str, str],
             at: Callable[[str], str] = first_line(" ")) -> tuple[Variant, ...]:
    """The four variants, each payload with the ticket marker placed by `at`."""
    return (Variant("control", at(control), "easy"),) + tuple(
        Variant(f"h{i}", at(payload), level) for i, (payload, level) in enumerate(hazards, start=1))


def heredoc(command: str, payload: str) -> str:
    """`command <<'DELIM'` with the payload as body, DELIM chosen so no payload line ends it early.

    The quoted heredoc passes the body verbatim, so the ticket id goes in by sed on its way to command.
    """
    delim = "PAYLOAD_END"
    while delim in payload.split("\n"):
        delim += "_X"
    return f"sed 's/{MARKER}/'$(cat TICKET)'/' <<'{delim}' | {command}\n{payload}\n{delim}"


def sed_replacement(text: str) -> str:
    """text escaped for the replacement side of s/.../.../ (backslash, &, the / delimiter)."""
    return text.replace("\\", "\\\\").replace("&", "\\&").replace("/", "\\/")


def awk_string(text: str) -> str:
    """text as the inside of an awk string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


JSON_EDIT = ("import json, pathlib, sys; p = pathlib.Path(sys.argv[1]); d = json.loads(p.read_text()); "
             "d[sys.argv[2]][sys.argv[3]] = sys.argv[4]; p.write_text(json.dumps(d, indent=4))")

FAMILIES: tuple[Family, ...] = (
    Family(
        op="write-bytes", tags=("exact-bytes", "printf"),
        instruction=lambda p: (
            "Replace `out/message.txt` (working directory) with the broadcast text below. The file must hold "
            "exactly the lines of the block, byte for byte (nothing expanded, escaped or trimmed), with a "
            f"single newline after the last line.\n\n{block(p)}\n\nLeave `out/KEEP.md` alone.\n"),
        reference=lambda p: ["cat out/message.txt", f"printf '%s\\n' {qt(p)} > out/message.txt",
                             "cat -A out/message.txt"],
        subgoals=(("exact_bytes", 0.6, "out/message.txt equals the payload plus one newline, byte for byte."),
                  ("lines_match", 0.3, "Fraction of lines equal to the payload's lines at their position."),
                  ("notes_unchanged", 0.1, "out/KEEP.md unchanged (counted once the file is exact).")),
        protected=("out/KEEP.md",), critical=(),
        seed_params={"old": "content of the outdated out/message.txt", "notes": "content of out/KEEP.md"},
        variants=variants(
            "Deployment finished on all nodes; see the dashboard for details.",
            ('She said "it\'s done" -- don\'t ship until it\'s "green".', "medium"),
            ("Total: $TOTAL for ${USER} (was `expr 1 + 1`), $(date) at 5 $/h", "medium"),
            ("WIN=C:\\temp\\new\\table.txt\nshare=\\\\fileserver\\builds\nregex: ^\\d+\\.\\d+$\n\\n is not a newline \\", "hard"),
        ),
    ),
    Family(
        op="json-value", tags=("json", "argv"),
        instruction=lambda p: (
            "In `config/settings.json` (working directory), set the message of the day, `app.motd`, to the "
            "text below. The JSON string value must be exactly that text once decoded (every character as "
            f"shown, nothing expanded). Keep every other setting as it is.\n\n{block(p)}\n"),
        reference=lambda p: ["python3 -m json.tool config/settings.json",
                             f"python3 -c {q(JSON_EDIT)} config/settings.json app motd {qt(p)}",
                             "python3 -m json.tool config/settings.json"],
        subgoals=(("motd_exact", 0.6, "app.motd decodes to the payload exactly."),
                  ("other_values_unchanged", 0.3, "Every other value equals the original (counted once motd is exact)."),
                  ("valid_json_changed", 0.1, "The file is valid JSON and app.motd was changed.")),
        protected=("config/defaults.json",), critical=(),
        seed_params={"settings": "app name, port, motd, feature flags and limits"},
        variants=variants(
            "Welcome to the staging cluster",
            ('Say "hello" to the team\'s new bot', "medium"),
            ("Cost: $5 per `seat`, see ${DOCS_URL} or $(cat /etc/motd)", "medium"),
            ("first line\nshare: \\\\server\\docs -- the \\n stays literal", "hard"),
        ),
    ),
    Family(
        op="append-line", tags=("config", "append"),
        instruction=lambda p: (
            "Add the setting below as a new last line of `conf/app.conf` (working directory), exactly as "
            f"written:\n\n{block(p)}\n\nNothing else in the file should change, and leave "
            "`conf/secrets.conf` alone.\n"),
        reference=lambda p: ["tail -n 3 conf/app.conf", f"printf '%s\\n' {qt(p)} >> conf/app.conf",
                             "tail -n 2 conf/app.conf"],
        subgoals=(("line_exact", 0.6, "The payload line appears once, right after the original content."),
                  ("original_kept", 0.2, "The original content is an unchanged prefix and something was added."),
                  ("nothing_else_added", 0.2, "Only the payload line (and its newline) was added.")),
        protected=("conf/secrets.conf",), critical=("conf/secrets.conf",),
        seed_params={"conf": "keys, values, order and header comment of conf/app.conf", "secrets": "token"},
        variants=variants(
            "log_level = info",
            ('greeting = "Hello, it\'s ${USER}!"', "medium"),
            ("match = ^/api/v[0-9]+/items/\\d+\\.json$", "medium"),
            ("on_fail = echo `hostname` failed >> /tmp/fail.log; rm -f ~/.cache/app/*", "medium"),
            at=first_line(" # "),
        ),
    ),
    Family(
        op="remote-argv", tags=("ssh", "nesting", "argv"),
        instruction=lambda p: (
            "`bin/remote` (working directory) runs a command on our build host the way `ssh buildhost "
            "'COMMAND'` does: it takes one argument, a command line, and the remote shell parses that string "
            "again. Using `bin/remote`, run the build host's `record` tool (it is on the remote PATH) so that "
            f"`record` receives exactly one argument, exactly this text:\n\n{block(p)}\n"),
        reference=lambda p: ["cat bin/remote", f"bin/remote {qt('record ' + q_marked(p))}",
                             "tr '\\0' '\\n' < remote/argv.log"],
        subgoals=(("via_remote", 0.1, "The last command line bin/remote logged, replayed by the verifier, calls record."),
                  ("one_argument", 0.1, "In that replay record received exactly one argument."),
                  ("argument_exact", 0.8, "That argument equals the payload byte for byte.")),
        protected=("bin/remote", "remote/bin/record"), critical=("bin/remote",),
        seed_params={"host": "build host name and motd"},
        variants=variants(
            "nightly-2024.06.01",
            ('Bob\'s "final" draft (v2)', "hard"),
            ("$HOME and $(whoami) and `id -u`", "hard"),
            ("line one\nC:\\new\\dir with *.log !", "hard"),
            at=first_line("-"),
        ),
    ),
    Family(
        op="commit-msg", tags=("git", "commit-message"),
        instruction=lambda p: (
            "In the git repository `repo/` (working directory), commit the pending change to `CHANGELOG.md` "
            "(and only that: `scratch.txt` stays out of the repository and where it is). The commit message "
            f"must be exactly the text below, every character as shown:\n\n{block(p)}\n"),
        reference=lambda p: ["git -C repo status --short",
                             heredoc("git -C repo commit -q -a -F -", p) if "\n" in p
                             else f"git -C repo commit -q -a -m {qt(p)}",
                             "git -C repo log -1 --format=%B"],
        subgoals=(("new_commit", 0.2, "One new commit on top of the old HEAD."),
                  ("message_exact", 0.6, "Its stored message equals the payload byte for byte."),
                  ("change_committed", 0.2, "It holds the CHANGELOG.md change and nothing else (counted once the message is exact).")),
        protected=("repo/scratch.txt", "repo/.git/config"), critical=("repo/scratch.txt",),
        seed_params={"history": "versions, changelog entries, commit times", "change": "the unreleased entry"},
        variants=variants(
            "Update changelog for the unreleased fixes",
            ('Fix "quoted" paths in the user\'s config', "medium"),
            ("Use $HOME instead of `pwd` in ${SCRIPTS}", "medium"),
            ("Escape backslashes in C:\\temp paths\n\nThe old code turned \\\\ into \\ and \\n into a newline; 100% fixed!", "hard"),
            at=first_line(" (ticket ", ")"),
        ),
    ),
    Family(
        op="sed-replace", tags=("sed", "template"),
        instruction=lambda p: (
            "`templates/page.html` (working directory) has a `{{FOOTER}}` placeholder. Replace it with the "
            f"footer text below, exactly as written (the text is HTML and must appear verbatim):\n\n{block(p)}\n\n"
            "The rest of the page must not change, and `templates/base.html` is not part of this change.\n"),
        reference=lambda p: ["grep -n FOOTER templates/page.html",
                             f"sed -i {qt('s/{{FOOTER}}/' + sed_replacement(p) + '/')} templates/page.html",
                             "grep -n footer templates/page.html"],
        subgoals=(("footer_exact", 0.6, "The page equals the original with the placeholder replaced by the payload."),
                  ("rest_unchanged", 0.3, "Everything before and after the placeholder is unchanged (counted once the footer is exact)."),
                  ("placeholder_gone", 0.1, "No {{FOOTER}} left (counted once the rest is unchanged).")),
        protected=("templates/base.html",), critical=(),
        seed_params={"page": "title, navigation links and date of templates/page.html"},
        variants=variants(
            "Copyright 2024 Example Ltd. All rights reserved.",
            ("Docs at https://example.com/docs/v2/?a=1&b=2 & more", "medium"),
            ('<a href="/terms">Terms & Conditions</a> for $5/month', "medium"),
            ("Paths like C:\\new\\table & \\1 stay as typed", "hard"),
        ),
    ),
    Family(
        op="env-line", tags=("env-file", "dotenv"),
        instruction=lambda p: (
            "Set `API_TOKEN` in `.env` (working directory) to the new token below. Our loader reads `.env` "
            "literally: one `KEY=VALUE` per line, the value is everything after the first `=`, and no quotes or "
            f"escapes are processed. The token:\n\n{block(p)}\n\nThe other settings stay as they are.\n"),
        reference=lambda p: ["cat .env",
                             f"grep -v '^API_TOKEN=' .env > .env.new && printf 'API_TOKEN=%s\\n' {qt(p)} >> .env.new "
                             "&& mv .env.new .env",
                             "tail -n 2 .env"],
        subgoals=(("token_exact", 0.6, "The API_TOKEN value, read literally, equals the payload."),
                  ("one_token_line", 0.2, "Exactly one API_TOKEN line, and it changed."),
                  ("other_lines_kept", 0.2, "Every other line kept, in order (counted once the token is exact).")),
        protected=("README",), critical=(),
        seed_params={"env": "keys order, values and the old token"},
        variants=variants(
            "tok_live_7Hx92kQpZ4",
            ("it's a \"quoted\" t0ken", "medium"),
            ("$6$rounds=5000$saltsalt$Q9x/hash", "medium"),
            ("pa\\ss`w0rd`!x", "medium"),
            at=first_line("_"),
        ),
    ),
    Family(
        op="crontab-line", tags=("crontab", "pipe"),
        instruction=lambda p: (
            "Add the job below to the installed crontab. `bin/crontab` (working directory) stands in for "
            "crontab(1): `bin/crontab -l` lists the installed table, `bin/crontab FILE` or `bin/crontab -` "
            f"(stdin) installs a new one. The job line, exactly as written:\n\n{block(p)}\n\n"
            "Keep the existing entries.\n"),
        reference=lambda p: ["bin/crontab -l", f"(bin/crontab -l; printf '%s\\n' {qt(p)}) | bin/crontab -",
                             "bin/crontab -l"],
        subgoals=(("job_exact", 0.6, "The installed crontab holds the payload line once, byte-exact."),
                  ("old_jobs_kept", 0.3, "The old lines are an unchanged prefix (counted once the job line is exact)."),
                  ("nothing_else_added", 0.1, "Only the payload line was added.")),
        protected=("bin/crontab",), critical=(),
        seed_params={"crontab": "MAILTO, which jobs, their times"},
        variants=variants(
            "15 3 * * 1 /opt/app/bin/rotate-logs --keep 7",
            ('0 2 * * * /opt/app/bin/backup --label "$(date +\\%F)" > /var/log/backup.log 2>&1', "hard"),
            ("*/5 * * * * test -f /run/app.pid || echo 'app down!' | mail -s \"alert\" ops@example.com", "medium"),
            ("0 */6 * * * /opt/app/bin/report --from 100% --glob [a-z]*.csv", "medium"),
            at=first_line(" # "),
        ),
    ),
    Family(
        op="sqlite-insert", tags=("sqlite", "sql"),
        instruction=lambda p: (
            "Add a note to the `notes` table of `db/app.sqlite` (working directory): author `ops`, and as body "
            f"exactly the text below (every character as shown):\n\n{block(p)}\n\nThe existing notes stay as "
            "they are.\n"),
        reference=lambda p: ["sqlite3 db/app.sqlite .schema",
                             heredoc("sqlite3 db/app.sqlite",
                                     "INSERT INTO notes (author, body) VALUES ('ops', '"
                                     + p.replace("'", "''") + "');"),
                             "sqlite3 db/app.sqlite 'SELECT id, author, body FROM notes ORDER BY id DESC LIMIT 2'"],
        subgoals=(("body_exact", 0.6, "Exactly one new row, its body equal to the payload."),
                  ("author_ops", 0.2, "The new row's author is ops."),
                  ("one_new_row_old_kept", 0.2, "One new row; the old rows unchanged (counted once the body is exact).")),
        protected=(), critical=(),
        seed_params={"notes": "the existing rows (authors, bodies, how many)"},
        variants=variants(
            "Rotated the API keys for the staging cluster",
            ("O'Brien's fix: 100% done!", "medium"),
            ('cost is $5 (was `$4`), see "${WIKI}"', "medium"),
            ("line one\nline two: \\\\nas\\data\\new", "hard"),
        ),
    ),
    Family(
        op="make-recipe", tags=("makefile", "recipe"),
        instruction=lambda p: (
            "Add a new target `stamp` at the end of the `Makefile` (working directory). Its only recipe line "
            f"must be exactly the text below, indented with one tab as make requires:\n\n{block(p)}\n\n"
            "The existing part of the Makefile must not change.\n"),
        reference=lambda p: ["tail -n 4 Makefile", f"printf '\\nstamp:\\n\\t%s\\n' {qt(p)} >> Makefile",
                             "tail -n 3 Makefile | cat -A"],
        subgoals=(("stamp_target", 0.2, "One `stamp:` target line."),
                  ("recipe_exact", 0.6, "The line after it is a tab plus the payload, byte-exact."),
                  ("only_appended", 0.2, "The original Makefile is an unchanged prefix; only these lines added.")),
        protected=(), critical=(),
        seed_params={"makefile": "APP, VERSION, which targets and their order"},
        variants=variants(
            "@echo build stamp written > stamp.txt",
            ('@echo "Built $(APP) at $$(date +%s)" > $@', "hard"),
            ("@printf '%s\\n' '$(VERSION)' > version.txt", "hard"),
            ("@test -n \"$${TOKEN}\" || { echo 'TOKEN missing!'; exit 1; }", "hard"),
            at=first_line(" # "),
        ),
    ),
    Family(
        op="awk-literal", tags=("awk", "string-literal"),
        instruction=lambda p: (
            "Write an awk program `tools/stamp.awk` (working directory). Run as `awk -f tools/stamp.awk FILE`, "
            "it must print one header line that is exactly the text below (every character as shown), then "
            f"every line of FILE unchanged.\n\n{block(p)}\n\nLeave `tools/count.awk` as it is.\n"),
        reference=lambda p: ["head -n 3 data/log.txt",
                             f"printf 'BEGIN {{ print \\042%s\\042 }}\\n{{ print }}\\n' {qt(awk_string(p))} "
                             "> tools/stamp.awk",
                             "awk -f tools/stamp.awk data/log.txt | head -n 3"],
        subgoals=(("program_runs", 0.1, "awk -f tools/stamp.awk exits 0 on the log."),
                  ("header_exact", 0.6, "The first output line equals the payload, for two inputs."),
                  ("lines_passed_through", 0.3, "The rest of the output equals the input, for two inputs (counted once the header is exact).")),
        protected=("tools/count.awk",), critical=(),
        seed_params={"log": "lines of data/log.txt"},
        variants=variants(
            "== nightly import report ==",
            ('He said "ship it" & it\'s done', "hard"),
            ("Total in $US: 100% (see `report`)", "hard"),
            ("C:\\reports\\new\\today.txt", "hard"),
        ),
    ),
    Family(
        op="printf-format", tags=("printf", "format-string"),
        instruction=lambda p: (
            "`bin/notify NAME COUNT` (working directory) prints one line using the printf format stored in "
            "`conf/notify.fmt`, with NAME and COUNT as its arguments. Store this format string in "
            f"`conf/notify.fmt`, exactly as written (it is a printf format, not the output):\n\n{block(p)}\n"),
        reference=lambda p: ["cat bin/notify", f"printf '%s' {qt(p)} > conf/notify.fmt", "bin/notify alice 3"],
        subgoals=(("format_stored", 0.5, "conf/notify.fmt holds the payload (a final newline is allowed)."),
                  ("output_matches", 0.5, "bin/notify prints what printf with the payload prints, for two samples.")),
        protected=("bin/notify", "conf/users"), critical=(),
        seed_params={"old": "the old format", "users": "conf/users"},
        variants=variants(
            "Hello %s, you have %d new messages",
            ("[%-8s] %5d%% done!", "medium"),
            ('%s: quota "$LIMIT" reached (%d%%) -- see `quota -v`', "hard"),
            ("%s\\t%d\\\\n items \\ 100%%", "hard"),
        ),
    ),
    Family(
        op="heredoc-file", tags=("heredoc", "exact-bytes"),
        instruction=lambda p: (
            "Replace `snippets/block.txt` (working directory) with the snippet below: exactly the lines of the "
            f"block, byte for byte, each ending with a newline. It is stored, not run.\n\n{block(p)}\n\n"
            "Leave `snippets/INDEX` alone.\n"),
        reference=lambda p: ["cat snippets/INDEX", heredoc("cat > snippets/block.txt", p), "cat -A snippets/block.txt"],
        subgoals=(("exact_bytes", 0.6, "snippets/block.txt equals the payload lines with newlines."),
                  ("lines_match", 0.3, "Fraction of lines equal to the payload's lines at their position."),
                  ("index_unchanged", 0.1, "snippets/INDEX unchanged (counted once the file is exact).")),
        protected=("snippets/INDEX",), critical=(),
        seed_params={"old": "outdated snippet", "index": "snippets/INDEX"},
        variants=variants(
            "#!/bin/sh\nset -e\necho starting migration\npsql -f migrate.sql\necho done",
            ("#!/bin/sh\ncat > /etc/app.conf <<EOF\nuser=$1\nhome=${HOME}\nEOF\necho \"wrote config\"", "hard"),
            ("Release notes:\nEOF\nEND\nPAYLOAD\n- it's 100% done!", "medium"),
            ("printf 'a\\tb\\n'\nx=`hostname`\nEOF\necho \"\\$HOME is $HOME\"", "hard"),
            at=last_line(" "),
        ),
    ),
    Family(
        op="odd-filename", tags=("filename", "touch"),
        instruction=lambda p: (
            "Create an empty file in `inbox/` (working directory) whose name is exactly the text below (every "
            f"character is part of the name):\n\n{block(p)}\n\nThe files already in `inbox/` stay as they are.\n"),
        reference=lambda p: ["ls -la inbox", f"touch {qt('inbox/' + p)}", "ls -la inbox"],
        subgoals=(("file_created", 0.6, "inbox/ holds an entry named exactly the payload."),
                  ("empty_regular_file", 0.1, "It is an empty regular file."),
                  ("nothing_else_changed", 0.3, "No other entry added, removed or changed.")),
        protected=(), critical=(),
        seed_params={"inbox": "names and contents of the existing files"},
        variants=variants(
            "quarterly report 2024.txt",
            ('it\'s "final" (v2).txt', "medium"),
            ("$HOME & `whoami`.txt", "medium"),
            ("*[draft]? !important.txt", "medium"),
            at=before_extension,
        ),
    ),
)
