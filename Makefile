# The two commands of the README: `make demo` runs the main job, `make test` runs every check.
# Both create .venv on first use (Python 3.11 or newer as `python3`).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-full lint typecheck unit bench clean

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
	$(BIN)/mypy --strict engine saves mail tui tests
	$(BIN)/mypy --strict --explicit-package-bases bench

# The suite on three workers, one test file per worker at a time (a file's module fixtures stay
# in one process). tests/conftest.py hands the heaviest files out first; --no-loadscope-reorder
# keeps that order (xdist would sort the files by their number of tests instead). Bytecode is
# written (PYTHONDONTWRITEBYTECODE emptied): the tests start hundreds of `hexpost` processes,
# and each would otherwise compile the project again. Three workers on two cores: the app
# tests spend part of their time asleep (Textual's pilot waits for the app to go idle after
# every key), so two workers kept the two cores only 171 % busy (of 200 %); the third fills
# those gaps. WORKERS=2 gives one worker per core, for a machine others are using too.
WORKERS ?= 3
# --durations lists the slowest tests at the end of every run, so the suite's time (kept
# under about six minutes on two cores) can be watched from any CI log.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder --durations=15

unit: $(STAMP)
	$(PYTEST)

# Lint first, so a slip of style fails in seconds. The type check then runs beside the suite:
# mypy is one process (43 s without its cache on a clean clone here, beside other work), and
# the suite's workers leave part of two cores idle while the app tests wait on Textual, which
# mypy fills; one after the other, the suite waited for it. A type error still fails `make
# test`, once the suite ends (`make typecheck` alone says it in under a minute).
test: lint
	@$(MAKE) --no-print-directory -j2 typecheck unit

# As `make test`, with the crash loops at their full count (--full; see tests/conftest.py).
test-full: lint typecheck
	$(PYTEST) --full

bench: $(STAMP)
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/turn.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
