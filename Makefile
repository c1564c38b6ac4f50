# The two commands of the README: `make demo` runs the main job, `make test` runs every check.
# Both create .venv on first use (Python 3.11 or newer as `python3`).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/hexpost demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine saves mail tui

unit: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/turn.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
