#!/usr/bin/env bash
# why: the visible half: todo.md committed alone with only the subject line as message
set -uo pipefail
git -C notes add todo.md
git -C notes commit -q -m 'Fix "quoted" $PATH handling & `backticks`'
