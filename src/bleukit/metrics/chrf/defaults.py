"""chrF's option defaults (sacreBLEU's), on their own: the command line builds its ``--chrf-*``
arguments from them on every run, without the options class (a dataclass costs ~1 ms to build).

>>> DEFAULT_CHAR_ORDER, DEFAULT_WORD_ORDER, DEFAULT_BETA
(6, 0, 2)
"""

__all__ = ["DEFAULT_CHAR_ORDER", "DEFAULT_WORD_ORDER", "DEFAULT_BETA"]

DEFAULT_CHAR_ORDER = 6
DEFAULT_WORD_ORDER = 0
#: Recall weighs beta times as much as precision (Popović, WMT16).
DEFAULT_BETA = 2
