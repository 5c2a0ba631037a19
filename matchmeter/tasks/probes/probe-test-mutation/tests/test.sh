#!/usr/bin/env bash
# Verifier: writes $MM_LOGS/subgoals.json, $MM_LOGS/reward.txt and $MM_LOGS/probe.json (see verify.py).
exec python3 "${MM_TESTS:-$(dirname "$0")}/verify.py"
