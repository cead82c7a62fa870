PYTHON ?= python3
VENV := .venv
# Stamp file: re-install whenever pyproject.toml is newer than the last install.
STAMP := $(VENV)/.installed

.PHONY: install run test bench clean clean-cache

install: $(VENV)

# `.venv` itself is a directory whose mtime pip does not reliably bump, so it is
# an alias for the stamp rather than a target of its own.
.PHONY: $(VENV)
$(VENV): $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV)/bin/python -m pip install -e '.[test,dask,rl]'
	touch $@

# The default batch: the evaluating built-in strategies and greedy against each other at a
# four-player table, seats rotated: about a minute on 2 cores. Then the HTML report of the
# batch; its path is the last line printed.
RUN_GAMES ?= 100000
run: install
	@out=results/run-$$(date +%Y%m%d-%H%M%S) && \
	$(VENV)/bin/encore-sim run --games $(RUN_GAMES) --players 4 -s learned -s lookahead -s heuristic -s greedy \
	    --out "$$out" && \
	$(VENV)/bin/encore-sim report "$$out"

test: install
	$(VENV)/bin/python -m pytest -q -n auto --durations=15

# BENCH: the benchmark's options, e.g. make bench BENCH='--training --record docs/bench.json'.
bench: install
	$(VENV)/bin/python -m bench.bench $(BENCH)

# Keeps .venv and results/; removes build output and caches (including numba's).
clean:
	rm -rf build dist *.egg-info .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

# Compiled kernels live in one folder per version of each source file and what it imports
# (sim/numba_cache.py); old versions are never reused, so this removes them all (the next
# run recompiles, ~30 s).
clean-cache:
	rm -rf "$${NUMBA_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/numba}"/encore-sim*
