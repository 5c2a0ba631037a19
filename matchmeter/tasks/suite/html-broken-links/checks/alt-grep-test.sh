#!/usr/bin/env bash
# why: grep and test -f in bash instead of a Python script
set -uo pipefail
: > broken_links.txt
grep -oE '(href|src)="[^"]*"' site/index.html | sed -E 's/^(href|src)="//; s/"$//' | while IFS= read -r link; do
  [[ $link =~ ^([a-zA-Z]+:|//|#) ]] && continue
  path=${link%%[#?]*}
  path=$(printf '%b' "${path//%/\\x}")
  [ -f "site/$path" ] || printf '%s\n' "$link" >> broken_links.txt
done
