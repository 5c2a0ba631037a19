#!/usr/bin/env bash
# Seeds a Makefile with seeded variables and targets (order, names, recipes vary by seed).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
app = rng.choice(["atlas", "cinder", "dune"])
targets = {"build": ["go build -o bin/$(APP) ./cmd/$(APP)"], "test": ["go test ./..."],
           "lint": ["golangci-lint run"], "clean": ["rm -rf bin/"], "fmt": ["gofmt -w ."]}
names = rng.sample(list(targets), 4)
out = [f"APP := {app}", f"VERSION := {rng.randint(1, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 20)}", "",
       ".PHONY: " + " ".join(names), ""]
for name in names:
    out += [f"{name}:"] + [f"\t{step}" for step in targets[name]] + [""]
Path("Makefile").write_text("\n".join(out).rstrip("\n") + "\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
