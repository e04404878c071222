"""sacreBLEU's Python API on bleukit: change the import, keep every call, get the same numbers.

``from bleukit import sacrebleu`` (or ``import bleukit.sacrebleu as sacrebleu``) gives sacreBLEU
2.6's functions and classes for BLEU, chrF and TER with its names, argument names, defaults, reference
*streams* (``refs[k][i]``), score objects and printed output, computed by bleukit's metric protocol:
the numbers are sacreBLEU's (``==``). One difference on purpose: reference streams of another
length than the hypotheses raise a ``ValueError`` naming the stream, where sacreBLEU's ``zip``
drops lines silently. Signatures name bleukit (``version:bleukit-X.Y.Z``); ``__version__`` is the
sacreBLEU release whose API this is. :func:`install` makes ``import sacrebleu`` give this module,
for code you cannot edit.

>>> from bleukit import sacrebleu
>>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
>>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
>>> print(sacrebleu.corpus_bleu(hyps, refs))
BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
>>> bleu = sacrebleu.BLEU()
>>> bleu.corpus_score(hyps, refs[:1] + [refs[1][:2]])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: reference stream 1 is too short: it has 2 lines for 3 hypotheses; ...
"""

from __future__ import annotations

import importlib
import sys

from . import compat, metrics, significance
from .compat import corpus_bleu, corpus_chrf, corpus_ter, raw_corpus_bleu, sentence_bleu, sentence_chrf, sentence_ter
from .metrics import BLEU, CHRF, TER

#: sacreBLEU's top-level names from its test-set and helper modules, imported on first use (the
#: test-set modules load the registry)
_LAZY_NAMES = {
    "DATASETS": "dataset",
    "SACREBLEU_DIR": "utils",
    "smart_open": "utils",
    "download_test_set": "utils",
    "get_source_file": "utils",
    "get_reference_files": "utils",
    "get_available_testsets": "utils",
    "get_langpairs_for_testset": "utils",
    "extract_word_ngrams": "metrics.helpers",
    "extract_char_ngrams": "metrics.helpers",
}


def __getattr__(name: str):
    if name in ("utils", "dataset"):
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "BLEU",
    "CHRF",
    "TER",
    "corpus_bleu",
    "raw_corpus_bleu",
    "sentence_bleu",
    "corpus_chrf",
    "sentence_chrf",
    "corpus_ter",
    "sentence_ter",
    "install",
    "compat",
    "metrics",
    "significance",
    "utils",
    "dataset",
    "DATASETS",
    "SACREBLEU_DIR",
    "smart_open",
    "download_test_set",
    "get_source_file",
    "get_reference_files",
    "get_available_testsets",
    "get_langpairs_for_testset",
    "extract_word_ngrams",
    "extract_char_ngrams",
    "__version__",
]

#: The sacreBLEU release whose API this module reproduces (scores' signatures name bleukit's version).
__version__ = "2.6.0"

# sacreBLEU's modules this package stands in for (install() aliases them)
_MODULES = (
    "compat",
    "significance",
    "metrics",
    "metrics.base",
    "metrics.bleu",
    "metrics.chrf",
    "metrics.ter",
    "metrics.helpers",
    "tokenizers",
    "tokenizers.tokenizer_ter",
    "utils",
    "dataset",
)


def install() -> None:
    """Make ``import sacrebleu`` (and ``sacrebleu.metrics``, ``sacrebleu.compat``,
    ``sacrebleu.significance``, ``sacrebleu.tokenizers.tokenizer_ter``) give this module from now on
    in this process, for code you cannot edit (an evaluation harness). Call it before that code
    imports sacreBLEU; modules that already imported the real one keep it.

    >>> import sys
    >>> saved = {k: v for k, v in sys.modules.items() if k == "sacrebleu" or k.startswith("sacrebleu.")}
    >>> install()
    >>> import sacrebleu
    >>> sacrebleu.corpus_bleu is corpus_bleu
    True
    >>> for key in [k for k in sys.modules if k == "sacrebleu" or k.startswith("sacrebleu.")]:
    ...     del sys.modules[key]
    >>> sys.modules.update(saved)
    """
    sys.modules["sacrebleu"] = sys.modules[__name__]
    for name in _MODULES:
        sys.modules[f"sacrebleu.{name}"] = importlib.import_module(f"{__name__}.{name}")
