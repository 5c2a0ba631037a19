#!/usr/bin/env bash
# A quoting task's cheap shot, built at check time from the task's own oracle: `as_shown.sh SOLVE_SH` runs
# SOLVE_SH (cwd = the seeded workspace) while the file TICKET holds the literal marker {ticket}, so each
# `$(cat TICKET)` of the reference path leaves the marker where the instruction shows it: the text typed
# verbatim, as a command memorised from the instruction would. TICKET is restored afterwards.
set -uo pipefail
solve=${1:?usage: as_shown.sh SOLVE_SH (a check passes $ORACLE_SH, which tests/tasks/harness.py sets)}
saved=$(mktemp)
cp -p TICKET "$saved"
trap 'cp -p "$saved" TICKET; rm -f "$saved"' EXIT
printf '%s\n' '{ticket}' > TICKET
bash "$solve"
