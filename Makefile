# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP) $@

run: $(STAMP)
	$(BIN)/battleship demo
	$(BIN)/battleship compare random hunt-target hunt-target-parity density best --games 1000000 --seed 1 --jobs $$(nproc) --figures out/compare

lint: $(TSTAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

test: $(TSTAMP) lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/layouts.py
	$(BIN)/python benchmarks/simulate.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .hypothesis
