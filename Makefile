# `make demo` runs the whole pipeline offline on the embedded defaults; `make check` runs ruff and mypy --strict;
# `make test` runs check + tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv demo test test-fast check clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

venv: $(BIN)/.installed

demo: venv
	$(BIN)/matchmeter demo

check: venv
	$(BIN)/ruff check matchmeter tests benchmarks scripts
	$(BIN)/mypy matchmeter

# loadfile: each test file runs on one worker. `--dist loadgroup` (tests/conftest.py marks the groups) finished the
# suite sooner but spread the host trials of the service tasks over workers, where two of them listened on the same
# seeded port at once and answered each other's verifier; until those trials get ports of their own, files stay whole.
test: check
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 3 --dist loadfile $(PYTEST_ARGS)

# Everything not marked `slow` (no sandbox, Docker, CLI install, browser or suite-trial tests).
test-fast: check
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile -m "not slow" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) runs demo-out
