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

# llama-cpp-python has no wheel on PyPI: it is built from source, once per machine, into a
# wheelhouse named by its version, the Python, the CMake flags and the CMake include below, and
# installed from there. Only libllama and libggml are compiled (no multimodal library, no
# `common`: llama-cpp-python's Python code loads neither; tools/llama-cpp-libs-only.cmake), and
# the compile runs while pip installs everything else and apt installs Chromium.
# (A prebuilt llama.cpp, xllamacpp, could serve `local` without it, perplexity included; what
# that takes first is in bench/README.md, "A set-up without a compile".)
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_INCLUDE := $(CURDIR)/tools/llama-cpp-libs-only.cmake
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
PYVER := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
LLAMA_KEY := $(shell (printf '%s' '$(LLAMA_CMAKE_ARGS)'; cat $(LLAMA_CMAKE_INCLUDE)) | sha256sum | cut -c1-12)
WHEELHOUSE ?= $(HOME)/.cache/creval/wheels/llama-cpp-python-$(LLAMA_VERSION)-py$(PYVER)-$(LLAMA_KEY)
# Every extra of `all` but `local` (llama-cpp-python), and the tools of `dev` but its server:
# what pip installs while llama.cpp compiles (tests/test_packaging.py keeps this list whole).
EXTRAS_BESIDE_LLAMA := hf,embed,ja,data,plot,index,pos,inspect,train,ray,dev-tools

$(STAMP): pyproject.toml tools/llama-cpp-libs-only.cmake
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# Three jobs at once: (1) llama.cpp built for any x86-64 CPU, unless this machine built it
	# before with these flags (--no-cache-dir so that pip's cache, blind to CMAKE_ARGS, never
	# supplies a native build; the log in $(VENV)/llama-build.log); (2) Chromium from Debian
	# for the HTML report's browser tests (needs root and apt); (3) everything else from PyPI,
	# with the CPU build of torch (a plain `torch` requirement would pull several GB of CUDA).
	set -e; \
	if ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then build=; else \
	  rm -rf $(WHEELHOUSE).tmp; \
	  ( CMAKE_ARGS="$(LLAMA_CMAKE_ARGS) -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(LLAMA_CMAKE_INCLUDE)" \
	    $(PY) -m pip wheel --no-cache-dir --no-deps --wheel-dir $(WHEELHOUSE).tmp \
	      "llama-cpp-python==$(LLAMA_VERSION)" >$(VENV)/llama-build.log 2>&1 ) & build=$$!; \
	  echo "compiling llama.cpp in the background (log: $(VENV)/llama-build.log)"; fi; \
	if command -v chromium >/dev/null; then browser=; else \
	  ( (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
	    >$(VENV)/chromium-install.log 2>&1 || echo "chromium not installed (needs root and Debian's apt; $(VENV)/chromium-install.log): the HTML report's browser tests will skip, or fail under CI" ) & browser=$$!; fi; \
	$(PY) -m pip install "torch==2.13.0" -e ".[$(EXTRAS_BESIDE_LLAMA)]"; \
	if [ -n "$$browser" ]; then wait $$browser; fi; \
	if [ -n "$$build" ]; then \
	  wait $$build || { tail -n 40 $(VENV)/llama-build.log; echo "building llama-cpp-python failed: $(VENV)/llama-build.log" >&2; exit 1; }; \
	  mkdir -p $(WHEELHOUSE) && mv $(WHEELHOUSE).tmp/llama_cpp_python-*.whl $(WHEELHOUSE)/ && rm -rf $(WHEELHOUSE).tmp; fi
	# llama.cpp from the wheelhouse's file (never rebuilt here), then the rest of `all` and `dev`.
	$(PY) -m pip install "torch==2.13.0" \
	  "$$(ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl | head -n 1)[server]" -e ".[all,dev]"
	# statsmodels (the tests' independent check of the variance split and paired tests) after
	# the main resolve, against what it installed: resolved together, pip backtracks for long.
	$(PY) -m pip install -e ".[stats]"
	touch $(STAMP)

demo: $(STAMP)
	# The smoke profile: every family of the five papers, small, one run each under $(OUT),
	# then one report placing the model beside published models where that is valid.
	# The local model's defaults take every core: one one-thread copy per core for this small
	# model (docs/usage.md), which gives more tokens per second than threads of one copy.
	$(VENV)/bin/creval profile --model local --size smoke --out $(OUT)
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
