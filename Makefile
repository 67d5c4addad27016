# Two commands on a fresh machine with Python 3.11+:
#   make demo   -- set up, start the embedded database, load a sample month, print the answers
#   make test   -- set up and run lint, types and the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# Runtime pins and the package (editable) for `demo`; the test tools on top for the rest.
STAMP      := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# The real aw-server that tests compare TimeTrace with, in a virtualenv of its own (it
# needs Flask < 2.3); aw-core (the door's query engine) and aw-client go into .venv
# without their dependencies (requirements-aw.lock says why).
AW_VENV    := .aw-venv
AW_STAMP   := $(AW_VENV)/.installed

.PHONY: install demo test test-fast test-fresh lint typecheck pytest browser bench docs clean

# app/__init__.py holds the version: a new one reinstalls the package metadata.
$(STAMP): pyproject.toml setup.py requirements.lock requirements-aw.lock app/__init__.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "TimeTrace needs Python 3.11+")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.lock
	$(PIP) --no-deps -r requirements-aw.lock
	$(PIP) --no-deps -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) requirements-test.lock
	$(PIP) -r requirements-test.lock
	touch $(TEST_STAMP)

$(AW_STAMP): requirements-aw-server.lock
	test -x $(AW_VENV)/bin/python || $(PYTHON) -m venv $(AW_VENV)
	$(AW_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-aw-server.lock
	touch $(AW_STAMP)

install: $(TEST_STAMP) $(AW_STAMP)

demo: $(STAMP)
	$(BIN)/timetrace demo

lint: $(TEST_STAMP)
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench

typecheck: $(TEST_STAMP)
	$(BIN)/mypy app

# Two pytest workers (pytest-xdist), each with its own embedded server: the suite mostly
# waits (on subprocesses, sockets, PostgreSQL), so on 2 cores this takes about 2/3 of
# one process's time. `make test PYTEST_WORKERS=0` runs it in one process.
# Tests go to whichever worker asks (xdist's default `load`), in the order of their file
# names across the tiers (tests/conftest.py says why). Grouping by template recipe or by file (`loadgroup`,
# `loadfile`) would save a worker a template build of a few seconds, but 146 tests in
# 14 files (the 40 s API fuzz among them) start from the sample month: one worker would
# end long after the other.
PYTEST_WORKERS ?= 2

pytest: $(TEST_STAMP) $(AW_STAMP)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS)

# The pure tier (tests/unit: no database, no process, no socket) in one process, for the
# edit-and-test loop. It needs neither xdist nor the API fuzzer's plugin: leaving them
# out saves a second of start-up.
test-fast: $(TEST_STAMP)
	$(BIN)/pytest -q -p no:xdist -p no:schemathesis -m "not heavy" tests/unit

# The browser tests need Chromium and CJK fonts: installed where this can (root, apt),
# otherwise a one-line instruction before the suite (.ci/browser-check).
browser:
	.ci/browser-check

test: browser lint typecheck pytest

# A fresh machine's first `make test`, simulated in a private mount namespace (root):
# no embedded_postgres OS user, an empty /tmp, the server's binaries closed; a small
# subset on two workers whose first tests both start a server (.ci/fresh-machine-check).
test-fresh: browser $(TEST_STAMP) $(AW_STAMP)
	.ci/fresh-machine-check

# The generated references (tests in tests/unit fail when one is stale): the tools from
# the registry, the commands from their --help, the settings from app/settings.py.
docs: $(STAMP)
	$(BIN)/python -m app.tools.reference > docs/tools.md
	$(BIN)/python -m app.cli.reference docs

bench: $(TEST_STAMP)
	$(BIN)/python bench/ingest.py

clean:
	rm -rf $(VENV) $(AW_VENV) .pytest_cache .mypy_cache .ruff_cache
