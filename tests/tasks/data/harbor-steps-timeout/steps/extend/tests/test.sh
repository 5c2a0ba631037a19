#!/bin/bash
# reward: the file is exactly hello + world; lines: how many lines it has (a second key, unclamped).
reward=0
[ "$(cat /app/notes.txt 2>/dev/null)" = "$(printf 'hello\nworld')" ] && reward=1
lines=$(wc -l < /app/notes.txt 2>/dev/null || echo 0)
printf '{"reward": %s, "lines": %s}\n' "$reward" "$lines" > /logs/verifier/reward.json
