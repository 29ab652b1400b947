# codefrontier: every entry point a newcomer needs. `make demo` and `make test` set everything up.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export FRONTIER_STATE_DIR ?= $(CURDIR)/.state

.PHONY: install problems test lint bench demo up down compose-test compose-up compose-down gpu-check clean

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

# test data of the bundled problems, made by their seeded generators (cached by generator hash)
problems: install
	$(VENV)/bin/frontier problems build problems/bundled

test: install problems
	$(PY) -m pytest -q -x --durations=15 tests

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# each benchmark prints our figure and its baseline's, measured side by side, and the ratio
bench: install problems
	$(PY) bench/judge_bench.py
	$(PY) bench/service_bench.py
	$(PY) bench/eval_bench.py
	$(PY) bench/merge_bench.py
	$(PY) bench/compat_bench.py
	$(PY) bench/burst_bench.py
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
