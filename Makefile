# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
DSTAMP := $(VENV)/.installed-docs
# Debian packages the tests use: Chromium and a PostgreSQL server (the web app), Node.js (the arena's
# JavaScript example bot), bubblewrap (the sandbox the arena runs program bots in)
SYSTEM := chromium postgresql nodejs bubblewrap
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run compare test checks suite bytecode lint docs kernels bench clean system vendor bubblewrap

# uv installs what pip would, the same versions, in a fraction of the time (the test extra from a new venv
# in about 20 s against 74 s, where the whole of make test waited for it); pip where uv cannot be had or
# fails (uv reads no pip.conf: a machine that installs only from its own index or wheels gets pip).
# --compile-bytecode: the installed modules compiled once, as pip does by default. Without it a machine
# that sets PYTHONDONTWRITEBYTECODE compiled NumPy's, Numba's and the web stack's sources again in every
# process: `import numba` took 1.15 s of CPU against 0.35 s, `battleship --help` 0.5-0.7 s against 0.3 s
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	-$(BIN)/python -m pip install --quiet uv
INSTALL = BATTLESHIP_KERNELS=skip sh -c '$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e "$$0" \
	|| $(BIN)/python -m pip install --quiet -e "$$0"'

# everything: the core and every extra (the web app, the cluster, the environments, ratings, plots); the
# Numba kernels are compiled by the `kernels` target (beside the linters under `make test`), not by the install
$(STAMP): pyproject.toml | $(BIN)/python
	$(INSTALL) '.[all]'
	touch $@

# (the test extra holds every other: one install, where a second for the docs took another resolve and build)
$(TSTAMP): pyproject.toml | $(BIN)/python
	$(INSTALL) '.[test]'
	touch $(STAMP) $(DSTAMP) $@

# every Numba kernel compiled into the package (src/battleship/_kernels, as a wheel's build does): a few
# minutes of one core the first time, a second when they match the sources already
kernels: $(STAMP)
	$(BIN)/python -m battleship.lab.warmup --build

# the main job: the game, the calculator and the statistics in the browser (Ctrl-C stops it)
PORT ?= 8000
run: $(STAMP) kernels bubblewrap
	$(BIN)/battleship serve --host 127.0.0.1 --port $(PORT) --db sqlite:///battleship.db

# 000's comparison: the classic shooters and the best fast one on the same 1,000,000 layouts
# (best:fast=1: best's last-ship look-ahead would take hours over a million games)
compare: $(STAMP) kernels
	$(BIN)/battleship demo
	$(BIN)/battleship compare random hunt-target hunt-target-parity density best:fast=1 --games 1000000 --seed 1 --jobs $$(nproc) --figures out/compare

$(DSTAMP): pyproject.toml | $(BIN)/python
	$(INSTALL) '.[docs]'
	touch $@

# the documentation site into docs/_build/html, every warning an error (the API reference imports
# the whole package, so it needs what the tests install too)
docs: $(TSTAMP) $(DSTAMP)
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

# ruff, then mypy: the public API checked strictly, the rest with mypy's defaults (pyproject.toml)
lint: $(TSTAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src/battleship

system:
	@if ! command -v chromium >/dev/null || ! command -v node >/dev/null || ! command -v bwrap >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(SYSTEM); \
	fi

# the sandbox battleship arena runs program and class bots in (it refuses them without it)
bubblewrap:
	@command -v bwrap >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq bubblewrap; } \
		|| echo "note: bubblewrap is not installed, so battleship arena will refuse program and class bots"

# the kernels' build, then the suite, with lint and the docs' build beside them at a lower priority (neither
# needs the kernels nor the suite them): the suite waits for the kernels, so they get the cores first. The
# cores stay busy from start to end either way (vmstat: 1 to 2% idle over whole runs): this orders the
# work, it does not add cores
test: $(TSTAMP) system
	$(MAKE) --no-print-directory -j4 checks suite

checks: $(TSTAMP)
	nice -n 10 $(MAKE) --no-print-directory lint docs

# two workers more than the cores (pytest-xdist): from a fresh clone a 2-worker run kept 1.25 of 2 cores busy,
# a 3-worker one 1.38 and a 4-worker one about 1.57 (pytest 15:59 against 16:57), the rest waiting (servers
# starting, browsers, sandboxed bots), not computing; a test file to a worker: a document's commands, a
# module's fixtures stay together
suite: kernels bytecode
	$(BIN)/python -m pytest -n $$(( $$(nproc) + 2 )) --dist loadfile

# the package's and the tests' modules compiled to bytecode once: the suite starts many Python processes
# (commands, servers, bots), and where PYTHONDONTWRITEBYTECODE is set each compiled every module it imported
# again (0.4 s of CPU for one importing the web app and the commands)
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src tests benchmarks docs/_ext > /dev/null

bench: $(STAMP) kernels
	$(BIN)/python benchmarks/layouts.py
	$(BIN)/python benchmarks/simulate.py
	$(BIN)/python benchmarks/startup.py

# the statistics page's chart library and the API docs page's Swagger UI, from their npm packages
# (the sums are in each README there)
CHARTJS := src/battleship/web/static/vendor/chart.js
SWAGGER := src/battleship/web/static/vendor/swagger-ui
SWAGGER_FILES := swagger-ui-bundle.js swagger-ui.css favicon-32x32.png LICENSE NOTICE swagger-ui-bundle.js.LICENSE.txt
vendor:
	rm -rf .vendor && mkdir .vendor && cd .vendor && npm pack --silent chart.js@4.6.1 && tar xzf chart.js-4.6.1.tgz
	grep -q "$$(sha256sum .vendor/chart.js-4.6.1.tgz | cut -d' ' -f1)" $(CHARTJS)/README.md
	cp .vendor/package/dist/chart.umd.min.js .vendor/package/LICENSE.md $(CHARTJS)/
	grep -q "$$(sha256sum $(CHARTJS)/chart.umd.min.js | cut -d' ' -f1)" $(CHARTJS)/README.md
	rm -rf .vendor && mkdir .vendor && cd .vendor && npm pack --silent swagger-ui-dist@5.35.0 && tar xzf swagger-ui-dist-5.35.0.tgz
	grep -q "$$(sha256sum .vendor/swagger-ui-dist-5.35.0.tgz | cut -d' ' -f1)" $(SWAGGER)/README.md
	cd .vendor/package && cp $(SWAGGER_FILES) ../../$(SWAGGER)/
	for f in swagger-ui-bundle.js swagger-ui.css; do grep -q "$$(sha256sum $(SWAGGER)/$$f | cut -d' ' -f1)" $(SWAGGER)/README.md; done
	rm -rf .vendor

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .hypothesis docs/_build docs/_generated
