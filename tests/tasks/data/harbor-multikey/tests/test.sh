#!/bin/bash
# Two reward keys: correctness (the greeting) and performance (the speedup as written, unclamped).
correctness=0
[ "$(cat /app/greeting.txt 2>/dev/null)" = hello ] && correctness=1
performance=$(grep -Eo '^[0-9]+(\.[0-9]+)?$' /app/speedup.txt 2>/dev/null | head -n 1)
printf '{"correctness": %s, "performance": %s}\n' "$correctness" "${performance:-0}" > /logs/verifier/reward.json
