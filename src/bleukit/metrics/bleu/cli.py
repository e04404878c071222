"""BLEU on the command line: sacreBLEU's BLEU arguments and the options they make.

The command line (:mod:`bleukit.cli`) asks every metric package for its ``cli`` module:
:func:`add_arguments` adds the metric's argument group, :func:`options_from_args` turns the
parsed arguments into the metric's options (``log`` takes sacreBLEU's warnings), and the
optional :func:`check_system` gives the metric's warnings about a system's text where sacreBLEU
gives them: each time that metric counts the system (only BLEU has any).

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_arguments(parser)
>>> args = parser.parse_args(["-tok", "intl", "-lc"])
>>> args.langpair = None; args.sentence_level = False
>>> options_from_args(args, print).to_dict()["tokenize"]
'intl'
"""

from __future__ import annotations

import argparse
from typing import Callable, Sequence

from ...tokenizers.languages import TARGET_TOKENIZERS, tokenizer_for_language
from .options import DEFAULT_MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, BleuOptions

__all__ = ["add_arguments", "options_from_args", "check_system", "SACREBLEU_TOKENIZERS", "TARGET_TOKENIZERS"]

#: sacreBLEU 2.6's ``-tok`` choices (those bleukit lacks give a clear error, not argparse's).
SACREBLEU_TOKENIZERS = ["none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm",
                        "flores101", "flores200", "spBLEU-1K"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """BLEU's argument group (sacreBLEU's, plus bleukit's order, weights and effective order)."""
    b = parser.add_argument_group("BLEU related arguments")
    b.add_argument("--smooth-method", "-s", choices=list(SMOOTH_DEFAULTS), default="exp",
                   help="Smoothing method: exponential decay, floor (increment zero counts), add-k (increment "
                        "num/denom by k for n>1), or none. (Default: %(default)s)")
    b.add_argument("--smooth-value", "-sv", type=float, default=None,
                   help=f"The smoothing value. Only valid for floor and add-k. (Defaults: floor: "
                        f"{SMOOTH_DEFAULTS['floor']}, add-k: {SMOOTH_DEFAULTS['add-k']})")
    b.add_argument("--tokenize", "-tok", choices=SACREBLEU_TOKENIZERS, default=None,
                   help="Tokenization method to use for BLEU. If not provided, defaults to `zh` for Chinese, "
                        "`ja-mecab` for Japanese, `ko-mecab` for Korean and `13a` (mteval) otherwise. "
                        "(flores101/flores200/spBLEU-1K/spm read their SentencePiece model from "
                        "BLEUKIT_SPM_MODEL_FLORES101/_FLORES200/_SPBLEU_1K or sacreBLEU's cache, downloaded there "
                        "when missing and checked against the first copy's checksum)")
    b.add_argument("--lowercase", "-lc", action="store_true", help="If True, enables case-insensitivity.")
    b.add_argument("--force", action="store_true", help="Insist that your tokenized input is actually detokenized.")
    b.add_argument("--max-ngram-order", type=int, metavar="N", default=DEFAULT_MAX_NGRAM_ORDER,
                   help=f"Largest n-gram order (Default: {DEFAULT_MAX_NGRAM_ORDER}; sacreBLEU's API only; "
                        "a bleukit addition).")
    b.add_argument("--weights", type=float, nargs="+", metavar="W", default=None,
                   help="One weight per n-gram order (Default: uniform, sacreBLEU's formula; a bleukit addition).")
    b.add_argument("--effective-order", action="store_true",
                   help="Drop n-gram orders without any n-gram at corpus level (always on with --sentence-level; "
                        "a bleukit addition).")


def options_from_args(args: argparse.Namespace, warn: Callable[[str], object]) -> BleuOptions:
    """BLEU options from parsed arguments; the target language of ``-l`` picks the tokenizer when
    ``-tok`` is not given, and a tokenizer unsuited to it gets sacreBLEU's warning (``warn``).
    Invalid values raise ``ValueError``/``TypeError`` (the command line reports them in one line)."""
    # the one table of target languages (bleukit.tokenizers.languages), shared with the Python API
    tokenize = tokenizer_for_language(args.tokenize, language_pair=args.langpair, warn=warn)
    return BleuOptions(
        tokenize=tokenize, lowercase=args.lowercase, smooth_method=args.smooth_method,
        smooth_value=args.smooth_value, max_ngram_order=args.max_ngram_order,
        weights=tuple(args.weights) if args.weights else None,
        effective_order=args.effective_order or args.sentence_level,
    )


def check_system(system: Sequence[str], args: argparse.Namespace, warn: Callable[[str], object]) -> None:
    """sacreBLEU's warning for text that looks tokenized (100 lines ending in \" .\"), unless --force.

    >>> args = argparse.Namespace(force=False)
    >>> check_system(["a b ."] * 100, args, print)  # doctest: +ELLIPSIS
    That's 100 lines that end in a tokenized period ('.')
    ...
    """
    # sacreBLEU's check, same threshold and words (its `force` parameter is our --force)
    if not args.force and sum(1 for h in system if h.endswith(" .")) >= 100:
        warn("That's 100 lines that end in a tokenized period ('.')")
        warn("It looks like you forgot to detokenize your test data, which may hurt your score.")
        warn("If you insist your data is detokenized, or don't care, you can suppress this message "
             "with the `force` parameter.")
