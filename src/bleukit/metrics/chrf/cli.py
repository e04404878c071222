"""chrF on the command line: sacreBLEU's ``--chrf-*`` arguments and the options they make.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_arguments(parser)
>>> options_from_args(parser.parse_args(["-cw", "2", "--chrf-lowercase"]), print)
ChrfOptions(char_order=6, word_order=2, beta=2, lowercase=True, whitespace=False, eps_smoothing=False)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Callable

from .defaults import DEFAULT_BETA, DEFAULT_CHAR_ORDER, DEFAULT_WORD_ORDER

if TYPE_CHECKING:
    from .options import ChrfOptions

# (the options are imported when chrF is asked for: every run builds this argument group)

__all__ = ["add_arguments", "options_from_args"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """chrF's argument group, with sacreBLEU's names and defaults."""
    c = parser.add_argument_group("chrF related arguments")
    c.add_argument("--chrf-char-order", "-cc", type=int, default=DEFAULT_CHAR_ORDER,
                   help="Character n-gram order. (Default: %(default)s)")
    c.add_argument("--chrf-word-order", "-cw", type=int, default=DEFAULT_WORD_ORDER,
                   help="Word n-gram order (Default: %(default)s). If equals to 2, the metric is referred to as "
                        "chrF++.")
    c.add_argument("--chrf-beta", type=int, default=DEFAULT_BETA,
                   help="Determine the importance of recall w.r.t precision. (Default: %(default)s)")
    c.add_argument("--chrf-whitespace", action="store_true",
                   help="Include whitespaces when extracting character n-grams. (Default: False)")
    c.add_argument("--chrf-lowercase", action="store_true", help="Enable case-insensitivity. (Default: False)")
    c.add_argument("--chrf-eps-smoothing", action="store_true",
                   help="Enables epsilon smoothing similar to chrF++.py, NLTK and Moses; instead of effective "
                        "order smoothing. (Default: False)")


def options_from_args(args: argparse.Namespace, warn: Callable[[str], object]) -> ChrfOptions:
    """chrF options from parsed arguments (invalid values raise ``ValueError``/``TypeError``)."""
    from .options import ChrfOptions

    return ChrfOptions(
        char_order=args.chrf_char_order, word_order=args.chrf_word_order, beta=args.chrf_beta,
        lowercase=args.chrf_lowercase, whitespace=args.chrf_whitespace, eps_smoothing=args.chrf_eps_smoothing,
    )
