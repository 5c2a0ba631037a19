# `make demo` runs the whole pipeline offline on the embedded defaults; `make check` runs ruff and mypy --strict;
# `make test` runs check + tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv demo test check clean

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

test: check
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 3 --dist loadfile $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) runs demo-out
