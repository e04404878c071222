"""Moved to :mod:`bleukit.pairwise.mbr`; this module keeps the old import path for one release.

>>> from bleukit.mbr import mbr_select
>>> mbr_select(["a b c", "a b c", "x"]).index
0
"""

from .pairwise.mbr import MBRSelection, mbr_select

__all__ = ["MBRSelection", "mbr_select"]
