# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Both create and fill the virtual environment in .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-fast test-js lint format-check bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/duelhall serve

test: $(STAMP)
	$(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not browser and not multiprocess and not slow"

# The browser-side unit tests (static/ws.js, the rule helpers, i18n) under Node's own runner.
test-js:
	node --test tests/js/

# Cheap static checks (seconds): CI runs them before the tests.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# Not in CI yet: the tree has not been through the formatter (one reformat, at a quiet moment).
format-check: $(STAMP)
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	$(PY) bench/live.py

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
