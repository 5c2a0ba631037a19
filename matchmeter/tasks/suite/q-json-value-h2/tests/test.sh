#!/usr/bin/env bash
# Verifier: writes $MM_LOGS/subgoals.json and $MM_LOGS/reward.txt. The family's one verifier
# (suite/_shared/quoting/verify_json_value.py) is placed beside this file at verify time.
exec python3 "${MM_TESTS:-$(dirname "$0")}/verify_json_value.py"
