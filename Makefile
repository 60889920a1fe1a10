# Lexio — one Makefile for set-up, tests, lint and running everything locally.
# `make test` on a fresh machine needs only Python 3.11 and make (and Node.js for the web
# client's checks, which `make node` installs from Debian when it runs as root).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PROTOS := $(shell find proto -name '*.proto')
STAMP_DEPS := $(VENV)/.deps
STAMP_GEN := gen/.stamp
STAMP_INSTALL := $(VENV)/.installed
# The Arabic word list is built (not committed: 199 MB as text) from the shipped hunspell
# files into build/lexicon/; the stamp makes a second `make setup` skip it (~30 s).
LEXICON_DATA := services/lexicon/lexio_lexicon/data
LEXICON_BUILT := build/lexicon
STAMP_LISTS := $(LEXICON_BUILT)/.stamp
LEXICON_BUILDER := $(LEXICON_DATA)/ar.aff $(LEXICON_DATA)/ar.dic \
	$(addprefix services/lexicon/lexio_lexicon/,arabic_list.py expand.py hunspell.py normalise.py cache.py build_lists.py)

.PHONY: setup test test-slow coverage lint lint-js node fmt run bench clean wordlist wordlist-en wordlist-ar browser redis prometheus load load-750 load-prod load-3000 load-kill load-rollout soak \
	images images-push image-tools lock monitoring-operator screenreader

setup: $(STAMP_INSTALL) $(STAMP_LISTS)

# requirements.txt is a lock (every version with its hashes: `make lock`); nothing unhashed
# or unlocked is installed.
$(STAMP_DEPS): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.txt
	touch $@

# Stubs are generated with the pinned grpcio-tools, never edited by hand.
$(STAMP_GEN): $(STAMP_DEPS) $(PROTOS)
	rm -rf gen && mkdir -p gen
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m grpc_tools.protoc -I proto \
		--python_out=gen --grpc_python_out=gen \
		--mypy_out=quiet:gen --mypy_grpc_out=quiet:gen $(PROTOS)
	find gen -type d -exec touch {}/__init__.py \;
	rm -f gen/__init__.py
	touch $@

$(STAMP_INSTALL): $(STAMP_GEN) pyproject.toml
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# Order-only on the install: reinstalling the package does not rebuild the list.
$(STAMP_LISTS): $(LEXICON_BUILDER) | $(STAMP_INSTALL)
	$(BIN)/python -m lexio_lexicon.build_lists
	touch $@

lint: setup lint-js
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy services tests bench deploy

# The web client's JavaScript: TypeScript's checker over its JSDoc types (tsconfig.json, no
# output: the browser loads the modules as they are) and ESLint (eslint.config.js), both pinned
# by package-lock.json and installed into node_modules/ by `npm ci`.
STATIC_JS := services/gateway/lexio_gateway/static/js
STAMP_NODE := node_modules/.stamp

$(STAMP_NODE): package.json package-lock.json | node
	npm ci --no-audit --no-fund
	touch $@

lint-js: $(STAMP_NODE)
	node_modules/.bin/tsc -p tsconfig.json
	node_modules/.bin/eslint $(STATIC_JS)

# Node.js and npm, for lint-js: CI runs as root and installs Debian's when they are missing
# (bookworm's Node 18.20 runs the pinned tools); elsewhere, install them yourself.
node:
	@if command -v node >/dev/null && command -v npm >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm; \
	else echo "Node.js or npm is missing: sudo apt-get install nodejs npm" >&2; exit 1; fi

fmt: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The browser tests drive Debian's Chromium (never a downloaded browser): its headless shell,
# the build Playwright itself runs headless (a third less CPU than the full browser over the
# browser tests: docs/testing.md). CI runs as root and installs it when it is missing;
# elsewhere, install the `chromium-headless-shell` package yourself.
HEADLESS_SHELL := /usr/lib/chromium/chromium-headless-shell
browser:
	@if [ -x $(HEADLESS_SHELL) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell fonts-noto-core; \
	else echo "Chromium's headless shell is missing: sudo apt-get install chromium-headless-shell" >&2; exit 1; fi

# The Redis backend's tests start Debian's redis-server on a free loopback port; the ops tests
# run Debian's Redis exporter against it (what the Redis alerts read).
redis:
	@if command -v redis-server >/dev/null && command -v prometheus-redis-exporter >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			redis-server prometheus-redis-exporter \
		&& { for s in redis-server prometheus-redis-exporter; do service $$s stop; update-rc.d $$s disable; \
			systemctl disable $$s; done; true; } >/dev/null 2>&1; \
	else echo "redis-server or its exporter is missing: sudo apt-get install redis-server prometheus-redis-exporter" >&2; exit 1; fi

# The ops tests run Debian's promtool and a prometheus server of their own on loopback.
prometheus:
	@if command -v promtool >/dev/null && command -v prometheus >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus \
		&& { service prometheus stop; update-rc.d prometheus disable; systemctl disable prometheus; true; } >/dev/null 2>&1; \
	else echo "Prometheus is missing: sudo apt-get install --no-install-recommends prometheus" >&2; exit 1; fi

# The default suite on parallel workers (pytest-xdist), each test file on one worker so that a
# module's fixtures are made once; each worker hands out ports from a slice of its own
# (tests/conftest.py). docs/testing.md says how the suite is organised and how to run a part.
TEST_WORKERS ?= 4
DEFAULT_SUITE := -m "not slow" -n $(TEST_WORKERS) --dist loadfile
test: setup lint browser redis prometheus
	$(BIN)/pytest $(DEFAULT_SUITE) --durations=20

# Line coverage of services/ over the default suite, the services' own processes included
# (pyproject.toml's [tool.coverage]); the report in build/coverage/.
coverage: setup browser redis prometheus
	rm -rf build/coverage && mkdir -p build/coverage
	$(BIN)/coverage run -m pytest $(DEFAULT_SUITE) -p no:cacheprovider
	$(BIN)/coverage combine
	$(BIN)/coverage report --format=total > build/coverage/total.txt
	$(BIN)/coverage json -o build/coverage/coverage.json
	$(BIN)/coverage report --skip-covered --sort=miss | tail -40

test-slow: setup image-tools redis prometheus screenreader
	$(BIN)/pytest -m slow

# The screen reader tests (tests/screenreader/, marked slow): Orca reading Debian's full Chromium
# (not headless) on an X server of their own (Xvfb), its speech through speech-dispatcher and
# espeak-ng (French and Arabic voices), keys sent through the X server by xdotool
# (docs/accessibility.md, "Testing with a real screen reader"). CI runs as root and installs
# them when one is missing; elsewhere, install them yourself.
SCREENREADER_PACKAGES := orca at-spi2-core python3-pyatspi speech-dispatcher \
	speech-dispatcher-espeak-ng espeak-ng xvfb xdotool x11-xkb-utils dbus-x11 chromium fonts-noto-core
screenreader:
	@if command -v orca >/dev/null && command -v Xvfb >/dev/null && command -v xdotool >/dev/null \
		&& command -v setxkbmap >/dev/null \
		&& command -v speech-dispatcher >/dev/null && command -v espeak-ng >/dev/null \
		&& command -v dbus-daemon >/dev/null && command -v chromium >/dev/null \
		&& [ -x /usr/libexec/at-spi-bus-launcher ] \
		&& [ -x /usr/lib/speech-dispatcher-modules/sd_espeak-ng ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			$(SCREENREADER_PACKAGES); \
	else echo "the screen reader tests need: sudo apt-get install --no-install-recommends $(SCREENREADER_PACKAGES)" >&2; exit 1; fi

# Images: buildah (no Docker daemon) and, for a base made from Debian's packages when the
# registry's python image cannot be pulled, debootstrap (docs/operations.md, "Images").
image-tools:
	@if command -v buildah >/dev/null && command -v debootstrap >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah debootstrap; \
	else echo "buildah or debootstrap is missing: sudo apt-get install buildah debootstrap" >&2; exit 1; fi

TAG ?= 0.1.0
images: setup image-tools
	$(BIN)/python deploy/lexio_images.py --tag $(TAG)

# make images-push REGISTRY=registry.example.org/lexio: push, write build/images/digests.json.
images-push: setup image-tools
	@test -n "$(REGISTRY)" || { echo "usage: make images-push REGISTRY=registry.example.org/lexio" >&2; exit 2; }
	$(BIN)/python deploy/lexio_images.py --tag $(TAG) --push $(REGISTRY)

# The locks (requirements.txt for the work tree, requirements/*.txt for the images) from
# requirements/*.in, with every file's hash: pip-tools in a venv of its own.
PIPTOOLS := build/piptools
COMPILE := $(PIPTOOLS)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links
lock:
	test -x $(PIPTOOLS)/bin/pip-compile || { $(PYTHON) -m venv $(PIPTOOLS) && $(PIPTOOLS)/bin/pip install --quiet pip-tools==7.6.2; }
	for f in lexicon engine lobby gateway build; do $(COMPILE) -o requirements/$$f.txt requirements/$$f.in; done
	$(COMPILE) -o requirements.txt requirements/dev.in

# The Prometheus Operator's PrometheusRule, from the plain rules file (a test checks they agree).
monitoring-operator: setup
	$(BIN)/python -c 'import yaml, pathlib; d = pathlib.Path("deploy/monitoring"); \
	doc = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule", "metadata": {"name": "lexio", \
	"labels": {"app.kubernetes.io/part-of": "lexio", "app.kubernetes.io/component": "monitoring"}}, \
	"spec": yaml.safe_load((d / "lexio-rules.yml").read_text())}; \
	(d / "operator/prometheusrule.yaml").write_text("# Generated from ../lexio-rules.yml (the same groups, checked by tests/ops): regenerate with\n#   make monitoring-operator\n" \
	+ yaml.safe_dump(doc, sort_keys=False, width=100, allow_unicode=True))'

run: setup
	$(BIN)/python -m lexio_common.devrun

bench: setup
	$(BIN)/python bench/engine_bench.py
	$(BIN)/python bench/lexicon_bench.py
	$(BIN)/python bench/lexicon_lists_bench.py
	$(BIN)/python bench/lobby_bench.py
	$(BIN)/python bench/ws_memory_bench.py 2000
	$(BIN)/python bench/backend_bench.py 4

# Load and soak runs of bench/load.py (docs/benchmarks.md); not part of `make test`. The
# capacity point: 2,000 tables at steady state, players replaying a book of 200 games found
# ahead of time (bench/load_scripts.py), their clients on uvloop, so that the generator does
# not decide the result (docs/benchmarks.md, issue 18). load-prod: the same on production's
# topology (issue 27).
LOAD_RUN := $(BIN)/python bench/load.py run --think 10 --ramp 300 --warmup 300 --duration 120 --book 200 --uvloop-clients
load: setup
	$(LOAD_RUN) --tables 2000 --json var/load.json

# The previous capacity point, for comparison with earlier figures.
load-750: setup
	$(LOAD_RUN) --tables 750 --json var/load-750.json

# The same steady state on production's topology (issue 27): two gateway and two lobby
# replicas on one Redis with AOF everysec and a password, each gateway on its own lobby first;
# per-replica CPU, turn latency and bus notice delay in the report.
load-prod: setup
	$(LOAD_RUN) --topology prod --tables 2000 --json var/load-prod.json

# Issue 27's one-process target: 3,000 tables on SQLite.
load-3000: setup
	$(LOAD_RUN) --tables 3000 --json var/load-3000.json

# Faults under load on production's topology (issue 27): at 2,000 tables, kill -9 a gateway
# replica (started again 30 s later, as Kubernetes would), then a lobby replica, then Redis
# (started again at once on its AOF); each fault's reconnections and the survivors' minute
# after in the report. Its short version is tests/load/test_load_replica_kill.py (make test-slow).
load-kill: setup
	$(BIN)/python bench/load.py run --think 10 --ramp 300 --warmup 120 --duration 300 --book 200 \
		--uvloop-clients --topology prod --tables 2000 --fault gateway-b@30+30 --fault lobby-b@120+20 \
		--fault redis@210 --check --json var/load-kill.json

# A rolling update under load (issue 40): each gateway replaced in turn (SIGTERM: it sends its
# players away a batch at a time, then a new process) at 2,000 tables.
load-rollout: setup
	$(BIN)/python bench/load.py run --think 10 --ramp 240 --warmup 60 --duration 240 --book 200 \
		--uvloop-clients --topology prod --tables 2000 --fault gateway-a@30~ --fault gateway-b@130~ \
		--check --json var/load-rollout.json

soak: setup
	$(BIN)/python bench/load.py soak --minutes 30 --tables 1750 --think 10 --max-growth-mib 64 --json var/soak.json

# Rebuilds services/lexicon/lexio_lexicon/data/ from Debian's wfrench package.
wordlist: setup
	$(BIN)/python services/lexicon/tools/build_wordlist.py

# Rebuilds data/english.txt from Debian's wamerican-large and wbritish-large packages.
wordlist-en: $(STAMP_INSTALL)
	$(BIN)/python services/lexicon/tools/build_wordlist.py --list en

# Rebuilds the Arabic tries (build/lexicon/) from data/ar.aff and data/ar.dic.
wordlist-ar: $(STAMP_INSTALL)
	$(BIN)/python -m lexio_lexicon.build_lists
	touch $(STAMP_LISTS)

clean:
	rm -rf $(VENV) gen build *.egg-info .mypy_cache .ruff_cache .pytest_cache node_modules
