"""The supported Python range (3.9-3.13, from pyenv): the exactness tests on each version.

``nox -s exactness`` (or ``make test-pythons``) builds the kernels for every interpreter and runs the
tests that compare scores with sacreBLEU with ``==`` (BLEU, chrF and TER on both engines, the
formula's libm arithmetic, the bootstrap's float32 arithmetic), with only the core test
dependencies: the float results of ``math``/``sum`` differ between Python versions (3.12's ``sum``
of floats is compensated), which is what this checks. ``make test`` runs everything on the venv's
Python.
"""

from __future__ import annotations

import nox

nox.options.reuse_existing_virtualenvs = True
PYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
TESTS = [
    "tests/metrics",  # BLEU's libm functions, chrF and TER against sacreBLEU on every option
    "tests/oracles",  # expected_scores.jsonl and live sacreBLEU (property tests) with ==
    "tests/core/test_one_row.py",
    "tests/core/test_statistics_and_scoring.py",
    "tests/analysis/test_significance.py",  # the bootstrap's float32 arithmetic
    "tests/analysis/test_resampling.py",  # the compiled bootstrap: numpy's draws, the float32 formula
    "tests/kernel/test_native.py",
]


@nox.session(python=PYTHONS)
def exactness(session: nox.Session) -> None:
    session.install("-e", ".[ja,ko]", "pytest>=7", "pytest-timeout", "hypothesis>=6", "sacrebleu==2.6.0")
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *TESTS, *session.posargs)
