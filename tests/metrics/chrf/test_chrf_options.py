"""ChrfOptions: validation, and the signature and score name against sacreBLEU's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sacrebleu.metrics import CHRF
from sacrebleu.metrics.chrf import CHRFScore

from bleukit._version import __version__
from bleukit.metrics.chrf.options import ChrfOptions


@pytest.mark.parametrize(
    "char_order, word_order, beta, lowercase, whitespace, eps_smoothing",
    list(itertools.product([6, 3], [0, 2], [2, 1], [False, True], [False, True], [False, True])),
)
def test_signature_and_name_are_sacrebleus(char_order, word_order, beta, lowercase, whitespace, eps_smoothing):
    kwargs = dict(
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        lowercase=lowercase,
        whitespace=whitespace,
        eps_smoothing=eps_smoothing,
    )
    metric = CHRF(**kwargs)
    metric.corpus_score(["a b"], [["a b"], ["a c"]])
    theirs = str(metric.get_signature()).split("|")
    ours = ChrfOptions(**kwargs).signature(2).split("|")
    assert ours[:-1] == theirs[:-1]
    assert ours[-1] == f"version:bleukit-{__version__}" and theirs[-1].startswith("version:")
    assert ChrfOptions(**kwargs).name == CHRFScore(0.0, char_order, word_order, beta).name
    assert ChrfOptions(**kwargs).sentence_level() == ChrfOptions(**kwargs)


def test_defaults_are_sacrebleus():
    assert (ChrfOptions().char_order, ChrfOptions().word_order, ChrfOptions().beta) == (
        CHRF.CHAR_ORDER,
        CHRF.WORD_ORDER,
        CHRF.BETA,
    )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(char_order=0), ValueError, "char_order must be between 1 and"),
        (dict(char_order=2.0), TypeError, "char_order must be an int"),
        (dict(char_order=True), TypeError, "char_order must be an int"),
        (dict(word_order=-1), ValueError, "word_order must be between 0 and"),
        (dict(word_order="2"), TypeError, "word_order must be an int"),
        (dict(char_order=600, word_order=600), ValueError, "char_order \\+ word_order must be at most"),
        (dict(beta=-1), ValueError, "beta must be a finite number >= 0"),
        (dict(beta=float("nan")), ValueError, "beta must be a finite number"),
        (dict(beta=float("inf")), ValueError, "beta must be a finite number"),
        (dict(beta=1e200), ValueError, "too large"),
        (dict(beta=10**200), ValueError, "too large"),
        (dict(beta="2"), TypeError, "beta must be a number"),
        (dict(beta=True), TypeError, "beta must be a number"),
        (dict(lowercase=1), TypeError, "lowercase must be a bool"),
        (dict(whitespace="yes"), TypeError, "whitespace must be a bool"),
        (dict(eps_smoothing=None), TypeError, "eps_smoothing must be a bool"),
    ],
)
def test_bad_options_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        ChrfOptions(**kwargs)


def test_numpy_values_become_python_ones():
    opts = ChrfOptions(char_order=np.int64(4), beta=np.float64(1.5), lowercase=np.bool_(True))
    assert type(opts.char_order) is int and type(opts.beta) is float and opts.lowercase is True
    assert type(ChrfOptions(beta=np.int32(3)).beta) is int
