# hidekit — every target creates the virtual environment it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test lint format bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

setup: $(STAMP)
	@bash scripts/ensure-chromium.sh || echo "note: headless Chromium not available; browser tests will be skipped"

demo: $(STAMP)
	$(BIN)/hidekit demo --out demo-output --overwrite

test: setup
	$(BIN)/python -m ruff check src tests benchmarks scripts
	$(BIN)/python -m ruff format --check src tests benchmarks scripts
	$(BIN)/python -m mypy
	HIDEKIT_DOCS_EXAMPLES=1 $(BIN)/python -m pytest -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/python -m ruff check src tests benchmarks scripts
	$(BIN)/python -m ruff format --check src tests benchmarks scripts
	$(BIN)/python -m mypy

format: $(STAMP)
	$(BIN)/python -m ruff format src tests benchmarks scripts
	$(BIN)/python -m ruff check --fix src tests benchmarks scripts

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache
