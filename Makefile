# Warfield: `make run` to play, `make test` to check everything.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
PIP    := $(BIN)/python -m pip install --disable-pip-version-check -q -c constraints.txt

.PHONY: run test lint jscheck bench lock clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Warfield needs Python 3.11 or newer"'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e .
	@touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[dev]'
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/warfield serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev
	@$(MAKE) --no-print-directory lint
	$(BIN)/pytest
	@if [ -d static/tests ]; then node --test static/tests/; fi

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check server tests bench
	$(BIN)/mypy server
	@$(MAKE) --no-print-directory jscheck

# The browser client's type check (jsconfig.json: checkJs, strict). TypeScript is the one
# devDependency in package.json, installed from the lock file; no build step, nothing emitted.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

jscheck:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory node_modules/.installed && node_modules/.bin/tsc --noEmit -p jsconfig.json && echo "tsc: static/js type-checks clean"; \
	else \
	  echo "jscheck: SKIPPED — node and npm are not installed, so static/js was not type-checked (CI has them)"; \
	fi

bench: $(VENV)/.installed-dev
	$(BIN)/warfield bench geometry

lock: $(VENV)/.installed-dev
	@echo "# Pinned versions for a reproducible install (pip install -c constraints.txt -e '.[dev]')." > constraints.txt
	@echo "# Regenerate with: make lock" >> constraints.txt
	$(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e' >> constraints.txt

clean:
	rm -rf $(VENV) var .pytest_cache node_modules
