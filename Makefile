# The two commands of the README: `make demo` and `make test`. Both work from a fresh clone
# with only Python 3.11 and the package registries.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo bench setup-test-tools lint clean transcripts catalogues

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# Test-only tools (the MCP Inspector CLI from npm, a PostgreSQL server): every script in
# tests/setup/ runs in name order; each is idempotent and fast when already done.
setup-test-tools: $(STAMP)
	@for script in tests/setup/*.sh; do [ -e "$$script" ] || continue; bash "$$script" || exit 1; done

# ruff and mypy (config in pyproject.toml: strict over the package and the tests) run before the tests.
lint: $(STAMP)
	$(BIN)/ruff check formspec_consult tests
	$(BIN)/mypy

test: setup-test-tools lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/formspec-consult demo

# Re-record transcripts-example/ by running our engine with the scripted provider.
transcripts: $(STAMP)
	$(BIN)/python transcripts-example/generate.py

# The message catalogues (formspec_consult/i18n/locale/): extract the marked strings, update every
# language's .po, compile the .mo the program reads. See docs/translating.md.
catalogues: $(STAMP)
	$(BIN)/python -m formspec_consult.i18n.catalogues

bench: $(STAMP)
	$(BIN)/python bench/run.py $(BENCH)

clean:
	rm -rf $(VENV) build dist .pytest_cache tests/.tools
