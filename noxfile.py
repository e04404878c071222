"""The supported Python range (3.9-3.13, from pyenv): the kernel build and the exactness tests on each version.

``nox -s exactness`` (or ``make test-pythons``) builds the kernels for every interpreter and runs the
tests that compare floats with sacreBLEU (or numpy) with ``==``: BLEU's libm arithmetic and expected
scores, chrF and TER against sacreBLEU live (both engines), the one-row and vectorised formulas, the
bootstrap's float32 arithmetic and numpy's draws and sums, and the kernels against the Python engine.
Float results of ``math``/``sum`` differ between Python versions (3.12's ``sum`` of floats is
compensated), which is what this checks; the kernels are compiled against each version's C API.
chrF's option and signature checks (``test_chrf_options.py``) hold the same on every Python and run
once, in ``make test`` on the venv's Python (which also runs everything here, and the slow grids).

Each session installs with ``--no-build-isolation`` (setuptools once in the session's venv instead of
a fresh build environment per install) and runs its tests on two processes (pytest-xdist).
"""

from __future__ import annotations

import nox

nox.options.reuse_existing_virtualenvs = True
PYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
TESTS = [
    "tests/metrics/bleu/test_libm.py",  # BLEU's formula in libm's arithmetic
    "tests/metrics/chrf/test_chrf_sacrebleu.py",  # chrF live against sacreBLEU, both engines
    "tests/metrics/chrf/test_chrf_api.py",
    "tests/metrics/chrf/test_chrf_pairwise.py",
    "tests/metrics/chrf/test_chrf_one_row.py",
    "tests/metrics/chrf/test_chrf_properties.py",
    "tests/metrics/chrf/test_chrf_bootstrap.py",
    "tests/metrics/chrf/test_chrf_kernel.py",  # the chrF kernel on this C API
    "tests/metrics/ter/test_ter_vs_sacrebleu.py",  # TER live against sacreBLEU, sums in sentence order
    "tests/metrics/ter/test_ter_options_formula.py",
    "tests/metrics/ter/test_ter_api.py",
    "tests/metrics/ter/test_ter_hard_cases.py",
    "tests/metrics/ter/test_ter_bootstrap.py",
    "tests/metrics/ter/test_ter_kernel.py",  # the TER kernel on this C API
    "tests/oracles",  # expected_scores.jsonl and live sacreBLEU (property tests) with ==
    "tests/core/test_one_row.py",
    "tests/core/test_statistics_and_scoring.py",
    "tests/analysis/test_significance.py",  # the bootstrap's float32 arithmetic
    "tests/analysis/test_resampling.py",  # the compiled bootstrap: numpy's draws, the float32 formula
    "tests/kernel/test_native.py",  # the BLEU kernels against the Python engine
]


@nox.session(python=PYTHONS)
def exactness(session: nox.Session) -> None:
    session.install("setuptools>=77", "wheel")
    session.install("pytest>=7", "pytest-timeout", "pytest-xdist>=3.5", "hypothesis>=6", "sacrebleu==2.6.0")
    session.install("--no-build-isolation", "-e", ".[ja,ko]")
    # TER's live cross-check runs sacreBLEU's shift search whole (seconds a case on CJK text): it checks
    # the installed peer, not this Python's arithmetic, and runs once in make test
    session.run(
        "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "-m", "not slow",
        "-k", "not live_cross_check", *TESTS, *session.posargs,
    )
