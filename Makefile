# The two README commands: `make run` and `make test`. Each does its own set-up.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-all lint bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	bash .ci/ensure-system-packages
	$(BIN)/lemmata up

test: $(STAMP)
	bash .ci/ensure-system-packages
	$(BIN)/python -m pytest -n 2 -m "not browser and not lean and not schemathesis"

test-all: $(STAMP)
	bash .ci/ensure-system-packages --browser
	$(BIN)/python -m pytest -n 2

lint: $(STAMP)
	$(BIN)/ruff check network tests benchmarks
	$(BIN)/mypy network

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
