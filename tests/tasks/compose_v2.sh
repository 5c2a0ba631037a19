#!/usr/bin/env bash
# Make `docker compose` (Compose v2) work, which Harbor's `harbor run` drives: when it already answers, only
# say which version; otherwise install the CLI plugin from Debian trixie's docker-compose package (bookworm
# ships only the Python Compose v1) into ${DOCKER_CONFIG:-~/.docker}/cli-plugins. apt runs with its own
# sources list and state under a cache directory, so the host's apt configuration is untouched; the
# extracted plugin is cached there too, so a second install copies it and downloads nothing.
# Prints the `docker compose version` line; exits non-zero saying why (the tests that need it skip with that line).
set -euo pipefail
suite=${MM_COMPOSE_SUITE:-trixie}
cache="${XDG_CACHE_HOME:-$HOME/.cache}/matchmeter/compose-$suite"
plugin_dir="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
fail() { echo "compose_v2.sh: $*" >&2; exit 1; }
answers() { docker compose version 2>/dev/null | head -n 1 | grep -q 'v\?2\.'; }

command -v docker >/dev/null 2>&1 || fail "no docker CLI on PATH; install docker first"
if answers; then
  docker compose version | head -n 1
  exit 0
fi
if [ ! -x "$cache/docker-compose" ]; then
  command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 \
    || fail "docker compose v2 is missing and there is no apt-get/dpkg-deb to fetch Debian $suite's plugin; install docker-compose-plugin"
  work="$cache.tmp.$$"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/deb"
  echo "deb http://deb.debian.org/debian $suite main" >"$work/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State=$work/state" -o "Dir::Cache=$work/cache")
  # As root apt fetches and checks signatures as user _apt, which cannot write a /tmp that is not
  # world-writable (it is not on every CI machine); the signature check itself still runs.
  [ "$(id -u)" != 0 ] || apt_opts+=(-o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" -qq update >"$work/apt.log" 2>&1 \
    || fail "apt-get update of Debian $suite failed: $(tail -n 2 "$work/apt.log" | tr '\n' ' ')"
  (cd "$work/deb" && apt-get "${apt_opts[@]}" -qq download docker-compose) >"$work/apt.log" 2>&1 \
    || fail "apt-get download docker-compose ($suite) failed: $(tail -n 2 "$work/apt.log" | tr '\n' ' ')"
  dpkg-deb -x "$work"/deb/docker-compose_*.deb "$work/root"
  extracted="$work/root/usr/libexec/docker/cli-plugins/docker-compose"
  [ -x "$extracted" ] || fail "Debian $suite's docker-compose package has no usr/libexec/docker/cli-plugins/docker-compose"
  mkdir -p "$cache"
  # Renamed into place, so a parallel or interrupted run never leaves half a binary in the cache.
  cp "$extracted" "$cache/docker-compose.$$" && mv -f "$cache/docker-compose.$$" "$cache/docker-compose"
fi
mkdir -p "$plugin_dir"
cp "$cache/docker-compose" "$plugin_dir/docker-compose.$$" && mv -f "$plugin_dir/docker-compose.$$" "$plugin_dir/docker-compose"
answers || fail "installed $plugin_dir/docker-compose but \`docker compose version\` still fails: $(docker compose version 2>&1 | head -n 1)"
docker compose version | head -n 1
