# Set-up and checks. Every target works on a fresh machine from a clean clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

# Some CI images set PYTHONDONTWRITEBYTECODE. With it, every test process and every subprocess the
# tests start (the command line, the evaluate modules, the recipes) compiles bleukit's modules again,
# and each pytest worker rewrites every test module's asserts again: a CLI process took 0.28 s
# instead of 0.14 s, a worker's collection 22.8 s instead of 16.3 s. The clone's __pycache__
# folders are git-ignored and left out of the sdist and the wheel (tests/evaluate_module/test_packaging.py).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: venv install install-dev demo test test-fast test-sanitizers nox-venvs test-pythons lighteval-venv test-lighteval refresh-expected golden architecture-doc coverage design-coverage mutation lint docs dist bench fuzz app clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

venv: $(BIN)/python

# The package alone (what a user gets from `pip install .`).
$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(PIP) install -q .
	touch $@

install: $(VENV)/.installed

# Test dependencies. torch first, so that nothing after it pulls another build: in this workplace the
# package index serves the CPU wheel of torch==2.13.0. Elsewhere, plain PyPI gives Linux a CUDA build
# (several GB); point TORCH_PIP_ARGS at PyTorch's CPU-only wheel index to get the CPU one, e.g.
#   make install-dev TORCH_PIP_ARGS="--index-url <PyTorch's CPU wheel index>"
# setup.py and csrc/ are listed so that an edited kernel is recompiled (in place) by `make test`.
TORCH_SPEC     ?= torch==2.13.0
TORCH_PIP_ARGS ?=
# The rest goes in with uv, which downloads and unpacks in parallel: the same 227 packages at the same
# versions as pip's resolution, in 68 s instead of 140 s (cold caches, two cores). uv reads no pip
# configuration (pip.conf's find-links and extra indexes), so torch, which may come from one, is
# pip's; where uv cannot install (no registry it knows), pip does it all.
DEV_EXTRAS := .[dev,hf,ja,ko,torch,app,bench,docs,release]
UV_SPEC    := uv>=0.4
KERNEL_SOURCES := setup.py $(wildcard csrc/*/*.c csrc/*/*.h csrc/metrics/*/*.c csrc/metrics/*/*.h)
$(VENV)/.installed-dev: $(BIN)/python pyproject.toml requirements.txt $(KERNEL_SOURCES)
	$(PIP) install -q $(TORCH_PIP_ARGS) '$(TORCH_SPEC)' '$(UV_SPEC)'
	$(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode -e '$(DEV_EXTRAS)' \
		|| $(PIP) install -q -e '$(DEV_EXTRAS)'
	touch $@

install-dev: $(VENV)/.installed-dev

demo: install
	$(BIN)/bleukit examples/refs.a.txt examples/refs.b.txt -i examples/hyps.txt -f text
	$(BIN)/bleukit examples/refs.a.txt examples/refs.b.txt -i examples/hyps.txt --sentence-level -f text

# The suite runs on TEST_WORKERS processes (pytest-xdist; CI has two cores): tests that share a
# costly session resource (a Ray cluster, the app's server, the built package) carry
# @pytest.mark.xdist_group and run on one worker (--dist loadgroup). The tests marked serial (a real
# browser, whose waits run out on a machine busy with the other worker) run afterwards, alone; that
# run collects only where they live (SERIAL_PATHS in conftest.py, which checks it; the whole tree
# imports torch, transformers, Ray and gradio: tens of seconds) unless PYTEST_ARGS names what to run.
# TEST_WORKERS=0 runs in-process. The parallel part ends with its 25 slowest tests (--durations), so
# CI's log says where the time went.
TEST_WORKERS ?= 2
PYTEST_ARGS  ?=
SERIAL_PATHS  = $(shell $(BIN)/python -c "import conftest; print(*conftest.SERIAL_PATHS)")
test: install-dev
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not serial and not sanitizer" --durations=25 $(PYTEST_ARGS)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m serial $(or $(PYTEST_ARGS),$(SERIAL_PATHS)) || [ $$? -eq 5 ]  # 5: none here

# The kernels rebuilt under AddressSanitizer and UndefinedBehaviorSanitizer, running their own tests
# and the fuzz seeds in a subprocess (tests/kernel/test_fuzz.py; some 100 s of CPU): a build of its
# own, like the other Pythons' (test-pythons), so a CI step of its own rather than part of make test.
test-sanitizers: install-dev
	$(BIN)/python -m pytest -q -p no:cacheprovider -m sanitizer tests/kernel/test_fuzz.py

# lighteval 0.13 pins nltk 3.9.1 (the dev venv tests the NLTK reproductions against 3.10.4), so its
# plug-in is tested in a venv of its own. That venv holds only the dependencies (bleukit's, the
# lighteval extra's, torch and the test runner) and is kept outside the clone, named by a digest of
# what it installs, so a fresh clone (CI's) reuses it; the package is this checkout's src/, with the
# kernels that install-dev built in place.
LT_DEPS  = $(shell $(PYTHON) -c "import ast, re; t = open('pyproject.toml').read(); \
	print(' '.join(repr(d) for k in ('dependencies', 'lighteval') \
	for d in ast.literal_eval(re.search('(?m)^' + k + ' = (\\[.*\\])', t).group(1))))")
LT_TOOLS = pytest pytest-timeout sacrebleu==2.6.0
LT_KEY   = $(shell echo "$(LT_DEPS) $(LT_TOOLS) $(TORCH_SPEC) $(TORCH_PIP_ARGS) $$($(PYTHON) -V)" | sha1sum | cut -c1-12)
LT_VENV ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/bleukit/venv-lighteval-$(LT_KEY)
$(LT_VENV)/.installed:
	rm -rf $(LT_VENV)
	$(PYTHON) -m venv $(LT_VENV)
	$(LT_VENV)/bin/python -m pip install -q --upgrade pip
	$(LT_VENV)/bin/python -m pip install -q $(TORCH_PIP_ARGS) '$(TORCH_SPEC)'
	$(LT_VENV)/bin/python -m pip install -q $(LT_DEPS) $(LT_TOOLS)
	touch $@

lighteval-venv: $(LT_VENV)/.installed

test-lighteval: install-dev $(LT_VENV)/.installed
	PYTHONPATH=src $(LT_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/integrations/test_lighteval.py \
		src/bleukit/integrations/lighteval.py tests/integrations/test_recipes.py -k lighteval

# The exactness tests on the other supported Pythons (pyenv's interpreters; the venv's 3.11 runs
# everything in `make test`): noxfile.py. `nox -s exactness` runs all five. nox (and uv, which makes
# its venvs) has a small venv of its own, so that the sessions' venvs can be made and installed
# (`make nox-venvs`: each Python's kernel build, 10-15 s) without .venv: .ci/run does that while make
# install-dev fills .venv. test-pythons then runs them with --no-install; an edited kernel or
# dependency list installs them again first (the editable install keeps Python edits live).
PYENV_BINS   = $(shell ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.*/bin 2>/dev/null | tr '\n' ':')
NOX_VENV    := .nox/tool
NOX          = PATH="$(PYENV_BINS)$$PATH" $(NOX_VENV)/bin/nox
NOX_SESSIONS = exactness-3.9 exactness-3.10 exactness-3.12 exactness-3.13
$(NOX_VENV)/bin/nox:
	$(PYTHON) -m venv $(NOX_VENV)
	$(NOX_VENV)/bin/python -m pip install -q 'nox>=2024.4' '$(UV_SPEC)'

$(NOX_VENV)/.installed: $(NOX_VENV)/bin/nox noxfile.py pyproject.toml $(KERNEL_SOURCES)
	$(NOX) --install-only -s $(NOX_SESSIONS)
	touch $@

nox-venvs: $(NOX_VENV)/.installed

test-pythons: $(NOX_VENV)/.installed
	$(NOX) --no-install -s $(NOX_SESSIONS)

# Everything but the end-to-end tests marked slow (training runs, browser, builds); `make test` runs all.
test-fast: install-dev
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not slow" $(PYTEST_ARGS)

# Line and branch coverage of src/bleukit over the whole suite (.coverage, and a summary). To check
# that a change to the tests leaves no code less tested, keep the .coverage of the run before it and
# compare: python .ci/coverage_diff.py BEFORE.coverage .coverage
coverage: install-dev
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --cov=bleukit --cov-branch \
		--cov-report=term:skip-covered $(PYTEST_ARGS)

# The golden run (tests/core/golden_run.py): bleukit's outputs on ../shared/data (scores, JSON, the
# command line, paired tests, ranking, the HTML report's JSON) stored in tests/golden/ with the commit
# they were recorded at; tests/core/test_golden_run.py checks them byte for byte. Record again only
# when an output is meant to change, and say why in the commit.
golden: install-dev
	PYTHONPATH=src $(BIN)/python tests/core/golden_run.py

# The layer diagram of docs/architecture.md, drawn from the import graph (tools/import_graph.py); run it
# when rooms, modules or imports between rooms change (tests/core/test_architecture.py says when).
architecture-doc:
	$(PYTHON) tools/architecture_doc.py

# The designed subsets (tests/designs.py) against the whole grids they stand for: the Python engine
# on every case (BLEUKIT_FULL_GRIDS=1) and on the designs, each under coverage; .ci/coverage_diff.py
# lists what the whole grids cover and the designs do not (and fails if anything). The whole TER grid
# on the Python engine takes some 20 CPU minutes under coverage.
DESIGNED = tests/metrics/ter/test_ter_vs_sacrebleu.py tests/metrics/chrf/test_chrf_sacrebleu.py \
	tests/oracles/test_expected_scores.py
COVERAGE_RUN = $(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadgroup \
	--cov=bleukit --cov-branch --cov-report=
design-coverage: install-dev
	BLEUKIT_FULL_GRIDS=1 COVERAGE_FILE=.coverage.full $(COVERAGE_RUN) $(DESIGNED) $(PYTEST_ARGS)
	COVERAGE_FILE=.coverage.designed $(COVERAGE_RUN) $(DESIGNED) $(PYTEST_ARGS)
	$(BIN)/python .ci/coverage_diff.py .coverage.full .coverage.designed

# Mutation testing of the modules where a wrong number would hide (tools/mutation.py, cosmic-ray; one
# process, each mutant against its module's tests): the default suite's kills, then its survivors
# again with every grid case (BLEUKIT_FULL_GRIDS=1). MUTATION_ARGS picks modules and the sample.
MUTATION_ARGS ?= --modules bleu.formula:10,bleu.statistics:8,tokenizers.mteval:8,chrf.formula:8,chrf.reference:8,significance.paired:6,cli.output:6
mutation: install-dev
	nice -n 15 $(BIN)/python tools/mutation.py $(MUTATION_ARGS) --out benchmarks/mutation/default.json
	nice -n 15 $(BIN)/python tools/mutation.py $(MUTATION_ARGS) --full-grids --timeout 900 \
		--survivors-of benchmarks/mutation/default.json --session-dir .mutation/full --out benchmarks/mutation/full.json

# The peers' slow outputs that the grids compare with (tests/oracles/stored/*.json), computed again:
# run it when a peer's version or the data in ../shared changes (the tests say so when it is due).
# ORACLES=ter (or chrf) refreshes one; the TER grid takes some 20 minutes.
ORACLES ?=
refresh-expected: install-dev
	$(BIN)/python tests/oracles/stored_oracles.py $(ORACLES)

# ruff (mistakes and import order) on everything, mypy on the package (strict on the core modules).
# The release workflow's schema check and the strict docs build are tests (tests/test_release.py),
# so make test runs them once and CI does not run them again.
lint: install-dev
	$(BIN)/ruff check src tests benchmarks integrations app.py bleu_metric.py setup.py noxfile.py .github/wheel_check.py docs/_ext tools
	$(BIN)/mypy

# The documentation site (docs/, mkdocs.yml) into site/; --strict turns every warning (a broken link,
# an API name that does not resolve, a bad option) into a failure.
docs: $(VENV)/.installed-docs
	$(BIN)/mkdocs build --strict --site-dir site

# What the site needs (the [docs] extra: mkdocs, mkdocstrings), not the developer environment: the
# API pages are read from src/ without importing it. Editable, as install-dev, so that both can share
# the venv.
$(VENV)/.installed-docs: $(BIN)/python pyproject.toml setup.py
	$(PIP) install -q -e '.[docs]'
	touch $@

# What a release uploads: the sdist and a wheel for this machine in dist/, checked by twine. The wheels
# for every platform are built by .github/workflows/release.yml (cibuildwheel).
dist: install-dev
	rm -rf dist
	$(BIN)/python -m build --outdir dist
	$(BIN)/twine check --strict dist/*

bench: install-dev
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/bench_ids.py
	$(BIN)/python benchmarks/bench_significance.py
	$(BIN)/python benchmarks/bench_pairwise.py
	$(BIN)/python benchmarks/bench_threads.py
	$(BIN)/python benchmarks/bench_self_bleu.py
	$(BIN)/python benchmarks/bench_chrf.py

# The kernels' differential fuzz targets (fuzz_kernel.py: BLEU, fuzz_chrf.py: chrF, fuzz_ter.py: TER)
# for FUZZ_SECONDS each, from their seed corpora; new inputs are kept in .fuzz-corpus/, .fuzz-chrf/, .fuzz-ter/ (a
# finding is written as crash-* in the current directory).
FUZZ_SECONDS ?= 600
fuzz: install-dev
	mkdir -p .fuzz-corpus .fuzz-chrf .fuzz-ter
	$(BIN)/python tests/kernel/fuzz/fuzz_kernel.py -max_total_time=$(FUZZ_SECONDS) .fuzz-corpus tests/kernel/fuzz/corpus
	$(BIN)/python tests/kernel/fuzz/fuzz_chrf.py -max_total_time=$(FUZZ_SECONDS) .fuzz-chrf tests/kernel/fuzz/corpus_chrf
	$(BIN)/python tests/kernel/fuzz/fuzz_ter.py -max_total_time=$(FUZZ_SECONDS) .fuzz-ter tests/kernel/fuzz/corpus_ter

app: $(VENV)/.installed-app
	GRADIO_SERVER_NAME=127.0.0.1 $(BIN)/python app.py

# What the app needs (the package and the [app] extra: Gradio), not torch and every other extra.
$(VENV)/.installed-app: $(BIN)/python pyproject.toml setup.py
	$(PIP) install -q -e '.[app]'
	touch $@

# The app's Hub Space in SPACE_DIR, to upload as it is: its README.md is space.yml's metadata (a Space
# reads it from the front matter of its root README) on top of this README; app.py, requirements.txt
# and src/ (a Space installs requirements.txt and runs app.py from src/). Only files git tracks.
SPACE_DIR ?= build/space
.PHONY: space
space:
	rm -rf $(SPACE_DIR) && mkdir -p $(SPACE_DIR)
	{ echo ---; grep -v '^#' space.yml; echo ---; echo; cat README.md; } > $(SPACE_DIR)/README.md
	git ls-files app.py requirements.txt src | tar -cf - -T - | tar -xf - -C $(SPACE_DIR)

clean:
	rm -rf $(VENV) .venv-lighteval build dist site src/*.egg-info .pytest_cache src/bleukit/_*_kernel*.so src/bleukit/metrics/*/_kernel*.so .fuzz-corpus .fuzz-chrf .fuzz-ter
