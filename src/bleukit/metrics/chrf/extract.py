"""chrF statistics from text: the compiled kernel when it is built, the pure-Python reference otherwise.

Both engines give the same table (``tests/metrics/chrf`` checks it); :func:`engine_name` says
which one runs. ``BLEUKIT_ENGINE=python|native`` forces one (:mod:`bleukit._native` applies it),
as for BLEU.

>>> chrf_statistics(["a cat"], [["the cat"]], ChrfOptions(char_order=2)).tolist()
[[4, 6, 3, 3, 5, 2]]
>>> pairwise_chrf(["a cat", "dog"], ["the cat", "dog"], ChrfOptions()).round(2).tolist()
[[31.25, 0.0], [0.0, 100.0]]
"""

from __future__ import annotations

import functools
from typing import Any, List, Sequence, Tuple

import numpy as np

from ... import _native
from ...engine import thread_count
from ...inputs import check_reference_entry, check_sentence_references
from . import reference
from .formula import beta_factors, sentence_scores
from .options import ChrfOptions

__all__ = ["KERNEL", "available", "engine_name", "chrf_statistics", "sentence_row", "pairwise_chrf",
           "pairwise_chrf_statistics"]

#: The module name of chrF's kernel (built from csrc/metrics/chrf/).
KERNEL = "bleukit.metrics.chrf._kernel"

#: Hypotheses scored per block by the Python pairwise path (bounds its statistics rows in memory).
_PYTHON_BLOCK_PAIRS = 1 << 16


def available() -> bool:
    """Whether the compiled chrF kernel could be imported.

    >>> isinstance(available(), bool)
    True
    """
    return _native.load_kernel(KERNEL) is not None


def engine_name() -> str:
    """``'native'`` or ``'python'``: who computes chrF statistics now.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     engine_name()
    'python'
    """
    return "native" if _native.kernel(KERNEL) is not None else "python"


def _kernel_options(options: ChrfOptions) -> tuple:
    if not isinstance(options, ChrfOptions):
        raise TypeError(f"options must be a ChrfOptions, got {type(options).__name__}")
    return _kernel_arguments(options)


@functools.lru_cache(maxsize=64)
def _kernel_arguments(options: ChrfOptions) -> tuple:
    # built once per options: a one-sentence call (an RL reward) spends about 1 µs less
    factor, one_plus = beta_factors(options)
    return (options.char_order, options.word_order, options.lowercase, options.whitespace, options.eps_smoothing,
            factor, one_plus, "".join(sorted(reference.PUNCTUATION)))


def chrf_statistics(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], options: ChrfOptions, threads: int = 1
) -> np.ndarray:
    """The int64 statistics table ``(n, 3 * (char_order + word_order))`` of checked input.

    ``references[i]`` is the non-empty list of reference strings of ``hypotheses[i]``; see
    :func:`bleukit.metrics.chrf.reference.chrf_statistics` for the rules. ``threads`` (0: every
    core) splits the kernel's work; the Python engine counts in one thread.

    >>> chrf_statistics(["ab"], [["b", "ab"]], ChrfOptions(char_order=1), threads=2).tolist()
    [[2, 2, 2]]
    """
    n_threads = thread_count(threads)
    args = _kernel_options(options)
    kernel = _native.kernel(KERNEL)
    if kernel is None:
        return reference.chrf_statistics(hypotheses, references, options)
    # a str or bytes for either side: the kernel's TypeError, the Python engine's message
    out = np.empty((len(hypotheses), options.columns), dtype=np.int64)
    kernel.statistics(hypotheses, references, *args, out, min(n_threads, kernel.MAX_THREADS))
    return out


def sentence_row(hypothesis: str, references: Any, options: ChrfOptions) -> Tuple[List[int], int]:
    """The statistics row of one hypothesis against its references (a str, or a list of str and
    ``None``, checked as :func:`bleukit.inputs.check_sentence_references` checks them) and their
    number: one kernel call, no table.

    >>> sentence_row("a cat", ["the cat", None], ChrfOptions(char_order=2))
    ([4, 6, 3, 3, 5, 2], 1)
    """
    args = _kernel_options(options)
    kernel = _native.kernel(KERNEL)
    if kernel is None:
        refs = check_sentence_references(references)
        row = reference.chrf_statistics([hypothesis], [refs], options)[0]
        return [int(x) for x in row.tolist()], len(refs)
    out = kernel.sentence(hypothesis, references, *args, check_reference_entry)
    return list(out[:-1]), out[-1]


def _check_side(texts: Sequence[str], what: str) -> list:
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__len__"):
        raise TypeError(f"{what} must be a sequence of str, got {type(texts).__name__}")
    return list(texts)


def pairwise_chrf_statistics(
    hypotheses: Sequence[str], references: Sequence[str], options: ChrfOptions, threads: int = 1
) -> np.ndarray:
    """Statistics of every hypothesis against every single reference: int64 ``(N, M, columns)``.

    ``table[i, j]`` is ``chrf_statistics([hypotheses[i]], [[references[j]]], options)[0]``.

    >>> pairwise_chrf_statistics(["ab"], ["ab", "b"], ChrfOptions(char_order=1)).tolist()
    [[[2, 2, 2], [2, 1, 1]]]
    """
    n_threads = thread_count(threads)
    args = _kernel_options(options)
    same = references is hypotheses
    hyps = _check_side(hypotheses, "hypotheses")
    refs = hyps if same else _check_side(references, "references")
    kernel = _native.kernel(KERNEL)
    if kernel is None:
        return reference.pairwise_chrf_statistics(hyps, refs, options)
    rows = np.empty((len(hyps), len(refs), options.columns), dtype=np.int64)
    kernel.pairwise(hyps, refs, *args, None, rows, min(n_threads, kernel.MAX_THREADS))
    return rows


def pairwise_chrf(
    hypotheses: Sequence[str], references: Sequence[str], options: ChrfOptions, threads: int = 1
) -> np.ndarray:
    """Sentence chrF of every hypothesis against every single reference: float64 ``(N, M)``.

    Element ``(i, j)`` equals sacreBLEU's ``CHRF(...).sentence_score(hypotheses[i],
    [references[j]]).score``. Pass the same list twice for MBR's candidates-against-candidates
    matrix. Each sentence's n-grams are counted once; the kernel then walks, per hypothesis, the
    references holding each of its n-grams (``threads`` split the hypotheses).

    >>> pairwise_chrf(["ab"], ["ab", "b"], ChrfOptions(char_order=1)).tolist()
    [[100.0, 83.33333333333334]]
    """
    n_threads = thread_count(threads)
    args = _kernel_options(options)
    same = references is hypotheses
    hyps = _check_side(hypotheses, "hypotheses")
    refs = hyps if same else _check_side(references, "references")
    kernel = _native.kernel(KERNEL)
    if kernel is None:
        out = np.empty((len(hyps), len(refs)), dtype=np.float64)
        step = max(1, _PYTHON_BLOCK_PAIRS // max(1, len(refs)))
        for i0 in range(0, len(hyps), step):
            block = hyps[i0 : i0 + step]
            table = reference.pairwise_chrf_statistics(block, refs, options)
            scores = sentence_scores(table.reshape(-1, options.columns), options)
            out[i0 : i0 + len(block)] = scores.reshape(len(block), len(refs))
        return out
    out = np.empty((len(hyps), len(refs)), dtype=np.float64)
    kernel.pairwise(hyps, refs, *args, out, None, min(n_threads, kernel.MAX_THREADS))
    return out
