"""Plausible wrong solutions get partial or no credit on exactly the subgoals they miss.

Each case is a mistake an agent really makes (unquoted heredoc, double-quoted `$`, copy instead of
move, history rewrite, nearest-rank percentile...); the verifier must notice it in the final state.
"""

from __future__ import annotations

import pytest

from matchmeter.tasks import load_tasks
from tests.tasks.harness import Trial

TASKS = {t.id: t for t in load_tasks([])}

CASES = {
    "exact-payload: unquoted heredoc expands and stops at EOF": (
        "exact-payload",
        ["cat > out/payload.sh <<EOF\n#!/bin/sh\necho \"Total: $TOTAL\"\nEOF\n"],
        {"exact_bytes": 0.0, "single_final_newline": 0.0},
    ),
    "exact-payload: missing final newline": (
        "exact-payload",
        ["python3 -c \"import sys; d=open(sys.argv[1]).read(); open('out/payload.sh','w').write(d.rstrip(chr(10)))\" "
         "\"$MM_TESTS_SRC/expected_payload.txt\""],
        # only lines that end in a newline count as matching lines (issue 32's final-newline trap): 6 of 7
        {"exact_bytes": 0.0, "lines_match": 6 / 7, "single_final_newline": 0.0},
    ),
    "profile-literal-line: double quotes expand $HOME and eat the backslash of \\$": (
        "profile-literal-line",
        ["echo \"export BACKUP_DIR=\\\"$HOME/backups\\daily\\\"\" >> config/profile.env",
         "echo \"export PS1='[\\u@\\h \\W]\\$ '\" >> config/profile.env"],
        {"backup_line": 0.0, "ps1_line": 0.0, "rest_unchanged": 0.0},
    ),
    "commit-special-message: -m with double quotes expands $PATH": (
        "commit-special-message",
        ["git -C notes add todo.md",
         "git -C notes commit -q -m \"Fix \\\"quoted\\\" $PATH handling & backticks\" -m 'body'"],
        # side conditions pay only once the core (the exact message) is right (issue 11)
        {"message_exact": 0.0, "subject_exact": 0.0, "todo_committed": 0.0, "scratch_left_out": 0.0},
    ),
    "commit-special-message: git add -A commits scratch.txt": (
        "commit-special-message",
        ["git -C notes add -A",
         "git -C notes commit -q -F \"$MM_TESTS_SRC/expected_message.txt\""],
        # every subgoal is gated on leaving scratch.txt out (issue 32's scratch-left-out trap)
        {"message_exact": 0.0, "todo_committed": 0.0, "scratch_left_out": 0.0},
    ),
    "git-revert-bad-commit: reset --hard drops history": (
        "git-revert-bad-commit",
        ["git -C service reset -q --hard $(git -C service log -S 'max_connections = 0' --format=%H | tail -n 1)^"],
        # The value is back, but not by a commit on top of the kept history: that is not the task.
        {"history_kept": 0.0, "setting_restored": 0.0, "other_changes_kept": 0.0},
    ),
    "git-revert-bad-commit: fixed in the working tree but not committed": (
        "git-revert-bad-commit",
        ["sed -i 's/max_connections = 0/max_connections = 100/' service/settings.ini"],
        {"history_kept": 0.0, "setting_restored": 0.0, "clean_tree": 0.0},
    ),
    "sort-inbox: copy instead of move": (
        "sort-inbox",
        ["cd inbox && for f in *; do case \"$f\" in *.*) d=$(echo \"${f##*.}\" | tr A-Z a-z);; *) d=no_extension;; esac;"
         " mkdir -p ../sorted/$d && cp -- \"$f\" ../sorted/$d/; done"],
        {"files_placed": 1.0, "contents_intact": 1.0, "inbox_empty": 0.0},
    ),
    "cleanup-old-tmp: right deletion, no report": (
        "cleanup-old-tmp",
        ["find build -type f -name '*.tmp' -mtime +7 -delete"],
        {"old_tmp_deleted": 1.0, "others_kept": 1.0, "report": 0.0},
    ),
    "json-config-edit: pool set to a string": (
        "json-config-edit",
        ["jq '.features.beta_search = true | .database.pool_size |= tostring | del(.. | .legacy_mode?)' "
         "config/app.json > c.json && mv c.json config/app.json"],
        {"flag_on": 1.0, "pool_doubled": 0.0, "legacy_removed": 1.0, "rest_unchanged": 1.0},
    ),
    "ini-to-json: everything as strings": (
        "ini-to-json",
        ["python3 -c 'import configparser, json; c = configparser.RawConfigParser(); c.read(\"conf/app.ini\");"
         " json.dump({s: dict(c[s]) for s in c.sections()}, open(\"conf/app.json\", \"w\"))'"],
        # every subgoal is gated on typing the values (issue 32's typed-values trap): strings only earn nothing
        {"valid_json": 0.0, "sections": 0.0, "typed_values": 0.0, "no_extra_keys": 0.0},
    ),
    "top-region-revenue: wrong region, no revenue file": (
        "top-region-revenue",
        ["mkdir -p answer && echo Nowhere > answer/region.txt"],
        {"region": 0.0, "revenue": 0.0},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrong_solution_loses_the_right_subgoals(case):
    task_id, commands, expected = CASES[case]
    with Trial(TASKS[task_id], 0) as trial:
        trial.setup()
        for command in commands:
            trial.bash(["-c", f"MM_TESTS_SRC={trial.task.path}/tests; {command}"])
        verdict = trial.verify()
    for name, score in expected.items():
        assert verdict.subgoals[name] == score, f"{case}: {name} = {verdict.subgoals[name]}\n{verdict.log}"
    assert verdict.reward_txt < 1.0


def test_ini_strings_earn_no_typed_credit():
    with Trial(TASKS["ini-to-json"], 1) as trial:
        trial.setup()
        trial.bash(["-c", "python3 -c 'import configparser, json; c = configparser.RawConfigParser();"
                          " c.read(\"conf/app.ini\"); json.dump({s: dict(c[s]) for s in c.sections()},"
                          " open(\"conf/app.json\", \"w\"))'"])
        verdict = trial.verify()
    # Strings happen to be right for the non-numeric options, but skipping the typing trap pays nothing (issue 32).
    assert verdict.subgoals["typed_values"] == 0.0


def test_latency_nearest_rank_misses_p95_and_with_it_the_error_rate():
    script = (
        "import csv, glob, gzip, json, math\n"
        "rows = []\n"
        "for n in glob.glob('logs/requests.log*'):\n"
        "    with (gzip.open if n.endswith('.gz') else open)(n, 'rt') as f:\n"
        "        rows += list(csv.DictReader(f))\n"
        "api = [r for r in rows if r['path'].startswith('/api/')]\n"
        "ok = sorted(float(r['latency_ms']) for r in api if r['status'].startswith('2'))\n"
        "p95 = ok[math.ceil(0.95 * len(ok)) - 1]\n"
        "err = sum(r['status'].startswith('5') for r in api) / len(api)\n"
        "json.dump({'p95_latency_ms': p95, 'error_rate': err}, open('answer.json', 'w'))\n"
    )
    misses = 0
    for seed in (0, 1, 2):
        with Trial(TASKS["latency-percentile"], seed) as trial:
            trial.setup()
            (trial.app / "nearest.py").write_text(script)
            trial.bash(["-c", "python3 nearest.py"])
            verdict = trial.verify()
        missed = verdict.subgoals["p95"] == 0.0
        # error_rate is gated on p95 (issue 32's linear-interpolation trap): a missed p95 takes it along
        assert verdict.subgoals["error_rate"] == (0.0 if missed else 1.0)
        misses += missed
    assert misses >= 2  # nearest rank can coincide with interpolation only by luck
