#!/bin/bash
# The state comes from the image: /app/state.txt and /opt/task/marker are written by the Dockerfile.
if [ "$(cat /app/answer.txt 2>/dev/null)" = "robrah" ] && [ "$(cat /opt/task/marker 2>/dev/null)" = "baked" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
