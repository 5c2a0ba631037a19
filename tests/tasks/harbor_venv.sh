#!/usr/bin/env bash
# Print the path of a Python with Harbor installed (the real `harbor lint` and Harbor's own pydantic task
# and ATIF models), creating the cached venv on first use: `export MM_HARBOR_PYTHON=$(tests/tasks/harbor_venv.sh)`.
# Harbor needs Python >= 3.12; the venv is keyed by Harbor's version and built beside, then renamed into
# place, so a parallel or interrupted run never leaves a half-installed one. Exits non-zero saying why.
# `--cached`: only print the venv's Python when it is already there (the tests' fallback; installs nothing).
set -euo pipefail
version=${MM_HARBOR_VERSION:-0.26.0}
venv="${XDG_CACHE_HOME:-$HOME/.cache}/matchmeter/harbor-$version"
if [ -x "$venv/bin/python" ]; then  # renamed into place only once harbor imported
  echo "$venv/bin/python"
  exit 0
elif [ "${1:-}" = --cached ]; then
  echo "harbor_venv.sh: no cached harbor $version venv at $venv; run tests/tasks/harbor_venv.sh to create it" >&2
  exit 1
fi
python=""
for candidate in python3.13 python3.12 "$HOME"/.pyenv/versions/3.13*/bin/python "$HOME"/.pyenv/versions/3.12*/bin/python; do
  if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
    python=$(command -v "$candidate")
    break
  fi
done
if [ -z "$python" ]; then
  echo "harbor_venv.sh: no Python >= 3.12 found (harbor $version needs one); install python3.12" >&2
  exit 1
fi
tmp="$venv.tmp.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$tmp"
if ! "$tmp/bin/python" -m pip install -q --disable-pip-version-check "harbor==$version" >"$tmp.log" 2>&1; then
  echo "harbor_venv.sh: pip install harbor==$version failed: $(tail -n 3 "$tmp.log" | tr '\n' ' ')" >&2
  rm -f "$tmp.log"
  exit 1
fi
rm -f "$tmp.log"
# venv's python finds its site-packages through pyvenv.cfg beside bin/, so the renamed venv works as is
# (only pip's console-script shebangs name the temp path; callers use `python -m` / `python -c`).
"$tmp/bin/python" -c 'import harbor'
mv -T "$tmp" "$venv" 2>/dev/null || rm -rf "$tmp"  # another run won the race: use its venv
echo "$venv/bin/python"
