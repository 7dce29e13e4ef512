VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test test-all test-slow test-adapters check lint format typecheck bench demo validate schemas clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	@# imported (untrusted) environments run in bubblewrap sandboxes: install it where we can
	@command -v bwrap >/dev/null || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  (apt-get install -y -qq bubblewrap || (apt-get update -qq && apt-get install -y -qq bubblewrap)) >/dev/null 2>&1; \
	  else echo "note: install bubblewrap (apt-get install bubblewrap) to run imported AWM environments"; fi; }
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/awm demo

validate: $(STAMP)
	$(VENV)/bin/awm validate

# every core (pytest-xdist); each test module stays whole on one worker (its module-scoped fixtures are built
# once, the README's blocks run in order)
XDIST ?= -n auto --dist loadscope
# tests start many Python processes (the CLI, servers, sandboxes): let them share compiled bytecode (and pytest
# its rewritten test modules) even where the environment sets PYTHONDONTWRITEBYTECODE; __pycache__ is ignored by git
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest

test: $(STAMP)
	$(PYTEST) $(XDIST)

test-all: $(STAMP)
	$(PYTEST) $(XDIST) -m "slow or not slow"

test-slow: $(STAMP)
	$(PYTEST) $(XDIST) -m slow

# the trainer adapters' smoke tests and README rows, each in a venv with its framework (their pins clash with one
# another's, and verifiers pins an mcp older than awm serve's MCP plane needs): .venv-openenv, .venv-skyrl, ...
ADAPTERS ?= openenv skyrl verl verifiers
EXTRAS_openenv := dev,train,openenv
EXTRAS_skyrl := dev,skyrl
EXTRAS_verl := dev,train,verl
EXTRAS_verifiers := dev
AFTER_verifiers := verifiers==0.4.0 datasets

.venv-%/.installed: pyproject.toml
	test -x .venv-$*/bin/python || python3 -m venv .venv-$*
	.venv-$*/bin/python -m pip install -q --upgrade pip
	.venv-$*/bin/python -m pip install -q -e ".[$(EXTRAS_$*)]"
	@# installed after awm, over its mcp pin: pip says so (the adapter does not use awm's MCP plane)
	$(if $(AFTER_$*),.venv-$*/bin/python -m pip install -q $(AFTER_$*) 2>&1 | grep -v "^ERROR: pip's dependency resolver\|^awm-gym .* requires mcp" || true)
	$(if $(AFTER_$*),.venv-$*/bin/python -c "import verifiers.v1")
	touch $@

test-adapters: $(foreach a,$(ADAPTERS),.venv-$(a)/.installed)
	@set -e; for a in $(ADAPTERS); do echo "== $$a"; \
	  env -u PYTHONDONTWRITEBYTECODE AWM_DOCS_VENV=$(CURDIR)/.venv-$$a HF_HUB_OFFLINE=1 GRADIO_ANALYTICS_ENABLED=False \
	    .venv-$$a/bin/python -m pytest -p no:cacheprovider -m "slow or not slow" \
	    tests/train/test_$${a}_adapter.py tests/test_docs.py -k "$${a}_adapter or use-with-your-trainer"; done

lint: $(STAMP)
	$(VENV)/bin/ruff check awm tests benchmarks examples
	$(VENV)/bin/ruff format --check awm tests benchmarks examples

format: $(STAMP)
	$(VENV)/bin/ruff format awm tests benchmarks examples
	$(VENV)/bin/ruff check --fix awm tests benchmarks examples

typecheck: $(STAMP)
	$(VENV)/bin/mypy

check: lint typecheck test

bench: $(STAMP)
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_gym.py
	$(PY) benchmarks/bench_serve.py
	$(PY) benchmarks/bench_step.py
	$(PY) benchmarks/bench_startup.py
	@echo "against AWM's released runtime (installs agent-world-model into ~/.cache/awm-bench once): $(PY) benchmarks/bench_vs_awm.py"
	@if $(PY) -c "import ray" 2>/dev/null; then $(PY) benchmarks/bench_dist.py; \
	else echo "bench_dist skipped: pip install -e '.[ray]'"; fi

schemas: $(STAMP)
	$(PY) -m awm.data.schema_export schemas

clean:
	rm -rf $(VENV) .venv-* .pytest_cache .mypy_cache .ruff_cache
