#!/usr/bin/env bash
# Verifier: writes $MM_LOGS/subgoals.json and $MM_LOGS/reward.txt (see verify.py).
exec python3 "${MM_TESTS:-$(dirname "$0")}/verify.py"
