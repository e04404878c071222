"""The supported Python range (3.9-3.13, from pyenv): the kernel build and the exactness tests on each version.

``nox -s exactness`` (or ``make test-pythons``) builds the kernels for every interpreter and runs the
tests whose results can change with the Python version. Two things change with it:

- **The C API and the libraries built for it.** The kernels are compiled against each version's C
  API, and each Python gets the numpy (and torch) wheels made for it (3.9's newest numpy is 2.0).
  ``PER_PYTHON`` runs on every version: the kernels against the Python engine, numpy's draws and
  sums, the bootstrap's float32 arithmetic against sacreBLEU's numpy code, the one-row and
  vectorised formulas, and BLEU's libm arithmetic.
- **Python's own float arithmetic**, where sacreBLEU and bleukit's Python engine compute: the
  ``math`` functions call the C library, which the versions share, and ``sum`` of floats is plain
  left-to-right addition up to 3.11 and compensated (Neumaier) from 3.12 on; nothing else in the
  float paths changed between 3.9 and 3.13 (and the whole set passed on all five in CI until this
  split, 2026-11-29). So the live comparisons with sacreBLEU (``FLOAT_CLASS``:
  chrF and TER on real data, both engines; the property tests; BLEU's expected scores) run once per
  kind of ``sum``: on 3.11 in ``make test`` (the venv's Python) and on 3.12 here
  (``SUM_REPRESENTATIVE``). 3.9 and 3.10 add the same as 3.11, and 3.13 the same as 3.12; where a
  version changes its float arithmetic, its version goes into ``SUM_REPRESENTATIVE``.

chrF's option and signature checks (``test_chrf_options.py``) hold the same on every Python and run
once, in ``make test`` (which also runs everything here, and the slow grids). Each session installs
with ``--no-build-isolation`` (setuptools once in the session's venv instead of a fresh build
environment per install) and runs its tests on two processes (pytest-xdist).
"""

from __future__ import annotations

import nox

nox.options.reuse_existing_virtualenvs = True
# uv (in the dev extra) makes each session's venv and installs in about half pip's time; virtualenv
# and pip where uv is missing
nox.options.default_venv_backend = "uv|virtualenv"
PYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
SUM_REPRESENTATIVE = {"3.11", "3.12"}  # one Python per kind of float sum (3.11 also runs in make test)
PER_PYTHON = [
    "tests/metrics/bleu/test_libm.py",  # BLEU's formula in libm's arithmetic, the compiled exp/log
    "tests/metrics/chrf/test_chrf_one_row.py",
    "tests/metrics/chrf/test_chrf_kernel.py",  # the chrF kernel on this C API
    "tests/metrics/test_bootstrap.py",  # every metric's float32 bootstrap against sacreBLEU's in this numpy
    "tests/metrics/ter/test_ter_kernel.py",  # the TER kernel on this C API
    "tests/metrics/bleu/test_bleu_one_row.py",
    "tests/metrics/bleu/test_bleu_statistics_and_scoring.py",
    "tests/analysis/test_significance.py",  # the bootstrap's float32 arithmetic
    "tests/analysis/test_resampling.py",  # the compiled bootstrap: numpy's draws, the float32 formula
    "tests/analysis/test_resampling_chrf_ter.py",  # chrF's and TER's bootstrap on the compiled draws, as numpy's
    "tests/metrics/bleu/test_bleu_kernel.py",  # the BLEU kernels against the Python engine
]
FLOAT_CLASS = [
    "tests/metrics/chrf/test_chrf_sacrebleu.py",  # chrF live against sacreBLEU, both engines
    "tests/metrics/test_api.py",  # every metric's public functions live against sacreBLEU (harness tables)
    "tests/metrics/test_accumulator.py",
    "tests/metrics/test_pairwise.py",
    "tests/metrics/chrf/test_chrf_pairwise.py",
    "tests/metrics/chrf/test_chrf_properties.py",
    "tests/metrics/ter/test_ter_vs_sacrebleu.py",  # TER live against sacreBLEU, sums in sentence order
    "tests/metrics/ter/test_ter_options_formula.py",
    "tests/metrics/ter/test_ter_hard_cases.py",
    "tests/oracles",  # expected_scores.jsonl and live sacreBLEU (property tests) with ==
]


@nox.session(python=PYTHONS)
def exactness(session: nox.Session) -> None:
    session.install("setuptools>=77", "wheel")
    session.install("pytest>=7", "pytest-timeout", "pytest-xdist>=3.5", "hypothesis>=6", "sacrebleu==2.6.0")
    session.install("--no-build-isolation", "-e", ".[ja,ko]")
    tests = PER_PYTHON + (FLOAT_CLASS if session.python in SUM_REPRESENTATIVE else [])
    # TER's live cross-check runs sacreBLEU's shift search whole (seconds a case on CJK text): it checks
    # the installed peer, not this Python's arithmetic, and runs once in make test
    session.run(
        "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "-m", "not slow",
        "-k", "not live_cross_check", *tests, *session.posargs,
    )
