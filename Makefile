# Two commands on a fresh machine: `make inspect` and `make test`.
# Each creates .venv and installs the project into it first if needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: inspect test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

inspect: $(STAMP)
	$(VENV)/bin/semaprax-inspect

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n auto

bench: $(STAMP)
	$(VENV)/bin/semaprax bench codec

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
