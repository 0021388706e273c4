# Two commands do all set-up on a fresh machine (see README):
#   make demo   creates .venv, installs creval with everything, runs the smoke profile (every
#               benchmark family, small) on the offline default model
#   make test   the same set-up, then ruff, mypy, the documentation site (warnings as errors)
#               and the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.creval-installed
OUT ?= runs/demo

.PHONY: demo test lint docs setup bench clean

setup: $(STAMP)

# llama-cpp-python has no wheel on PyPI: it is built from source (minutes), once per machine,
# into a wheelhouse named by its version, the Python and the CMake flags, and installed from there.
# (A prebuilt llama.cpp, xllamacpp, could serve `local` without it, perplexity included; what
# that takes first is in bench/README.md, "A set-up without a compile".)
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF
PYVER := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
LLAMA_KEY := $(shell printf '%s' '$(LLAMA_CMAKE_ARGS)' | sha256sum | cut -c1-12)
WHEELHOUSE ?= $(HOME)/.cache/creval/wheels/llama-cpp-python-$(LLAMA_VERSION)-py$(PYVER)-$(LLAMA_KEY)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# llama.cpp built for any x86-64 CPU, unless this machine built it before with these flags;
	# --no-cache-dir so that pip's cache (blind to CMAKE_ARGS) never supplies a native build.
	ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || ( \
	  rm -rf $(WHEELHOUSE).tmp && \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip wheel --no-cache-dir --no-deps \
	    --wheel-dir $(WHEELHOUSE).tmp "llama-cpp-python==$(LLAMA_VERSION)" && \
	  mkdir -p $(WHEELHOUSE) && mv $(WHEELHOUSE).tmp/llama_cpp_python-*.whl $(WHEELHOUSE)/ && \
	  rm -rf $(WHEELHOUSE).tmp )
	# Everything in one resolve: the CPU build of torch (a plain `torch` requirement would pull
	# several GB of CUDA), llama.cpp from the wheelhouse's file (never rebuilt here), the extras.
	$(PY) -m pip install "torch==2.13.0" \
	  "$$(ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl | head -n 1)[server]" -e ".[all,dev]"
	# statsmodels (the tests' independent check of the variance split and paired tests) after
	# the main resolve, against what it installed: resolved together, pip backtracks for long.
	$(PY) -m pip install -e ".[stats]"
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) || echo "chromium not installed (needs root and Debian's apt): the HTML report's browser tests will skip, or fail under CI"
	touch $(STAMP)

demo: $(STAMP)
	# The smoke profile: every family of the five papers, small, one run each under $(OUT),
	# then one report placing the model beside published models where that is valid.
	$(VENV)/bin/creval profile --model local --size smoke --threads $(shell nproc) --out $(OUT)
	$(VENV)/bin/creval analyze techniques $(OUT)/neocoder   # seed 000 Figure 2, into its reports
	@echo "Profile report: $(OUT)/profile.html (profile.md, profile.json beside it)"

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench docs/_ext examples
	$(VENV)/bin/mypy

# The documentation site (mkdocs.yml, docs/, API pages from the docstrings) into site/; any
# warning (a broken link, a docstring reference to nothing) fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# The suite on every core (pytest-xdist; at most 4 workers: each may hold a model in memory).
TEST_WORKERS ?= auto
test: $(STAMP) lint docs
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --durations=30

bench: $(STAMP)
	$(PY) bench/runner_throughput.py
	$(PY) bench/runner_vs_inspect.py
	$(PY) bench/rerun_speed.py
	$(PY) bench/sandbox_overhead.py
	$(PY) bench/local_logprobs.py
	$(PY) bench/entailment_calls.py
	$(PY) bench/judge_tokens.py --responder compliant
	$(PY) bench/neocoder_judge.py
	$(PY) bench/creativity_index.py
	$(PY) bench/templates_vs_diversity.py
	$(PY) bench/lotbench_cost.py
	$(PY) bench/neocoder_mcts.py

clean:
	rm -rf $(VENV) runs site .pytest_cache .mypy_cache .ruff_cache
