# ReasonScope: `make run` opens the app, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
XVFB := xvfb-run -a -s "-screen 0 1280x1024x24"

.PHONY: run test screenshots bench mutants lint format system-deps desktop-install clean

system-deps:
	@PYTHON=$(PYTHON) sh scripts/system-deps.sh

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps: reinstall only when the project's requirements change.
$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed-app
	$(BIN)/python -m pip install --quiet -e ".[test,cluster,rerun,hf]"
	@touch $@

run: system-deps $(VENV)/.installed-app
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ]; then \
		echo "No display: run 'xvfb-run make run' for a virtual one, or 'make screenshots' for PNGs of every mode."; \
	else \
		QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-xcb} $(BIN)/reasonscope $(ARGS); \
	fi

test: system-deps $(VENV)/.installed-test
	QT_QPA_PLATFORM=xcb $(BIN)/python -m pytest $(PYTEST_ARGS)

screenshots: system-deps $(VENV)/.installed-app
	rm -rf build/screenshots
	QT_QPA_PLATFORM=xcb $(XVFB) $(BIN)/python -m app.screenshots build/screenshots

# The bench measures the Ray and Rerun cases too: it installs those extras (without them, those
# cases report "skipped" with the pip line and the others still run).
$(VENV)/.installed-cluster: pyproject.toml $(VENV)/.installed-app
	$(BIN)/python -m pip install --quiet -e ".[cluster,rerun]"
	@touch $@

bench: system-deps $(VENV)/.installed-cluster
	$(BIN)/reasonscope bench $(ARGS)

# Mutation testing of the rules (not part of `make test`): mutmut mutates the modules listed in
# pyproject.toml's [tool.mutmut], runs their tests against each mutant, and the report lists the
# survivors (build/mutants/report.txt); it fails while a survivor is neither killed nor listed in
# tests/mutants-equivalent.txt. mutmut works in mutants/ (git-ignored); every run starts afresh,
# since mutmut does not re-test a survivor when only the tests changed. docs/development.md
$(VENV)/.installed-mutants: pyproject.toml $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e ".[mutants]"
	@touch $@

mutants: $(VENV)/.installed-mutants
	rm -rf mutants
	$(BIN)/mutmut run --max-children 2
	$(BIN)/python scripts/mutants_report.py build/mutants/report.txt

# Double-click opens .rspack packages and .reasonscope projects in the app (this user).
desktop-install: $(VENV)/.installed-app
	mkdir -p $(HOME)/.local/share/applications $(HOME)/.local/bin
	ln -sf $(abspath $(BIN)/reasonscope) $(HOME)/.local/bin/reasonscope
	cp resources/desktop/reasonscope.desktop $(HOME)/.local/share/applications/
	xdg-mime install --novendor resources/desktop/reasonscope-mime.xml
	xdg-mime default reasonscope.desktop application/x-reasonscope-package application/x-reasonscope-project

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: $(VENV)/.installed-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf build mutants $(VENV) *.egg-info .pytest_cache .ruff_cache
