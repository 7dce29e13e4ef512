VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: install test check lint typecheck bench demo validate schemas clean

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip

install: $(PY)
	$(PIP) install -q -e ".[dev]"

demo: install
	$(VENV)/bin/awm demo

validate:
	$(VENV)/bin/awm validate

test:
	$(PY) -m pytest

lint:
	$(VENV)/bin/ruff check awm tests benchmarks
	$(VENV)/bin/ruff format --check awm tests benchmarks

typecheck:
	$(VENV)/bin/mypy

check: lint typecheck test

bench:
	$(PY) benchmarks/bench_core.py

schemas:
	$(PY) -m awm.schema_export schemas

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
