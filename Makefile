# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Both create and fill the virtual environment in .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-fast bench clean

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
	$(PY) -m pytest -q -m "not browser and not multiprocess"

bench: $(STAMP)
	$(PY) bench/live.py

clean:
	rm -rf $(VENV) data .pytest_cache
