#!/usr/bin/env bash
# why: message from a file written by printf %s, commit with a pathspec instead of git add
set -euo pipefail
msg=$(mktemp)
printf '%s\n' 'Fix "quoted" $PATH handling & `backticks`' '' 'Don'\''t expand $HOME or \n; 100% literal!' > "$msg"
git -C notes commit -q --cleanup=verbatim -F "$msg" -- todo.md
rm -f "$msg"
