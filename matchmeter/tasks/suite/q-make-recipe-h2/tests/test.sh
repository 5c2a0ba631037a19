#!/usr/bin/env bash
# Verifier: writes $MM_LOGS/subgoals.json and $MM_LOGS/reward.txt. The family's one verifier
# (suite/_shared/quoting/verify_make_recipe.py) is placed beside this file at verify time.
exec python3 "${MM_TESTS:-$(dirname "$0")}/verify_make_recipe.py"
