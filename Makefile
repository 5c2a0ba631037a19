# `make demo` runs the whole pipeline offline on the embedded defaults; `make check` runs ruff and mypy --strict;
# `make test` runs check + tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv bytecode demo test test-fast check clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

venv: $(BIN)/.installed

# The package's own modules as bytecode, as a wheel install has them: with PYTHONDONTWRITEBYTECODE set (this
# machine sets it) an editable install compiles about 60 modules anew in every process, ~0.1 s of each
# `matchmeter run` (benchmarks/overhead.py). Incremental; task content (suite/, probes/) is left as it is.
bytecode: venv
	$(BIN)/python -m compileall -q -j0 -x '/tasks/(suite|probes)/' matchmeter >/dev/null

demo: bytecode
	$(BIN)/matchmeter demo

# mypy's cache lives outside the tree, so a fresh clone on a machine that ran it before checks only what changed
# (cold: about 2 CPU-minutes on the 2-core machine; warm: about 4 s). mypy checks every cached module against its
# source hash, so clones at other commits can share it.
MYPY_CACHE_DIR ?= $(HOME)/.cache/matchmeter/mypy

check: venv
	$(BIN)/ruff check matchmeter tests benchmarks scripts
	$(BIN)/mypy --cache-dir "$(MYPY_CACHE_DIR)" matchmeter

# loadgroup: tests spread over the workers one by one, except those sharing a session, module or class fixture of
# ours (a sandbox, built runs, a browser, installed CLIs), which tests/conftest.py groups onto one worker so it is made
# once. The thousands of host trials of the built-in suite spread too: each runs in a network namespace of its own
# (tests/tasks/harness.py), so two trials listening on one seeded port at once never answer each other's verifier.
test: check bytecode
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 3 --dist loadgroup --durations=25 $(PYTEST_ARGS)

# Everything not marked `slow` (no sandbox, Docker, CLI install, browser or suite-trial tests).
test-fast: check bytecode
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist loadgroup -m "not slow" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) runs demo-out
