# The two README commands: `make run` and `make test`. Each does its own set-up.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NET_STAMP := $(VENV)/.installed-network

.PHONY: run test test-all lint bench mutate clean lock

# Everything installed comes from a lock (exact versions and hashes, made by uv from
# pyproject.toml's bounds: `make lock`); the project itself is installed without resolving
# anything further. `make run` installs requirements-network.lock, the network's own part
# (about 160 MB); `make test` installs the whole requirements.lock, with the test, trainer
# and Ray extras (issue 35).
$(NET_STAMP): pyproject.toml requirements-network.lock
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements-network.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(NET_STAMP)

$(STAMP): pyproject.toml requirements.lock
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(NET_STAMP) $(STAMP)

run: $(NET_STAMP)
	bash .ci/ensure-system-packages
	$(BIN)/lemmata up

test: $(STAMP)
	bash .ci/ensure-system-packages
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -n 2 -m "not browser and not lean and not schemathesis"

test-all: $(STAMP)
	bash .ci/ensure-system-packages --browser
	$(BIN)/python -m pytest -n 2

lint: $(STAMP)
	$(BIN)/ruff check network tests benchmarks
	$(BIN)/mypy network
	$(BIN)/lint-imports --no-cache

# Mutation testing (issue 41): slow, never part of `make test`. mutmut mutates the modules
# [tool.mutmut] in pyproject.toml names and keeps its results in mutants/; the benchmark
# prints the kill rate per module. MUTANTS narrows the run to mutant names matching a glob,
# e.g. `make mutate MUTANTS='network.gate.lean.axioms*'`.
mutate: $(STAMP)
	$(BIN)/mutmut run $(MUTANTS)
	$(BIN)/python benchmarks/mutation_kill_rate.py

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

# Re-resolve requirements.lock after a change to pyproject.toml's dependencies (needs the
# package registry; uv is installed into a throwaway environment for it). uv does not look
# on disk by itself: --find-links /opt/wheels lets torch resolve to the CPU build there,
# --emit-find-links writes that folder into the lock for pip, and .ci/torch-cpu.txt keeps
# the universal lock on that build alone (no nvidia-* or triton).
lock:
	$(PY) -m venv .lock-tools && .lock-tools/bin/pip install --quiet 'uv>=0.13,<1'
	.lock-tools/bin/uv pip compile pyproject.toml .ci/build-requirements.in --extra test --extra trainer --extra ray \
	  --find-links /opt/wheels --emit-find-links --constraint .ci/torch-cpu.txt \
	  --python-version 3.11 --universal --generate-hashes --no-header -o requirements.lock
	rm -rf .lock-tools
	$(PY) scripts/network_lock.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info mutants
