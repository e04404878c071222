"""TER on the command line: sacreBLEU's ``--ter-*`` arguments and the options they make.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_arguments(parser)
>>> options_from_args(parser.parse_args(["--ter-no-punct", "--ter-case-sensitive"]), print)
TerOptions(normalized=False, no_punct=True, asian_support=False, case_sensitive=True)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .options import TerOptions

# (the options are imported when TER is asked for: every run builds this argument group)

__all__ = ["add_arguments", "options_from_args"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TER's argument group, with sacreBLEU's names and defaults."""
    t = parser.add_argument_group("TER related arguments (The defaults replicate TERCOM's behavior)")
    t.add_argument("--ter-case-sensitive", action="store_true", help="Enables case sensitivity. (Default: False)")
    t.add_argument("--ter-asian-support", action="store_true",
                   help="Enables special treatment of Asian characters. (Default: False)")
    t.add_argument("--ter-no-punct", action="store_true", help="Removes punctuation. (Default: False)")
    t.add_argument("--ter-normalized", action="store_true",
                   help="Applies basic normalization and tokenization. (Default: False)")


def options_from_args(args: argparse.Namespace, warn: Callable[[str], object]) -> TerOptions:
    """TER options from parsed arguments."""
    from .options import TerOptions

    return TerOptions(normalized=args.ter_normalized, no_punct=args.ter_no_punct,
                      asian_support=args.ter_asian_support, case_sensitive=args.ter_case_sensitive)
