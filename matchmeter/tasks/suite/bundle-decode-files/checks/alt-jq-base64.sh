#!/usr/bin/env bash
# why: jq, base64 -d and printf in bash instead of a Python script
set -euo pipefail
n=$(jq '.files | length' bundle.json)
for ((i = 0; i < n; i++)); do
  path=$(jq -r ".files[$i].path" bundle.json)
  mkdir -p "unpacked/$(dirname "$path")"
  if [ "$(jq -r ".files[$i].encoding" bundle.json)" = base64 ]; then
    jq -r ".files[$i].content" bundle.json | base64 -d > "unpacked/$path"
  else
    printf '%b' "$(jq -r ".files[$i].content" bundle.json | sed 's/../\\x&/g')" > "unpacked/$path"
  fi
  chmod "$(jq -r ".files[$i].mode" bundle.json)" "unpacked/$path"
done
