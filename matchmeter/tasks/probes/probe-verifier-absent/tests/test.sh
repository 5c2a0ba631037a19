#!/usr/bin/env bash
# Verifier (grader revision mmgrader-51c0e7d2a94b): writes $MM_LOGS/subgoals.json, reward.txt and
# probe.json (see verify.py).
exec python3 "${MM_TESTS:-$(dirname "$0")}/verify.py"
