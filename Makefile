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

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# CPU build of torch (a plain `torch` requirement would pull several GB of CUDA).
	$(PY) -m pip install "torch==2.13.0"
	# llama.cpp built for any x86-64 CPU; --no-cache-dir so a cached native wheel is not reused.
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install --no-cache-dir "llama-cpp-python[server]==0.3.36"
	$(PY) -m pip install -e ".[all,dev]"
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

test: $(STAMP) lint docs
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/runner_throughput.py
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
